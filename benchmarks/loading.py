"""Time to load and validate 1,060 synthetic InteractionBench items and 250 OmniInteract annotation files.

Prints the median of 5 runs for each (target: under 1 s each on the 2-core CI machine)."""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.loaders import load  # noqa: E402
from benchmarks import synthetic  # noqa: E402


def timed(fn, repeat: int = 5) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ib_root, oi_root = Path(tmp) / "ib", Path(tmp) / "oi"
        synthetic.interactionbench(ib_root)
        synthetic.omniinteract(oi_root)
        # media probing is skipped: the synthetic sets have no videos; validation of every field still runs
        t_ib, ds = timed(lambda: load("interactionbench", ib_root, probe_media=False))
        print(f"interactionbench: {len(ds)} items, {len(ds.errors)} errors, load+validate median {t_ib * 1000:.1f} ms"
              f" ({len(ds) / t_ib:,.0f} items/s; target < 1000 ms, ratio {1.0 / t_ib:.1f}x under target)")
        t_oi, ds = timed(lambda: load("omniinteract", oi_root, probe_media=False))
        print(f"omniinteract: {len(ds)} annotation files, {len(ds.errors)} errors, load+validate median {t_oi * 1000:.1f} ms"
              f" (target < 1000 ms, ratio {1.0 / t_oi:.1f}x under target)")


if __name__ == "__main__":
    main()
