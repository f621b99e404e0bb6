"""Per-item figures read the same everywhere: the session's score table, its summary and Compare's lane chips write
a scorer's per-item headline through one formatter (one decimal, counts whole, flags yes/no), and OmniInteract's
IA-QTF1 is on 0–100 there as on the Leaderboard and in Runs. Values worked out by hand."""
from __future__ import annotations

import pytest

from annotation.model import Run
from annotation.store import Store, model_responder
from ibench_ui.compare import lanes_html
from ibench_ui.compare_service import CompareService
from ibench_ui.context import AppContext
from ibench_ui.render import figure_cells
from runners.omniinteract.report import run_item_score
from scoring.live import headline, score_prediction

OI = "omniinteract"
ITEM = "1q1a__videos__0001"  # demo slots [1, t_a 8, 9), [9, t_a 24, 27), [27, 27, 87)
REPLIES = {"early": '{"flag": "neutral", "score": 1.0}', "core": '{"score": 1.0, "trigger_phrase": ""}',
           "interrupted_partial": '{"score": 1.0, "hallucination": 0}'}


def judge(stage: str, sample_id: str, slot_id, system_prompt: str, user_prompt: str) -> str:
    return REPLIES[stage]


def test_figures_are_written_at_one_decimal_counts_whole_flags_in_words():
    figures = {"family": "A", "total_score": 66.66666, "accuracy": None, "targets": 3, "content_judged": False,
               "window": [1.0, 2.0], "timing_accuracy": -0.00001, "silence_compliance": 100.0}
    assert figure_cells(figures) == [("family", "A"), ("total_score", "66.7"), ("targets", "3"),
                                     ("content_judged", "no"), ("timing_accuracy", "0.0"),
                                     ("silence_compliance", "100.0")]


def test_omniinteract_item_figures_are_on_0_to_100_in_the_session_and_in_compare(tmp_path):
    # one core chunk in slot 1 at 8.5 s, judged 1.0 (spec 5.3): T_core = decay(8.5, peak t_a 8, end 9) = 0.5, so
    # TP = 0.5 * 1.0 * W_core 0.8 = 0.4; slots 2 and 3 get no chunk: FN 2; no FP. Precision 0.4 / 0.4 = 1,
    # recall 0.4 / 2.4 = 1/6: F1 = 2 * 1/6 / (1 + 1/6) = 2/7, on 0-100 200/7 = 28.571..., shown as 28.6
    ctx = AppContext(store=Store(tmp_path / "db.sqlite"))
    item = ctx.item(OI, ITEM)
    transcript = {"chunks": [{"text": "It is the answer.", "timestamp": [8.5, 8.9]}]}
    report = score_prediction(item, transcript, oi_transport=judge)
    figures = headline(item, report, True)
    assert figures == {"IA-QTF1": pytest.approx(200 / 7, abs=1e-9), "TP": pytest.approx(0.4, abs=1e-12), "FP": 0,
                       "FN": 2, "content_judged": True}
    assert figure_cells(figures) == [("IA-QTF1", "28.6"), ("TP", "0.4"), ("FP", "0"), ("FN", "2"),
                                     ("content_judged", "yes")]
    assert run_item_score(item, report) == {**{k: figures[k] for k in ("IA-QTF1", "TP", "FP", "FN")}, "status": "ok"}

    ctx.store.create_run(Run(id="run-oi-2", benchmark=OI, model_spec="baseline:silent", protocol="duplex",
                             data_dir=str(ctx.data_dirs[OI]), config={}, status="done", n_total=1, report=report))
    ctx.store.add_run_item("run-oi-2", ITEM, {"prediction": transcript})
    view = CompareService(ctx).view(None, OI, ITEM, [model_responder("baseline:silent", "run-oi-2")])
    chips = lanes_html(OI, view.lanes)
    for chip in ('data-measure="IA-QTF1">IA-QTF1 28.6<', 'data-measure="TP">TP 0.4<', 'data-measure="FN">FN 2<'):
        assert chip in chips, chips
