"""Endpoint pools (one model at several base URLs): the pool's choice, limit and cooldown; a run spread over two
real scripted servers; a failing server taken out with its errors reported per endpoint; the --ray and pool
arguments refused before anything exists (one error line)."""
import threading

import pytest

from annotation.store import Store
from app import main
from runners.backends.pool import EndpointPool


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_the_pool_picks_the_least_loaded_healthy_endpoint_within_its_limit():
    clock = Clock()
    pool = EndpointPool(["a", "b"], limit=1, cooldown=30, clock=clock)
    assert [pool.acquire(), pool.acquire()] == ["a", "b"]
    got = []
    waiter = threading.Thread(target=lambda: got.append(pool.acquire()))
    waiter.start()  # both endpoints are at their limit: it waits for a release
    pool.release("b", ok=True)
    waiter.join(60)
    assert got == ["b"]
    pool.release("a", ok=False)  # a failed: out for 30 s
    pool.release("b", ok=True)
    assert pool.healthy() == ["b"]
    assert pool.acquire() == "b"
    clock.now = 29.0
    pool.release("b", ok=False)  # b out until 59, a until 30: with none healthy, the one back first is probed
    assert pool.healthy() == [] and pool.acquire() == "a"
    pool.release("a", ok=True)
    clock.now = 60.0
    assert pool.healthy() == ["a", "b"]


@pytest.fixture(scope="module")
def second_server():
    import fake_openai

    server = fake_openai.ScriptedServer()
    server.start()
    yield server
    server.stop()


def _health(db) -> dict:
    return Store(db).runs()[-1].report["run_health"]


def test_calls_spread_over_the_pool_with_a_limit_per_endpoint(openai_server, second_server, tmp_path):
    for s in (openai_server, second_server):
        s.reset(latency=0.05)
    model = f"openai:scripted@{openai_server.base_url},{second_server.base_url}"
    assert main(["run", "--benchmark", "proactivebench", "--model", model, "--limit", "4", "--concurrency", "4",
                 "--backend-option", "concurrency=1", "--db", str(tmp_path / "db.sqlite")]) == 0
    seen = [openai_server.state(), second_server.state()]
    assert all(s["n"] > 0 and s["max_in_flight"] == 1 for s in seen), seen
    health = _health(tmp_path / "db.sqlite")
    assert {u: e["attempts"] for u, e in health["endpoints"].items()} == {
        openai_server.base_url: seen[0]["n"], second_server.base_url: seen[1]["n"]}
    assert all(e["errors"] == 0 and e["latency_p50"] >= 0.05 for e in health["endpoints"].values())


def test_a_failing_endpoint_is_taken_out_and_reported(openai_server, second_server, tmp_path, capsys):
    second_server.reset()
    second_server.every(1, ("status", 503))  # this replica is down
    openai_server.reset()
    bad, good = second_server.base_url, openai_server.base_url
    db = tmp_path / "db.sqlite"
    assert main(["run", "--benchmark", "proactivebench", "--model", f"openai:scripted@{bad},{good}", "--limit", "2",
                 "--backend-option", "endpoint_cooldown=600", "--backend-option", "retries=2",
                 "--db", str(db)]) == 0
    health = _health(db)
    calls = health["calls"]
    # the first call went to the first endpoint, failed, and was retried on the other at once; the failed one
    # stayed out (cooldown 600 s) for the rest of the run
    assert health["ok"] == calls and health["errors"] == 0 and health["retries"] == 1
    assert health["endpoints"][bad]["attempts"] == 1
    assert health["endpoints"][bad]["errors_by_kind"] == {"http_503": 1}
    assert health["endpoints"][good]["attempts"] == calls and health["endpoints"][good]["errors"] == 0
    assert f"endpoint {bad}: attempts 1, errors 1 (http_503 1)" in capsys.readouterr().out


@pytest.mark.parametrize("args, needles", [
    (["--ray", "not an address"], ["--ray", "expected local, auto or a cluster address"]),
    (["--ray", "local\n"], ["--ray", "expected local, auto or a cluster address"]),  # `$` alone passes "\n"
    (["--ray-media", "ship"], ["--ray-media", "expected --ray ADDRESS"]),
    (["--backend-option", "num_gpus=1"], ["--backend-option num_gpus", "expected --ray ADDRESS"]),
    (["--ray", "local", "--backend-option", "num_gpus=-1"], ["--backend-option num_gpus", "expected a number >= 0"]),
    (["--model", "openai:m@http://127.0.0.1:9/v1,ftp://x"], ["--model", "'ftp://x'"]),
    (["--model", "openai:m@http://127.0.0.1:9/v1,http://127.0.0.1:9/v1/"], ["--model", "named twice"]),
    (["--model", "realtime:ws://127.0.0.1:9/v1/realtime,"], ["--model", "(empty)"]),
])
def test_ray_and_pool_arguments_are_refused_before_anything_exists(capsys, tmp_path, args, needles):
    db = tmp_path / "db.sqlite"
    model = [] if "--model" in args else ["--model", "baseline:motion"]
    assert main(["run", "--benchmark", "proactivebench", *model, *args, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert all(n in lines[0] for n in needles), lines[0]
    assert not db.exists()


def test_a_realtime_pool_skips_a_server_that_cannot_be_reached(rt_server, tmp_path):
    from annotation.loaders import demo_dir
    from runners.batch import BatchRunner, RunSpec
    from tests.runners.fake_openai import free_port
    good, _ = rt_server({"speech": []})
    dead = f"ws://127.0.0.1:{free_port()}/v1/realtime"  # nothing listens there
    spec = RunSpec(benchmark="omniinteract", model=f"realtime:{dead},{good}", data_dir=str(demo_dir("omniinteract")),
                   protocol="duplex", limit=1, backend_options={"model": "scripted", "speed": 4.0,
                                                                  "endpoint_cooldown": 600})
    health = BatchRunner(Store(tmp_path / "db.sqlite"), spec).run()["run_health"]
    # the first connection went to the first server, was refused; the session opened on the other one
    assert {u: (e["attempts"], e["errors"], e["errors_by_kind"]) for u, e in health["endpoints"].items()} == {
        f"{dead}?model=scripted": (1, 1, {"connection": 1}), f"{good}?model=scripted": (1, 0, {})}


def test_a_run_without_ray_never_imports_it(tmp_path):
    import subprocess
    import sys

    from tests.conftest import REPO
    code = ("import sys; from app import main; "
            f"rc = main(['run', '--benchmark', 'proactivebench', '--model', 'baseline:silent', '--limit', '1', "
            f"'--db', {str(tmp_path / 'db.sqlite')!r}]); "
            "sys.exit(rc or ('ray' in sys.modules and 3))")
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True).returncode == 0
