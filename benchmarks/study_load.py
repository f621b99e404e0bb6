"""Study load: many participants respond at once through the route the page sends responses to
(`/api/respond`: the session's checked respond function as a plain JSON route), against one
`python app.py` server on this machine. `--via gradio` sends them through the gr.HTML server
function instead (Gradio's /gradio_api/component_server), the transport the page used before.

    python benchmarks/study_load.py                      # realistic (100 x 20) + stress (10/30/100 x 50)
    python benchmarks/study_load.py --realistic 10x10 --stress 10 --stress-responses 10   # the CI size

realistic: each participant responds at human pace (exponential gaps, mean 1 s); 20 % of responses are
sent a second time with the same id (a page retrying after a lost answer). stress: clients send back to
back. Every acknowledged response must be in the database afterwards (lost), and no id may be stored
twice or a retry add a row (duplicated). "ack" is request -> acknowledgement, which the server sends
only after the row is committed (synchronous=FULL). The anchor is bare sqlite3 on the same disk with
the same durability, one commit per response, no web server: the floor for per-row commits. The
stress phase at 100 clients is also run through the gr.HTML server function on the same server
(`--side-by-side`), the transport the page used for responses before the route."""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.live_latency import free_port, pct, start_server, stop_process  # noqa: E402

ITEM = "moving_square#0"


@dataclass
class Client:
    """One participant's session and what it sent and was told."""
    k: int
    session_id: str = ""
    page: str = ""
    opened: float = 0.0  # monotonic time the session was opened (media time counts from here)
    acked: set = field(default_factory=set)
    sent: set = field(default_factory=set)
    lat_ms: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # requests that got no answer (re-sent, as a page would)
    retries: int = 0


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) the process has used: per-response cost that a loaded box cannot skew."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> tuple[float, float]:
    """(current VmRSS, peak VmHWM) of a process in MiB."""
    vals = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            vals[line.split(":")[0]] = int(line.split()[1]) / 1024
    return vals.get("VmRSS", float("nan")), vals.get("VmHWM", float("nan"))


async def session_component(http, base: str) -> int:
    """The id of the Session tab's gr.HTML (its server functions live there)."""
    async with http.get(f"{base}/config") as r:
        cfg = await r.json()
    for comp in cfg["components"]:
        if (comp.get("props") or {}).get("elem_id") == "session-root":
            return comp["id"]
    raise RuntimeError("no session-root component in /config")


async def call(http, base: str, comp: int, page: str, fn: str, data: dict, via: str = "gradio") -> dict:
    """One session function call: through the plain JSON route (responses) or Gradio's server function."""
    if via == "route":
        url, body = f"{base}/api/{fn}", data
    else:
        url, body = f"{base}/gradio_api/component_server", {"session_hash": page, "component_id": comp,
                                                           "fn_name": fn, "data": data}
    async with http.post(url, json=body, headers={"Origin": base}) as r:  # as the page sends it (same origin)
        r.raise_for_status()
        return await r.json()


async def open_client(http, base: str, comp: int, c: Client) -> None:
    """Open the participant's session (before the clock starts: a phase times responses, not page loads)."""
    c.page = uuid.uuid4().hex[:16]
    res = await call(http, base, comp, c.page, "open_session",
                     {"participant": f"load{c.k:03d}", "benchmark": "interactionbench", "items": ITEM})
    if not res.get("ok"):
        raise RuntimeError(f"open_session: {res}")
    c.session_id = res["session"]["id"]
    c.opened = time.monotonic()


async def participant(http, base: str, comp: int, c: Client, n: int, mean_gap: float, retry: float,
                      rng: random.Random, via: str) -> None:
    page, t_start = c.page, c.opened
    for i in range(n):
        if mean_gap > 0:
            await asyncio.sleep(rng.expovariate(1.0 / mean_gap))
        rid = f"r_{uuid.uuid4().hex[:24]}"
        media_t = round(min(time.monotonic() - t_start, 19.0), 3)  # never ahead of the wall time since start
        payload = {"rid": rid, "session_id": c.session_id, "item_index": 0, "item_id": ITEM, "kind": "press",
                   "media_t": media_t, "source": "load", "page_id": page}
        sends = 2 if rng.random() < retry else 1
        for attempt in range(sends):
            t0 = time.perf_counter()
            res = None
            for transport_try in range(4):  # as the page does: a request without an answer is re-sent, same id
                try:
                    res = await call(http, base, comp, page, "respond", payload, via)
                    break
                except Exception as exc:  # noqa: BLE001 - a failed request is counted, never hidden
                    c.errors.append(f"{type(exc).__name__}: {exc}")
                    c.sent.add(rid)
            if res is None:
                continue
            dt = (time.perf_counter() - t0) * 1000
            c.sent.add(rid)
            if res.get("ok"):
                if attempt == 0:
                    c.lat_ms.append(dt)
                else:
                    c.retries += 1
                c.acked.add(rid)
            else:
                c.errors.append(res.get("error", "?"))


async def phase(base: str, pid: int, clients: int, n: int, mean_gap: float, retry: float, seed: int,
                via: str) -> tuple[list, float, float, float]:
    """Open every client's session, then time the responses alone: (clients, wall s, server CPU s, own CPU s)."""
    # aiohttp: its per-request cost stays flat with 100 open connections (httpx's pool did not, and the
    # load generator shares these 2 cores with the server)
    import aiohttp
    conn = aiohttp.TCPConnector(limit=clients + 4)
    async with aiohttp.ClientSession(connector=conn, timeout=aiohttp.ClientTimeout(total=60)) as http:
        comp = await session_component(http, base)
        cs = [Client(k=seed * 10000 + k) for k in range(clients)]
        for i in range(0, clients, 10):  # a few at a time, as participants arrive
            await asyncio.gather(*(open_client(http, base, comp, c) for c in cs[i:i + 10]))
        cpu0, own0, t0 = cpu_s(pid), time.process_time(), time.perf_counter()
        await asyncio.gather(*(participant(http, base, comp, c, n, mean_gap, retry, random.Random(seed * 7919 + c.k),
                                           via) for c in cs))
        return cs, time.perf_counter() - t0, cpu_s(pid) - cpu0, time.process_time() - own0


def audit(db: Path, cs: list) -> dict:
    """Lost: acknowledged ids missing from the store. Duplicated: rows beyond one per id sent."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        lost = dup = stored = 0
        for c in cs:
            ids = [r[0] for r in con.execute("select id from responses where session_id = ?", [c.session_id])]
            stored += len(ids)
            lost += len(c.acked - set(ids))
            dup += len(ids) - len(set(ids)) + len(set(ids) - c.sent)
    finally:
        con.close()
    return {"lost": lost, "duplicated": dup, "stored": stored}


def anchor_rate(folder: Path, n: int) -> float:
    """Bare sqlite3, WAL + synchronous=FULL, one insert and one commit per response: responses/s."""
    con = sqlite3.connect(str(folder / "anchor.sqlite"), isolation_level=None)
    con.execute("pragma journal_mode=wal")
    con.execute("pragma synchronous=full")
    con.execute("create table if not exists r (id text primary key, session_id text, t real, meta text)")
    t0 = time.perf_counter()
    for i in range(n):
        con.execute("insert into r values (?, ?, ?, ?)", [uuid.uuid4().hex, "s", i * 0.1, "{}"])
    dt = time.perf_counter() - t0
    con.close()
    return n / dt


def run_phase(label: str, base: str, db: Path, pid: int, clients: int, n: int, gap: float, retry: float,
              seed: int, via: str = "route") -> dict:
    cs, wall, cpu, own = asyncio.run(phase(base, pid, clients, n, gap, retry, seed, via))
    a = audit(db, cs)
    lat = [x for c in cs for x in c.lat_ms]
    acked = sum(len(c.acked) for c in cs)
    rss, hwm = rss_mib(pid)
    out = {"label": label, "via": via, "clients": clients, "per_client": n, "acked": acked, "retries": sum(c.retries for c in cs),
           "errors": sum(len(c.errors) for c in cs), "wall_s": wall, "rate": acked / wall if wall else 0.0,
           "p50_ms": pct(lat, .5), "p95_ms": pct(lat, .95), "max_ms": max(lat) if lat else float("nan"),
           "rss_mib": rss, "peak_rss_mib": hwm, "server_cpu_ms_per_request": 1000 * cpu / max(1, acked + sum(c.retries for c in cs)), "server_cores": cpu / wall if wall else 0.0,
           "client_cores": own / wall if wall else 0.0, "first_errors": sorted({e for c in cs for e in c.errors})[:3], **a}
    print(f"{label:<22} {clients:4d} x {n:3d}  acked {acked:5d} (+{out['retries']} retries)  "
          f"{out['rate']:7.1f} resp/s  p50 {out['p50_ms']:6.1f} ms  p95 {out['p95_ms']:7.1f} ms  "
          f"max {out['max_ms']:7.1f} ms  lost {a['lost']}  duplicated {a['duplicated']}  errors {out['errors']}  "
          f"server RSS {rss:.0f} MiB (peak {hwm:.0f}), server CPU {out['server_cpu_ms_per_request']:.1f} ms/request, "
          f"cores used: server {out['server_cores']:.2f}, load generator {out['client_cores']:.2f}",
          flush=True)
    for e in out["first_errors"]:
        print(f"    error: {e}")
    return out


def in_process(folder: Path, clients: int, n: int, group_commit: bool) -> float:
    """The session service and store alone (threads calling SessionService.respond, no HTTP): responses/s.
    group_commit=False replays the previous store write (one insert and one commit per response, all
    under the store lock) as the side-by-side anchor for the group commit."""
    import math
    import threading
    from dataclasses import asdict

    from annotation.model import Response
    from annotation.store import Store, _dumps
    from ibench_ui.context import AppContext
    from ibench_ui.session import SessionService

    class PerRowStore(Store):
        def add_response(self, r: Response) -> Response:
            with self._lock:
                row = asdict(r)
                row.update(meta=_dumps(r.meta))
                self.db["responses"].insert(row)
            return r

    store = (Store if group_commit else PerRowStore)(folder / f"inproc_{int(group_commit)}.sqlite")
    svc = SessionService(AppContext(store=store), clock_slack=math.inf)
    sids = [svc.open_session({"participant": f"ip{k}", "benchmark": "interactionbench", "items": ITEM})["session"]["id"]
            for k in range(clients)]
    bad = []

    def go(sid: str) -> None:
        for i in range(n):
            res = svc.respond({"rid": f"r_{uuid.uuid4().hex[:24]}", "session_id": sid, "item_index": 0, "item_id": ITEM,
                               "kind": "press", "media_t": 1.0 + i * 0.01})
            if not res.get("ok"):
                bad.append(res)
    ts = [threading.Thread(target=go, args=(sid,)) for sid in sids]
    t0 = time.perf_counter()
    [t.start() for t in ts]
    [t.join() for t in ts]
    dt = time.perf_counter() - t0
    stored = store.db.execute("select count(*) from responses").fetchone()[0]
    store.close()
    if bad or stored != clients * n:
        raise RuntimeError(f"in-process phase: {len(bad)} refused, {stored} of {clients * n} stored")
    return clients * n / dt


def parse_grid(s: str) -> tuple[int, int]:
    a, _, b = s.lower().partition("x")
    return int(a), int(b)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--realistic", default="100x20", help="participants x responses at human pace (0x0: skip)")
    ap.add_argument("--gap", type=float, default=1.0, help="realistic: mean gap between responses, seconds")
    ap.add_argument("--retry", type=float, default=0.2, help="share of responses sent twice with the same id")
    ap.add_argument("--stress", default="10,30,100", help="concurrent clients per stress phase ('' to skip)")
    ap.add_argument("--stress-responses", dest="stress_n", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--via", choices=["route", "gradio"], default="route",
                    help="route: the JSON route the page sends responses to; gradio: the gr.HTML server function")
    ap.add_argument("--side-by-side", dest="side", default="100",
                    help="stress phases (concurrent clients) re-run through the gr.HTML server function in the same "
                         "run, as the anchor for the route ('' to skip)")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--in-process", dest="in_process", default="100x20",
                    help="clients x responses for the service-only comparison, group commit vs per-row (0x0: skip)")
    args = ap.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="study_load_"))
    db, port = tmp / "ibench.sqlite", free_port()
    proc = start_server(db, port)
    base = f"http://127.0.0.1:{port}"
    rss0, _ = rss_mib(proc.pid)
    print(f"server pid {proc.pid} up, RSS {rss0:.0f} MiB; db {db}; responses via {args.via}", flush=True)
    results = []
    try:
        p, n = parse_grid(args.realistic)
        if p and n:
            results.append(run_phase("realistic (human pace)", base, db, proc.pid, p, n, args.gap, args.retry, 1,
                                     args.via))
        for k, clients in enumerate(int(x) for x in args.stress.split(",") if x.strip()):
            results.append(run_phase("stress (back to back)", base, db, proc.pid, clients, args.stress_n, 0.0,
                                     args.retry, 2 + k, args.via))
        if args.via == "route":
            for k, clients in enumerate(int(x) for x in args.side.split(",") if x.strip()):
                results.append(run_phase("stress via gradio fn", base, db, proc.pid, clients, args.stress_n, 0.0,
                                         args.retry, 50 + k, "gradio"))
    finally:
        stop_process(proc)
    n_anchor = max((r["acked"] for r in results), default=500)
    anchor = anchor_rate(tmp, min(2000, max(200, n_anchor)))
    print(f"anchor: bare sqlite3 (WAL, synchronous=FULL, one commit per row, no server): {anchor:.0f} rows/s")
    for r in results:
        print(f"  {r['label']:<22} {r['clients']:4d} clients: {r['rate']:7.1f} resp/s = {r['rate'] / anchor:.2f} x anchor")
    for g in (r for r in results if r["via"] == "gradio" and args.via == "route"):
        for r in (r for r in results if r["via"] == "route" and r["label"].startswith("stress")
                  and r["clients"] == g["clients"]):
            print(f"  route vs gr.HTML server function, {g['clients']} clients, same server: {r['rate']:.0f} vs "
                  f"{g['rate']:.0f} resp/s = {r['rate'] / g['rate']:.2f} x; p95 {r['p95_ms']:.0f} vs {g['p95_ms']:.0f} ms")
    ip_c, ip_n = parse_grid(args.in_process)
    service = {}
    if ip_c and ip_n:
        service = {"per_row": in_process(tmp, ip_c, ip_n, False), "group": in_process(tmp, ip_c, ip_n, True)}
        print(f"service only (no HTTP), {ip_c} threads x {ip_n}: group commit {service['group']:.0f} resp/s, "
              f"per-row commit (before) {service['per_row']:.0f} resp/s = {service['group'] / service['per_row']:.2f} x")
    if args.json:
        Path(args.json).write_text(json.dumps({"phases": results, "anchor_rows_per_s": anchor, "service": service},
                                              indent=1))
    bad = sum(r["lost"] + r["duplicated"] for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
