"""Compare's labels come from the scorer's own report for the lane: a finished OmniInteract run whose judge failed
at slot 2 of 1q1a__videos__0001 (demo slots [1, t_a 8, 9), [9, t_a 24, 27), [27, 27, 87)) shows the chunk slot 1
recorded as core, and the chunks of the never-scored slots 2 and 3 as judge_failed, not as silence or wrong."""
from __future__ import annotations

from annotation.model import Run
from annotation.store import Store, model_responder
from ibench_ui.compare import lanes_html
from ibench_ui.compare_service import CompareService
from ibench_ui.context import AppContext
from runners.report import lane_counts
from scoring.live import score_prediction
from scoring.omniinteract import JudgeTransportError

OI = "omniinteract"
ITEM = "1q1a__videos__0001"
REPLIES = {"early": '{"flag": "neutral", "score": 1.0}', "core": '{"score": 1.0, "trigger_phrase": ""}',
           "interrupted_partial": '{"score": 1.0, "hallucination": 0}'}


def failing_at_slot_2(stage: str, sample_id: str, slot_id, system_prompt: str, user_prompt: str) -> str:
    if int(slot_id) >= 2:
        raise JudgeTransportError("API status=503, body=overloaded")
    return REPLIES[stage]


def test_a_runs_failed_judge_calls_show_as_their_own_label(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "db.sqlite"))
    item = ctx.item(OI, ITEM)
    transcript = {"chunks": [{"text": "It is the answer.", "timestamp": [8.5, 8.9]},
                             {"text": "The second answer.", "timestamp": [25.0, 26.0]},
                             {"text": "A third answer.", "timestamp": [30.0, 31.0]}]}
    report = score_prediction(item, transcript, oi_transport=failing_at_slot_2)
    assert report["samples"][0]["status"] == "failed"
    ctx.store.create_run(Run(id="run-oi-1", benchmark=OI, model_spec="baseline:silent", protocol="duplex",
                             data_dir=str(ctx.data_dirs[OI]), config={}, status="done", n_total=1, report=report))
    ctx.store.add_run_item("run-oi-1", ITEM, {"prediction": transcript})
    key = model_responder("baseline:silent", "run-oi-1")

    view = CompareService(ctx).view(None, OI, ITEM, [key])
    got = [(v.t, v.label, v.target, v.counted) for v in view.lanes[0].verdicts]
    assert got == [(8.5, "core", "1", True), (25.0, "judge_failed", None, False), (30.0, "judge_failed", None, False)]
    assert "slot 2" in view.lanes[0].verdicts[1].detail
    assert lane_counts(view.lanes, OI)[0][1] == {"core": 1, "judge_failed": 2}
    assert "judge_failed: 2" in lanes_html(OI, view.lanes)
