"""`run --ray` on a REAL local Ray cluster (a head and a second node, each a `ray start` process, shared by this
module's tests): the one-process run's per-item results on the demo (media at its paths or shipped through the
object store) and on a generated 200-item set, a worker
killed mid-item (retried by Ray, recorded), a driver killed mid-run (the same command resumes), and cancel."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from annotation.store import Store
from app import main
from benchmarks.ray_cluster import LocalCluster
from benchmarks.synthetic import proactivebench
from tests.conftest import REPO

PLUGIN = REPO / "tests" / "runners" / "slow_plugin.py"
DEADLINE = 300


@pytest.fixture(scope="module")
def cluster():
    import ray

    from runners.ray_run import connect
    c = LocalCluster(cpus=(1, 1)).start()
    try:
        connect(c.address)
        c.wait_for_nodes()
        yield c
    finally:
        ray.shutdown()
        c.stop()


def run(args: list[str], db, ray_address=None) -> Store:
    """`python app.py run` in this process; the store it wrote."""
    argv = ["run", *args, "--db", str(db)] + (["--ray", ray_address] if ray_address else [])
    assert main(argv) == 0
    return Store(db)


def outcome(store: Store) -> dict:
    """What must not depend on where the items ran: each item's prediction and emissions (latencies aside) and
    the report's per-item scores."""
    run_ = store.runs()[-1]
    items = {i: {"prediction": r["prediction"], "emissions": [{k: v for k, v in e.items() if k != "latency_s"}
                                                              for e in r["emissions"]]}
             for i, r in store.run_items(run_.id).items()}
    return {"status": run_.status, "items": items, "per_item": run_.report["per_item"]}


def test_ray_runs_give_the_one_process_results(cluster, openai_server, tmp_path):
    gen = str(proactivebench(tmp_path / "gen200", n_items=200))
    openai_server.reset()
    openai_server.after(3.0, "DECISION: SPEAK\nRESPONSE: there it is")  # a "model" whose answer depends on time
    model = f"openai:scripted@{openai_server.base_url}"
    cases = [("demo-motion", ["--model", "baseline:motion"], []),
             ("demo-motion-shipped", ["--model", "baseline:motion"], ["--ray-media", "ship"]),
             ("demo-openai", ["--model", model, "--concurrency", "2"], []),
             ("gen-motion", ["--model", "baseline:motion", "--data", gen], []),
             ("gen-openai", ["--model", model, "--data", gen, "--concurrency", "2"], [])]
    for name, args, on_ray in cases:
        args = ["--benchmark", "proactivebench", *args]
        one = outcome(run(args, tmp_path / f"{name}-one.sqlite"))
        ray_ = outcome(run(args + on_ray, tmp_path / f"{name}-ray.sqlite", cluster.address))
        assert one["status"] == ray_["status"] == "done", name
        assert len(ray_["items"]) == (200 if name.startswith("gen") else 6), name
        assert ray_ == one, name
    # the scripted model speaks from t=3 on: some generated items are hits, some not (the scores say something)
    scores = {json.dumps(v, sort_keys=True) for v in one["per_item"].values()}
    assert len(scores) > 1


def test_an_hf_model_runs_in_actors_with_the_one_process_results(cluster, tiny_llava, tmp_path):
    args = ["--benchmark", "proactivebench", "--model", f"hf:{tiny_llava}", "--limit", "2",
            "--backend-option", "max_new_tokens=4", "--backend-option", "device=cpu"]
    on_ray = outcome(run(args + ["--backend-option", "num_cpus=1"], tmp_path / "ray.sqlite", cluster.address))
    assert on_ray == outcome(run(args, tmp_path / "one.sqlite")) and len(on_ray["items"]) == 2


def test_a_worker_that_dies_mid_item_is_retried_and_recorded(cluster, tmp_path):
    marker = tmp_path / "died"
    args = ["--benchmark", "proactivebench", "--model", f"plugin:{PLUGIN}:DiesOnce",
            "--backend-option", f"marker={marker}", "--backend-option", "item=pb-wr-blue"]
    on_ray = run(args, tmp_path / "ray.sqlite", cluster.address)
    assert marker.exists()  # a worker did die
    health = on_ray.runs()[-1].report["run_health"]
    assert health["worker_retries"] == {"pb-wr-blue": 1}
    one = run(args, tmp_path / "one.sqlite")  # the marker exists: nothing dies in one process
    assert outcome(on_ray) == outcome(one)


def test_a_killed_driver_resumes_with_the_same_command(cluster, tmp_path):
    db = tmp_path / "db.sqlite"
    args = ["--benchmark", "proactivebench", "--model", f"plugin:{PLUGIN}:SlowMotionlessTalker",
            "--backend-option", "delay=0.1"]
    driver = subprocess.Popen([sys.executable, str(REPO / "app.py"), "run", *args, "--db", str(db),
                               "--ray", cluster.address], cwd=REPO, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.time() + DEADLINE
        while not (db.exists() and Store(db).runs() and Store(db).run_items(Store(db).runs()[0].id)):
            assert driver.poll() is None, driver.stderr.read().decode()[-2000:]
            assert time.time() < deadline, "no item finished"
            time.sleep(0.2)
    finally:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()
    first = Store(db).runs()[0]
    assert first.status == "running"
    resumed = run(args, db, cluster.address)
    assert [r.id for r in resumed.runs()] == [first.id]
    assert outcome(resumed) == outcome(run(args, tmp_path / "one.sqlite"))


def test_cancel_from_the_runs_tab_stops_the_clusters_tasks(cluster):
    import ray

    from ibench_ui.context import AppContext
    from ibench_ui.models import ModelRegistry
    from ibench_ui.runs_service import RunsService
    ctx = AppContext(store=Store(os.path.join(cluster.tmp, "tab.sqlite")), ray=cluster.address,
                     models=ModelRegistry.from_dict({"models": {"slow": {
                         "spec": f"plugin:{PLUGIN}:SlowMotionlessTalker", "options": {"delay": 0.5}}}}))
    service = RunsService(ctx)
    run_id = service.start("", "proactivebench", "slow", "", "", "", "")
    deadline = time.time() + DEADLINE
    while not ctx.store.run_calls(run_id):  # items are running on the cluster
        assert time.time() < deadline
        time.sleep(0.2)
    service.cancel("", run_id)
    service.registry.find(run_id).thread.join(DEADLINE)
    run = ctx.store.get_run(run_id)
    assert run.status == "cancelled", run.error
    while ray.available_resources().get("CPU", 0) < 2:  # every task ended: both nodes' CPUs are free again
        assert time.time() < deadline, ray.available_resources()
        time.sleep(0.2)
