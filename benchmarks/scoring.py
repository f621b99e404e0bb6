"""Scoring speed on full-size synthetic sets, against the reference scorers' published timings.

InteractionBench: 1,060 items x 3 emissions, scoring + aggregation (reference: 0.38 s).
OmniInteract: 250 videos, ~1,430 slots, full run from files with an instant judge (reference: 14.6 s).
Prints the median of 5 timings, items per second and the speed-up; the numbers themselves are checked by
the parity tests, not here."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.loaders.interactionbench import load_rows  # noqa: E402
from benchmarks import synthetic  # noqa: E402
from benchmarks.oi_synthetic import _instant, build_synthetic  # noqa: E402
from benchmarks.timing import median_time  # noqa: E402

REF_IB_S = 0.38
REF_OI_S = 14.6


def main() -> None:
    from scoring import interactionbench as ib
    from scoring.omniinteract import OIConfig, evaluate

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        preds = synthetic.interactionbench(root / "ib")
        rows = load_rows(root / "ib")
        t, report = median_time(lambda: ib.score(rows, preds, ib.IBConfig()))
        print(f"interactionbench: {len(rows)} items x 3 emissions, score+aggregate median {t * 1000:.1f} ms, "
              f"{len(rows) / t:,.0f} items/s; reference {REF_IB_S * 1000:.0f} ms -> {REF_IB_S / t:.1f}x faster "
              f"(total {report['table']['total']})")
        n_slots = build_synthetic(root / "oi")
        t, result = median_time(lambda: evaluate(root / "oi", root / "oi" / "outputs" / "m", _instant, OIConfig()))
        n = result["summary"]["num_items"]
        print(f"omniinteract: {n} videos, {n_slots} slots, full run median {t * 1000:.1f} ms, {n / t:,.0f} videos/s; "
              f"reference {REF_OI_S:.1f} s -> {REF_OI_S / t:.0f}x faster (IA-QTF1 {result['summary']['IA_QTF1']:.4f})")


if __name__ == "__main__":
    main()
