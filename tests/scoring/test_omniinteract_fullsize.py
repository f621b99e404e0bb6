"""The scorer handles a full-size synthetic benchmark end to end (speed is measured in benchmarks/scoring.py)."""
from __future__ import annotations

from pathlib import Path

from benchmarks.oi_synthetic import _instant, build_synthetic
from scoring.omniinteract import OIConfig, evaluate


def test_full_size_synthetic_set_scores_every_sample(tmp_path: Path) -> None:
    n_slots = build_synthetic(tmp_path)
    summary = evaluate(tmp_path, tmp_path / "outputs" / "m", _instant, OIConfig())["summary"]
    assert summary["success"] == 250 and summary["failed_or_skipped"] == 0
    assert summary["num_slots"] == n_slots
    assert summary["paper_metrics"]["exp_nested"]["num_pairs"] == 120
    assert 0.0 < summary["IA_QTF1"] <= 1.0
