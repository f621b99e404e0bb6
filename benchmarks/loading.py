"""Time to load and validate 1,060 synthetic InteractionBench items and 250 OmniInteract annotation files.

Prints the median of 5 runs for each (target: under 1 s each on the 2-core CI machine)."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.loaders import load  # noqa: E402
from benchmarks import synthetic  # noqa: E402
from benchmarks.timing import median_time  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ib_root, oi_root = Path(tmp) / "ib", Path(tmp) / "oi"
        synthetic.interactionbench(ib_root)
        synthetic.omniinteract(oi_root)
        # media probing is skipped: the synthetic sets have no videos; validation of every field still runs
        t_ib, ds = median_time(lambda: load("interactionbench", ib_root, probe_media=False))
        print(f"interactionbench: {len(ds)} items, {len(ds.errors)} errors, load+validate median {t_ib * 1000:.1f} ms"
              f" ({len(ds) / t_ib:,.0f} items/s; target < 1000 ms, ratio {1.0 / t_ib:.1f}x under target)")
        t_oi, ds = median_time(lambda: load("omniinteract", oi_root, probe_media=False))
        print(f"omniinteract: {len(ds)} annotation files, {len(ds.errors)} errors, load+validate median {t_oi * 1000:.1f} ms"
              f" (target < 1000 ms, ratio {1.0 / t_oi:.1f}x under target)")


if __name__ == "__main__":
    main()
