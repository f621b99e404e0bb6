"""`python app.py export responses`: JSONL rows and native prediction files that the score command accepts."""
import json
import time

import pytest

from annotation.loaders import demo_dir, load
from annotation.model import Response
from annotation.store import Store
from app import main
from scoring.live import score_responses

SITTINGS = {
    "interactionbench": {"ball_counter#0": [(8.3, ""), (9.1, "the ball")], "ball_counter#2": [(27.4, "four")]},
    "proactivebench": {"pb-or-ball": [(8.6, "")], "pb-dc-counter": [(12.2, ""), (16.1, ""), (20.3, "")]},
    "interactscope": {"is-t2-blue": [(10.4, "it turned blue")]},
    "omniinteract": {"1q1a__videos__0001": [(8.2, "The ball just appeared.")]},
}


def _sit(store: Store, bench: str) -> str:
    s = store.create_session("P01", bench, list(SITTINGS[bench]), data_dir=str(demo_dir(bench)))
    for item_id, presses in SITTINGS[bench].items():
        for t, text in presses:
            store.add_response(Response(id="", item_id=item_id, benchmark=bench, responder="human:P01",
                                        session_id=s.id, t=t, frame_t=t - 0.04, kind="text" if text else "press",
                                        text=text, wall_time=time.time()))
    return s.id


def test_jsonl_rows_carry_every_field(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    sid = _sit(store, "interactionbench")
    out = tmp_path / "rows.jsonl"
    assert main(["export", "responses", "--db", str(tmp_path / "db.sqlite"), "--session", sid, "--out", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) == 3
    for key in ("participant", "session", "benchmark", "item", "t", "frame_t", "kind", "text", "wall_time"):
        assert key in rows[0]
    assert rows[0]["participant"] == "P01" and rows[0]["t"] == 8.3 and rows[0]["kind"] == "press"


# What the sittings above must score, worked by hand from assets/demo (README.md, annotations) and ../shared/specs.
HAND = {
    "interactionbench": {  # (accuracy, timing_accuracy, silence_compliance, timing_score, total_score)
        # B_trigger, one event r* = 8 ("The ball appeared."); tau = 1 s, Delta = 5 s. The press is exported as
        # "(pressed)" at 8.3: a = 9.3 >= 8 -> matches, d = 0.3 -> s = 1 - 0.3/5 = 0.94 -> TA 94.0. "the ball" at 9.1
        # finds the event taken -> redundant, |V| = 1 -> SC = 100*(1 - 1/1) = 0. timing = hmean(94, 0) = 0.
        # Accuracy judges the matched emission only: "pressed" vs {ball, appeared} -> F1 0 -> 0.0. total 0.0.
        "ball_counter#0": (0.0, 94.0, 0.0, 0.0, 0.0),
        # A_retro_qa, r* = question time 27, reference "4". "four" at 27.4: d = 0.4 -> s = 0.92 -> TA 92.0; no violation
        # -> SC 100.0; timing = 2*92*100/(92+100) = 95.83 -> 95.8. "four" holds no digit and shares no token with "4"
        # -> Acc 0.0; total = mean(0.0, 95.8) = 47.9.
        "ball_counter#2": (0.0, 92.0, 100.0, 95.8, 47.9),
    },
    "proactivebench": {  # (first scored second, outcome or predicted count, correct)
        "pb-or-ball": (9, "in_window", True),  # 8.6 s -> second floor(8.6)+1 = 9; W = [onset 9, 9+2] -> in window
        "pb-dc-counter": (13, 3, False),  # 12.2, 16.1, 20.3 -> seconds 13, 17, 21 (>= eval_start 10): 3 != ref 4
    },
    # T2 window [10, 13] (inclusive): 10.4 is the earliest response in it and is judged; the export carries no verdict
    # and a missing verdict is false (spec B.5/B.7) -> not correct.
    "interactscope": {"is-t2-blue": (10.4, "in_window", False)},
    # 1q1a/0001 slot 1: proactive, start 1, answer time t_a 8, end 9. The text at 8.2 is a core chunk (8 <= 8.2 < 9);
    # its timeliness decays linearly from t_a to the end: (9 - 8.2)/(9 - 8) = 0.8. The dry-run judge gives quality 0
    # < 0.5 -> a low-quality FP and TP 0; slots 2 and 3 get no chunk -> FN. Totals: TP 0, FP 1, FN 3, IA_QTF1 0.
    "omniinteract": {"1q1a__videos__0001": {"num_slots": 3, "Global_TP": 0.0, "Global_FP": 1, "Global_FN": 3,
                                            "IA_QTF1": 0.0, "slot1": (1, 0.8, 1, 1)}},
}
TABLES = {"proactivebench": {"ES": 0.0, "OR": 100.0, "WR": 0.0, "AA": 0.0, "SS": 0.0, "DC": 0.0, "AVG": 16.7},  # 100/6
          "interactscope": {"T1": 0.0, "T2": 0.0, "T3": 0.0, "T4": 0.0, "T5": 0.0, "T6": 0.0, "T7": 0.0, "Avg": 0.0,
                            "T8": 0.0, "Complete T8-C": "0 / 1"}}


def _hand_view(bench: str, got: dict, item_id: str):
    """The figures HAND pins, read from a score command's output."""
    if bench == "interactionbench":
        r = got["per_item"][item_id]
        return tuple(r[k] for k in ("accuracy", "timing_accuracy", "silence_compliance", "timing_score", "total_score"))
    if bench == "proactivebench":
        r = got["per_item"][item_id]
        return r["scored_responses"][0], r.get("outcome", r.get("predicted_count")), r["correct"]
    if bench == "interactscope":
        t = got["per_item"][item_id]["targets"][0]
        return t["candidate_t"], t["timing"], t["correct"]
    sample = next(s for s in got["samples"] if s["sample_id"] == item_id)
    summary, slot = sample["sample_summary"]["summary"], sample["slots"][0]
    out = {k: summary[k] for k in ("num_slots", "Global_TP", "Global_FP", "Global_FN", "IA_QTF1")}
    out["slot1"] = (slot["num_core"], round(slot["stage_core"]["timeliness_score"], 9), slot["FP_delta"],
                    slot["FN_delta"])
    return out


@pytest.mark.parametrize("bench", ["interactionbench", "proactivebench", "interactscope", "omniinteract"])
def test_native_export_scores_like_the_live_scorer(tmp_path, bench):
    """The exported native file, scored by `python app.py score`, gives the hand-worked figures, and so does
    the live scorer on the stored responses (the round trip loses nothing)."""
    db = tmp_path / "db.sqlite"
    store = Store(db)
    sid = _sit(store, bench)
    out = tmp_path / "native"
    assert main(["export", "responses", "--db", str(db), "--session", sid, "--format", "native", "--out", str(out)]) == 0
    report = tmp_path / "score.json"
    if bench == "omniinteract":
        args = ["score", bench, "--data", str(demo_dir(bench)), "--dry-run", "--outputs", str(out / "human-P01"),
                "--out", str(report)]
    else:
        args = ["score", bench, "--data", str(demo_dir(bench)),
                "--preds", str(out / ("responses.jsonl" if bench == "interactscope" else "preds.jsonl")),
                "--out", str(report)]
    assert main(args) == 0
    got = json.loads(report.read_text())
    assert {i: _hand_view(bench, got, i) for i in SITTINGS[bench]} == HAND[bench]
    if bench in TABLES:
        assert got["table"] == TABLES[bench]
    ds = load(bench, probe_media=False)
    for item_id in SITTINGS[bench]:
        live = score_responses(ds.get(item_id), store.responses(session_id=sid, item_id=item_id))["report"]
        live = json.loads(json.dumps(live))
        if bench == "omniinteract":
            assert _hand_view(bench, live, item_id) == HAND[bench][item_id]
            sample = next(s for s in got["samples"] if s["sample_id"] == item_id)
            assert sample["sample_summary"]["summary"] == live["samples"][0]["sample_summary"]["summary"]
            assert sample["slots"] == live["samples"][0]["slots"]
        else:
            assert _hand_view(bench, live, item_id) == HAND[bench][item_id]
            assert live["per_item"][item_id] == got["per_item"][item_id]
