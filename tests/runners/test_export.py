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


@pytest.mark.parametrize("bench", ["interactionbench", "proactivebench", "interactscope", "omniinteract"])
def test_native_export_scores_like_the_live_scorer(tmp_path, bench):
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
    ds = load(bench, probe_media=False)
    for item_id in SITTINGS[bench]:
        live = score_responses(ds.get(item_id), store.responses(session_id=sid, item_id=item_id))["report"]
        if bench == "omniinteract":
            sample = next(s for s in got["samples"] if s["sample_id"] == item_id)
            assert sample["sample_summary"]["summary"] == json.loads(json.dumps(live["samples"][0]["sample_summary"]["summary"]))
            assert sample["slots"] == json.loads(json.dumps(live["samples"][0]["slots"]))
        else:
            assert json.loads(json.dumps(live["per_item"][item_id])) == got["per_item"][item_id]
