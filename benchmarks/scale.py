"""Scaling out: items per second and CPU seconds per item, side by side, for one process (--concurrency 1, 2, 8),
`--ray` on a local head (1 CPU) and a head plus a second worker node on this machine (two `ray start` processes,
1 CPU each); for the CPU-bound `baseline:motion` and for a scripted OpenAI server answering after 300 ms, over
one endpoint and over a pool of three (2 calls at once per endpoint).

Aims: the CPU-bound case scales with the cores Ray is given (>= 1.8x from the 1-CPU head to head + node); the
latency-bound case scales with endpoints (>= 0.9x linear, i.e. >= 2.7x, from one endpoint to three) wherever
enough items are in flight. CPU per item counts this process and, under Ray, every process of the cluster."""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "runners"))  # the scripted OpenAI server the tests use

from benchmarks.ray_cluster import LocalCluster  # noqa: E402
from benchmarks.synthetic import proactivebench  # noqa: E402

LATENCY_S = 0.3
PER_ENDPOINT = 2  # calls at once per endpoint: the pool's limit, so the endpoints are what the run waits on
RAY_HTTP_CPUS = 0.125  # an item waiting on HTTP needs little CPU: 8 in flight per core


def own_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cluster_cpu(cluster) -> float:
    """CPU seconds of every live process of the cluster's nodes (their process groups), workers included, read
    from /proc (fields 14-15 of stat: user and system clock ticks)."""
    groups = {p.pid for p in cluster.procs}
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended in the meantime
            continue
        if int(fields[2]) in groups:  # pgrp (field 5; fields here start after the command name)
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def measure(data: Path, model: str, backend_options: dict, concurrency: int, executor, cluster, db: Path,
            limit=None) -> tuple[float, float]:
    """(items per second, CPU seconds per item) of one whole run into a fresh store."""
    from annotation.store import Store
    from runners.batch import BatchRunner
    from runners.run_plan import prepare_run

    spec, backend = prepare_run("proactivebench", model, data, backend_options=backend_options, limit=limit)
    runner = BatchRunner(Store(db), spec, concurrency=concurrency, backend=backend, executor=executor)
    cpu0 = own_cpu() + (cluster_cpu(cluster) if cluster else 0.0)
    t0 = time.perf_counter()
    report = runner.run()
    wall = time.perf_counter() - t0
    cpu = own_cpu() + (cluster_cpu(cluster) if cluster else 0.0) - cpu0
    n = report["run"]["n_items"]
    assert report["run_health"]["errors"] == 0, report["run_health"]
    return n / wall, cpu / n


def workloads(tmp: Path, n_cpu: int, n_http: int, servers) -> list[tuple[str, Path, str, dict]]:
    one = f"openai:scripted@{servers[0].base_url}"
    pool = f"openai:scripted@{','.join(s.base_url for s in servers)}"
    cpu_data = proactivebench(tmp / "cpu", n_items=n_cpu, duration=20)
    http_data = proactivebench(tmp / "http", n_items=n_http, duration=4)
    return [("motion", cpu_data, "baseline:motion", {}),
            ("http x1", http_data, one, {"concurrency": PER_ENDPOINT}),
            ("http x3", http_data, pool, {"concurrency": PER_ENDPOINT})]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu-items", type=int, default=40, help="generated items for the CPU-bound case (20 s each)")
    ap.add_argument("--http-items", type=int, default=60, help="generated items for the latency-bound case (4 s)")
    a = ap.parse_args()
    import fake_openai

    servers = [fake_openai.ScriptedServer() for _ in range(3)]
    for s in servers:
        s.start()
        s.reset(latency=LATENCY_S)
    rows: dict[str, dict] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="ibscale") as d:
            tmp = Path(d)
            jobs = workloads(tmp, a.cpu_items, a.http_items, servers)
            k = 0
            for c in (1, 2, 8):
                mode = f"one process --concurrency {c}"
                for name, data, model, opts in jobs:
                    k += 1
                    rows.setdefault(mode, {})[name] = measure(data, model, opts, c, None, None, tmp / f"{k}.sqlite")
                    print(f"{mode:34} {name:8} {rows[mode][name][0]:7.2f} items/s", file=sys.stderr)
            for mode, cpus in (("--ray head (1 CPU)", (1,)), ("--ray head + node (2 CPUs)", (1, 1))):
                k = ray_rows(rows, mode, cpus, jobs, tmp, k)
    finally:
        for s in servers:
            s.stop()
    report(rows)


def ray_rows(rows: dict, mode: str, cpus: tuple, jobs, tmp: Path, k: int) -> int:
    import ray

    from runners.ray_run import RayExecutor, connect
    cluster = LocalCluster(cpus=cpus).start()
    try:
        connect(cluster.address)
        cluster.wait_for_nodes()
        for name, data, model, opts in jobs:
            opts = dict(opts, **({} if name == "motion" else {"num_cpus": RAY_HTTP_CPUS}))
            k += 1  # warm-up: every worker the run will use starts and imports the shipped code once
            executor = RayExecutor(resources=opts)
            measure(data, model, opts, 1, executor, cluster, tmp / f"{k}.sqlite", limit=executor.slots())
            k += 1
            rows.setdefault(mode, {})[name] = measure(data, model, opts, 1, RayExecutor(resources=opts), cluster,
                                                      tmp / f"{k}.sqlite")
            print(f"{mode:34} {name:8} {rows[mode][name][0]:7.2f} items/s", file=sys.stderr)
    finally:
        ray.shutdown()
        cluster.stop()
    return k


def report(rows: dict) -> None:
    base = rows["one process --concurrency 1"]
    print(f"{'':34} | {'motion (CPU-bound)':^29} | {f'OpenAI server, {LATENCY_S * 1000:.0f} ms (latency-bound)':^47}")
    print(f"{'mode':34} | {'items/s':>7} {'CPU s/item':>10} {'x c=1':>8} | {'1 endpoint':>10} {'3 endpoints':>11} "
          f"{'3 vs 1':>7} {'CPU s/item':>10} {'x c=1':>5}")
    for mode, r in rows.items():
        (m, mc), (h1, _), (h3, hc) = r["motion"], r["http x1"], r["http x3"]
        print(f"{mode:34} | {m:7.2f} {mc:10.3f} {m / base['motion'][0]:7.2f}x | {h1:8.2f}/s {h3:9.2f}/s "
              f"{h3 / h1:6.2f}x {hc:10.3f} {h3 / base['http x3'][0]:4.1f}x")
    one, two = rows["--ray head (1 CPU)"]["motion"][0], rows["--ray head + node (2 CPUs)"]["motion"][0]
    print(f"CPU-bound, Ray 1 -> 2 CPUs (head -> head + node): {two / one:.2f}x (aim >= 1.8x)")
    for mode in ("one process --concurrency 8", "--ray head (1 CPU)", "--ray head + node (2 CPUs)"):
        r = rows[mode]
        print(f"latency-bound, 1 -> 3 endpoints, {mode}: {r['http x3'][0] / r['http x1'][0]:.2f}x = "
              f"{r['http x3'][0] / r['http x1'][0] / 3:.2f} of linear (aim >= 0.9)")


if __name__ == "__main__":
    main()
