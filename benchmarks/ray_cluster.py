"""A real Ray cluster on this machine for the scaling benchmark and the tests: a head and any worker nodes, each a
`ray start --block` process in a session of its own, on free ports and in a temp folder of its own, so `stop()`
ends exactly the processes it started (never `ray stop`, which ends every Ray node of the machine)."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Optional

OBJECT_STORE_BYTES = 300_000_000  # per node: lean on a shared machine, plenty for shipped demo media
STARTED = "Ray runtime started"  # what `ray start` prints once its node is up
PORT_FLAGS = ("--node-manager-port", "--object-manager-port", "--metrics-export-port", "--runtime-env-agent-port",
              "--dashboard-agent-grpc-port", "--dashboard-agent-listen-port")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalCluster:
    """`LocalCluster(cpus=(1, 1)).start()`: a head with 1 CPU and a second node with 1 CPU; `address` to join."""

    def __init__(self, cpus: tuple[int, ...] = (1,), env: Optional[dict] = None):
        self.cpus = tuple(cpus)
        # Ray starts workers at nice 15; on a machine shared with other work they would starve, and the cluster
        # would measure the neighbours rather than the run
        self.env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_worker_niceness="0", **(env or {}))
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.tmp = Path(tempfile.mkdtemp(prefix="ibray"))  # short: Ray's socket paths must stay under 107 bytes
        self.procs: list[subprocess.Popen] = []

    def _node(self, cpus: int, head: bool) -> subprocess.Popen:
        cmd = ["ray", "start", "--block", f"--num-cpus={cpus}", "--num-gpus=0", "--disable-usage-stats",
               f"--object-store-memory={OBJECT_STORE_BYTES}"]
        cmd += [f"{flag}={free_port()}" for flag in PORT_FLAGS]
        if head:
            cmd += ["--head", f"--port={self.port}",
                    "--include-dashboard=false", f"--temp-dir={self.tmp}"]
        else:
            cmd += [f"--address={self.address}"]
        log = open(self.tmp / f"node{len(self.procs)}.log", "wb")
        proc = subprocess.Popen(cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        return proc

    def start(self, deadline_s: float = 180.0) -> "LocalCluster":
        """Start the nodes one after another (a node joining while the head still starts can stall both)."""
        deadline = time.time() + deadline_s
        for i, n in enumerate(self.cpus):
            proc = self._node(n, head=i == 0)
            while STARTED not in self.log(i):
                if proc.poll() is not None or time.time() > deadline:
                    self.stop()
                    raise RuntimeError(f"ray node {i} did not start: {self.log(i)[-2000:]}")
                time.sleep(0.2)
        return self

    def log(self, i: int) -> str:
        return (self.tmp / f"node{i}.log").read_text(errors="replace")

    def wait_for_nodes(self, deadline_s: float = 180.0) -> None:
        """After ray.init(address): wait until every node's CPUs are in the cluster."""
        import ray
        deadline = time.time() + deadline_s
        while ray.cluster_resources().get("CPU", 0) < sum(self.cpus):
            dead = [i for i, p in enumerate(self.procs) if p.poll() is not None]
            if dead or time.time() > deadline:
                raise RuntimeError(f"ray nodes did not join: {self.log(dead[0] if dead else 0)[-2000:]}")
            time.sleep(0.2)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            _end_group(proc)
        shutil.rmtree(self.tmp, ignore_errors=True)


def _end_group(proc: subprocess.Popen) -> None:
    """SIGTERM to the node's own process group, SIGKILL to whatever is left of it."""
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:  # the node process is gone; its children may linger
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return
