"""Live model hub without a browser: emissions follow the page's media clock, a quiet page stops its
worker, one worker per page, the long-poll wakes at once, and the session scores human and model apart."""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
import threading
import time

import pytest

from annotation.loaders import load
from annotation.model import Response
from annotation.store import Store
from ibench_ui.live_model import LiveModelHub, LiveTarget
from ibench_ui.timeline import timeline_html
from runners.clock import MediaClock

IB = "interactionbench"
ITEM = "moving_square#0"


class FakeTime:
    """A monotonic clock the test moves by hand (so staleness is exact, not a race)."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def item():
    return load(IB).get(ITEM)


@pytest.fixture
def env(tmp_path):
    fake = FakeTime()
    store = Store(tmp_path / "live.sqlite")
    hub = LiveModelHub(store, clock_factory=lambda: MediaClock(stale_after=3.0, monotonic=fake), reap_every=0.05)
    yield hub, store, fake
    for w in hub.workers():
        w.stop("test over")


def target(item, index=0, spec="baseline:always", protocol="blind", session="s_live"):
    return LiveTarget(session_id=session, item_index=index, item=item, spec=spec, protocol=protocol,
                      benchmark=IB, span=float(item.stream.duration))


def responses(events):
    return [e for e in events if e["type"] == "response"]


def wait_for(cond, timeout=5.0):
    deadline = time.time() + timeout
    while not cond():
        if time.time() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)


def test_emissions_follow_the_page_clock_and_are_stored(env, item):
    hub, store, fake = env
    tg = target(item)
    assert hub.report("pg1", tg, 0.0, paused=True)["started"]
    time.sleep(0.3)
    assert responses(hub.events("pg1")["events"]) == []          # first tick is t=1: not reached yet
    hub.report("pg1", tg, 1.05, paused=True)
    res = hub.wait_sync("pg1", 0, timeout=5)
    wait_for(lambda: len(responses(hub.events("pg1")["events"])) == 1)
    time.sleep(0.2)
    got = responses(hub.events("pg1")["events"])
    assert [e["t"] for e in got] == [1.0]                        # never a tick past the page's media time
    hub.report("pg1", tg, 2.1, paused=True)
    wait_for(lambda: len(responses(hub.events("pg1")["events"])) == 2)
    hub.report("pg1", tg, 3.0, paused=False)                     # playing: the server extrapolates
    wait_for(lambda: len(responses(hub.events("pg1")["events"])) == 3)
    fake.now += 1.02
    wait_for(lambda: len(responses(hub.events("pg1")["events"])) == 4)
    got = responses(hub.events("pg1")["events"])
    assert [e["t"] for e in got] == [1.0, 2.0, 3.0, 4.0] and res["cursor"] >= 1
    rows = store.responses(session_id="s_live")
    assert [r.t for r in rows] == [1.0, 2.0, 3.0, 4.0]
    # a model responder of its own: the spec and the session it sat in
    assert {r.responder for r in rows} == {"model:baseline:always@s_live"} and {r.item_id for r in rows} == {ITEM}
    assert all(r.kind == "speech" and r.text and r.page_id == "pg1" for r in rows)
    assert [r.id for r in rows] == [e["rid"] for e in got]       # pushed only after the commit
    for e, r in zip(got, rows):
        assert e["emit_wall_ms"] <= e["push_wall_ms"] and r.meta["emit_wall_ms"] == pytest.approx(e["emit_wall_ms"], abs=0.1)
        assert 'data-lane' not in e["row_html"] and 'class="ib-tl-model"' in e["row_html"] and "%" in e["mark_html"]
    assert hub.worker("pg1").alive()


def test_a_quiet_page_stops_its_worker_and_a_returning_one_restarts(env, item):
    hub, store, fake = env
    tg = target(item)
    hub.report("pg2", tg, 1.05, paused=True)
    wait_for(lambda: len(responses(hub.events("pg2")["events"])) == 1)
    w = hub.worker("pg2")
    fake.now += 3.5                                              # no report for 3.5 s: the page is dead
    wait_for(lambda: not w.alive(), timeout=3)
    assert w.state == "cancelled" and w.reason == "stale"
    st = [e for e in hub.events("pg2")["events"] if e["type"] == "status"]
    assert st[-1]["state"] == "cancelled" and st[-1]["reason"] == "stale"
    hub.report("pg2", tg, 5.0, paused=True)  # still nothing past t=1 was emitted by the dead worker
    assert len(store.responses(session_id="s_live")) >= 1
    w2 = hub.worker("pg2")
    assert w2 is not w and w2.alive()                            # the page came back: watched again
    wait_for(lambda: any(e["t"] == 5.0 for e in responses(hub.events("pg2")["events"])))
    assert [e["t"] for e in responses(hub.events("pg2")["events"])] == [1.0, 4.0, 5.0]  # 2, 3: over an interval late


def test_one_worker_per_page(env, item):
    hub, store, fake = env
    a, b = target(item, 0), target(item, 1)
    hub.report("pg3", a, 0.5, paused=True)
    wa = hub.worker("pg3")
    hub.report("pg3", b, 0.5, paused=True)                      # the page moved on to the next item
    wb = hub.worker("pg3")
    wait_for(lambda: not wa.alive(), timeout=3)
    assert wb is not wa and wb.alive() and wa.reason == "next item"
    assert hub.report("pg3", a, 3.0, paused=True).get("stale_report")  # a late report of the old item: ignored
    assert hub.worker("pg3") is wb
    hub.report("pg4", a, 0.5, paused=True)                      # another page: its own worker
    assert {w.thread.name for w in hub.workers()} == {wb.thread.name, hub.worker("pg4").thread.name}
    assert hub.stop("pg4", "unload")
    wait_for(lambda: not hub.worker("pg4").alive(), timeout=3)
    assert len(hub.workers()) == 1


def test_finish_lets_the_last_tick_through_then_stops(env, item):
    hub, store, fake = env
    tg = target(item)
    hub.report("pg5", tg, 0.0, paused=False)
    hub.report("pg5", tg, float(item.stream.duration), paused=True)   # "ended": jumped to the end
    hub.finish("s_live", 0, grace=3.0)
    w = hub.worker("pg5")
    assert w is None
    assert hub.report("pg5", tg, 24.0, paused=True) == {"state": "done"}  # not started again
    # jumping to the end skips the ticks it fell behind on but decides the last one
    assert [r.t for r in store.responses(session_id="s_live")] == [23.0, 24.0]


def test_long_poll_wakes_at_once_and_times_out_empty(env, item):
    hub, store, fake = env
    tg = target(item)
    cur = hub.events("pg6")["cursor"]  # before the report: the worker may announce itself before report returns
    hub.report("pg6", tg, 0.2, paused=True)

    # the worker announces itself (its state event) once it starts: let that land before the empty wait
    wait_for(lambda: hub.events("pg6", cur)["events"], timeout=120)

    async def scenario():
        t0 = time.perf_counter()
        empty = await hub.wait("pg6", hub.events("pg6")["cursor"], timeout=0.3)
        waited_empty = time.perf_counter() - t0
        cur2 = empty["cursor"]
        threading.Timer(0.2, lambda: hub.report("pg6", tg, 1.01, paused=True)).start()
        got = []
        while not responses(got):
            # the wait's own timeout (600 s) is far beyond the test's deadline (120 s): only the emission itself
            # can end this wait in time, so a broken wake-up fails here instead of passing slowly
            res = await asyncio.wait_for(hub.wait("pg6", cur2, timeout=600), timeout=120)
            got += res["events"]
            cur2 = res["cursor"]
        return empty, waited_empty, got

    # its own thread: a session-scoped Playwright browser keeps an event loop running in the main thread
    with ThreadPoolExecutor(1) as pool:
        empty, waited_empty, got = pool.submit(asyncio.run, scenario()).result()
    assert empty["events"] == [] and waited_empty >= 0.25   # an empty wait lasts its timeout
    assert responses(got)[0]["t"] == 1.0
    assert hub.events("pg6", cur)["cursor"] > cur


# -- through the session service ------------------------------------------------------------------

@pytest.mark.parametrize("req, msg", [
    ({"model": "baseline:nosuch"}, "not one of the models configured"),
    ({"model": "gpt4"}, "not one of the models configured"),
    ({"model": "plugin:os:system"}, "not one of the models configured"),   # a spec from the page is never loaded
    ({"model": "openai:m@http://127.0.0.1:9/v1"}, "not one of the models configured"),
    ({"who": "model"}, "choose a model"),
    ({"who": "human", "model": "baseline:motion"}, "clear the model"),
    ({"who": "robots", "model": "baseline:motion"}, "Who responds"),
    ({"model": "baseline:motion", "protocol": "zigzag"}, "Unknown protocol"),
])
def test_bad_model_settings_write_nothing(svc, req, msg):
    res = svc.open_session({"participant": "P1", "benchmark": IB, "items": ITEM, **req})
    assert not res["ok"] and msg in res["error"], res
    assert svc.ctx.store.sessions() == []


def test_session_with_a_model_scores_each_responder_apart(svc):
    res = svc.open_session({"participant": "P1", "benchmark": IB, "items": ITEM, "model": "baseline:periodic:2",
                            "who": "both", "protocol": "blind"})
    assert res["ok"], res
    sid = res["session"]["id"]
    assert res["session"]["settings"]["model"] == "baseline:periodic:2"
    assert 'data-lane="human"' in res["timeline_html"] and 'data-lane="model:baseline:periodic:2"' in res["timeline_html"]
    base = {"session_id": sid, "item_index": 0, "item_id": ITEM, "page_id": "pgS"}
    assert svc.clock({**base, "media_t": 0.0, "paused": False, "rate": 1.0, "event": "playing"})["started"]
    assert svc.respond({**base, "kind": "press", "media_t": 3.2, "source": "button"})["ok"]
    assert svc.clock({**base, "media_t": 3.05, "paused": True, "event": "pause"})["ok"]
    wait_for(lambda: any(r.responder.startswith("model:") for r in svc.ctx.store.responses(session_id=sid)))
    fin = svc.finish_item({"session_id": sid, "item_index": 0})
    assert fin["ok"]
    html = fin["result_html"]
    assert 'id="item-score"' in html and 'id="item-score-model"' in html and "Model baseline:periodic:2" in html
    assert "You (P1): 1 response<" in html
    rows = svc.ctx.store.responses(session_id=sid)
    assert {r.responder for r in rows} == {"human:P1", f"model:baseline:periodic:2@{sid}"}
    assert svc.hub.worker("pgS") is None                          # the item ended: the model stopped
    n = len(rows)
    svc.clock({**base, "media_t": 10.0, "paused": False})          # late report: nothing restarts
    time.sleep(0.2)
    assert len(svc.ctx.store.responses(session_id=sid)) == n
    done = svc.open_session({"session_id": sid})
    assert "responder" in done["summary_html"] and "Model baseline:periodic:2" in done["summary_html"]


def test_model_only_session_refuses_human_responses(svc):
    res = svc.open_session({"participant": "P2", "benchmark": IB, "items": ITEM, "model": "baseline:motion",
                            "who": "model"})
    assert res["ok"] and 'data-lane="human"' not in res["timeline_html"]
    bad = svc.respond({"session_id": res["session"]["id"], "item_index": 0, "kind": "press", "media_t": 1.0})
    assert not bad["ok"] and "only the model" in bad["error"]
    assert svc.clock({"session_id": res["session"]["id"], "item_index": 0, "page_id": "x", "media_t": -1})["ok"] is False


def test_human_only_sessions_do_not_touch_the_hub(svc):
    res = svc.open_session({"participant": "P3", "benchmark": IB, "items": ITEM})
    out = svc.clock({"session_id": res["session"]["id"], "item_index": 0, "page_id": "p", "media_t": 1.0})
    assert out["ok"] and out["model"] is None and svc.hub.workers() == []


def test_timeline_lanes_label_the_model():
    rows = [Response(id="r_h", item_id="x", benchmark=IB, responder="human:P", session_id="s", t=2.0, kind="press"),
            Response(id="r_m", item_id="x", benchmark=IB, responder="model:baseline:motion", session_id="s", t=5.0,
                     kind="speech", text="<b>changed</b>", meta={"emit_wall_ms": 123.4})]
    html = timeline_html(rows, 10.0, lanes=["human", "model:baseline:motion"])
    assert html.count('class="ib-tl-lane ') == 2 and ">baseline:motion</span>" in html
    assert 'data-emit-ms="123.4"' in html and "<b>" not in html and 'left:50.000%' in html
    # the model's speech row cannot be "corrected" by the participant
    assert 'class="ib-fix" data-rid="r_m"' not in html
    assert "ib-tl-lane" not in timeline_html(rows[:1], 10.0)      # human only: one plain track, as before


@pytest.mark.parametrize("bench", ["interactionbench", "proactivebench", "interactscope", "omniinteract"])
def test_every_benchmark_protocol_runs_live_to_a_model_score(svc, bench):
    res = svc.open_session({"participant": "P4", "benchmark": bench, "n": "1", "seed": "3", "model": "baseline:always",
                            "who": "model"})
    assert res["ok"], res
    base = {"session_id": res["session"]["id"], "item_index": 0, "item_id": res["item"]["id"], "page_id": "pgB"}
    svc.clock({**base, "media_t": 0.0, "paused": False, "rate": 20.0, "event": "playing"})  # 40 s in 2 s
    # the page's 1 Hz heartbeat: a worker slowed by a loaded machine must not see the clock go stale
    t0, done = time.monotonic(), threading.Event()

    def heartbeat():
        while not done.wait(0.5):
            svc.clock({**base, "media_t": 20.0 * (time.monotonic() - t0), "paused": False, "rate": 20.0})

    beat = threading.Thread(target=heartbeat, daemon=True)
    beat.start()
    try:
        wait_for(lambda: not svc.hub.worker("pgB").alive(), timeout=300)
    finally:
        done.set()
        beat.join(60)
    assert svc.hub.worker("pgB").state == "done"
    fin = svc.finish_item({"session_id": base["session_id"], "item_index": 0})
    assert fin["ok"] and 'id="item-score-model"' in fin["result_html"], fin
    assert "Could not score" not in fin["result_html"], fin["result_html"]
    rows = svc.ctx.store.responses(session_id=base["session_id"])
    assert rows and {r.responder for r in rows} == {f"model:baseline:always@{base['session_id']}"}
