"""Batch `--timing arrival` and the live session agree on the same model and stream: the same ticks are asked
and skipped, replies count at tick + latency in both, and the scorer gives both the same score."""
import threading
import time

from annotation.loaders import demo_dir, load
from annotation.store import Store
from ibench_ui.live_model import LiveModelHub, LiveTarget, live_run_id
from runners.batch import BatchRunner, RunSpec
from runners.evaluate import score_predictions

ITEM = "color_scene#0"  # the background turns blue at 10 s of a 30-s stream; ticks every second
SPEAK = "DECISION: SPEAK\nRESPONSE: The background turned blue."
WAIT = "DECISION: WAIT\nRESPONSE:"


def _page_plays(hub, tg, start: float, stop: threading.Event) -> threading.Thread:
    """A page playing at rate 1 from `start`, reporting its media time every 0.25 s (as the player does)."""
    def loop():
        t0 = time.monotonic()
        while not stop.is_set():
            hub.report("page", tg, start + (time.monotonic() - t0), paused=False)
            stop.wait(0.25)
    th = threading.Thread(target=loop, daemon=True)
    th.start()
    return th


def test_batch_arrival_and_live_agree_on_a_slow_model(fake_server, tmp_path):
    # 2.5 s per call at 1-s ticks: ticks 1, 4, 7, 10, ... are asked; the model answers at the 7-s tick that
    # the background turned blue (it sees it coming), and the reply arrives at 9.5 s and a little
    fake_server.reset(latency=2.5, reply=WAIT)
    fake_server.after(7.0, SPEAK)
    fake_server.after(7.5, WAIT)
    model = f"openai:scripted@{fake_server.base_url}"
    store = Store(tmp_path / "db.sqlite")
    ds = load("interactionbench")
    item = ds.get(ITEM)

    batch = BatchRunner(store, RunSpec(benchmark="interactionbench", model=model,
                                       data_dir=str(demo_dir("interactionbench")), protocol="sliding",
                                       items=(ITEM,), timing="arrival")).run()
    batch_calls = store.run_calls(batch["run"]["id"], ITEM)
    assert [c["t"] for c in batch_calls if c["status"] == "ok"] == [float(t) for t in range(1, 31, 3)]

    # live: the page joins at 7.1 s (ticks 1-6 are already past) and plays on
    hub = LiveModelHub(store)
    tg = LiveTarget(session_id="s1", item_index=0, item=item, spec=model, protocol="sliding",
                    benchmark="interactionbench", span=30.0)
    stop = threading.Event()
    page = _page_plays(hub, tg, 7.1, stop)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not any(c["t"] == 13.0 for c in store.run_calls(live_run_id("s1"), ITEM)):
            time.sleep(0.05)
    finally:
        stop.set()
        page.join()
        hub.stop("page")
    live_calls = {c["t"]: c["status"] for c in store.run_calls(live_run_id("s1"), ITEM)}
    batch_by_t = {c["t"]: c["status"] for c in batch_calls}

    # from the tick the page joined at on: the same ticks asked and skipped (due while a call was in flight)
    assert [live_calls[float(t)] for t in range(7, 14)] == [batch_by_t[float(t)] for t in range(7, 14)] == \
        ["ok", "skipped", "skipped", "ok", "skipped", "skipped", "ok"]
    # the reply counts at tick + measured latency in both
    live = store.responses(session_id="s1")
    assert [r.meta["decision_t"] for r in live] == [7.0] and live[0].meta["timing"] == "arrival"
    # (the call's latency as measured: the response's meta keeps it rounded to 0.1 ms, and rounding 7 + 2.50654
    # to ms gives 9.507 where 7 + 2.5065 gives 9.506)
    (asked,) = [c for c in store.run_calls(live_run_id("s1"), ITEM) if c["t"] == 7.0]
    assert live[0].t == round(7.0 + asked["latency_s"], 3)
    assert abs(live[0].meta["latency_s"] - asked["latency_s"]) <= 5e-5
    (said,) = store.run_items(batch["run"]["id"])[ITEM]["emissions"]
    assert said["decision_t"] == 7.0 and said["t"] > 9.5
    # scored by the same scorer: the same numbers
    line = {"video_id": item.native["video_id"], "item_index": item.native["item_index"],
            "emissions": [{"t": r.t, "content": r.text} for r in live]}
    live_report = score_predictions("interactionbench", ds, [ITEM], {ITEM: line})
    assert live_report["table"] == batch["table"] and batch["table"]["timing_accuracy"] > 0
