"""The paper's confidence intervals (the reference's analysis/bootstrap_ci.py procedure): an item-level percentile
bootstrap of each run's mean total score, from ONE seeded Python `random` stream shared by all runs in list order,
so a run's interval depends on the runs before it. Pure; the analysis drop-in, `report` and the Leaderboard share
it."""
from __future__ import annotations

import random
from typing import Optional, Sequence

SEED = 20260923
DRAWS = 2000


def paper_intervals(runs: Sequence[Optional[Sequence[float]]], seed: int = SEED,
                    draws: int = DRAWS) -> list[Optional[tuple[float, float, float]]]:
    """(mean, lo, hi) per run in the given order, None for a run without records (it draws nothing); lo and hi are
    the sorted resampled means at int(0.025·B) and int(0.975·B) - 1, as the paper took them."""
    rng = random.Random(seed)
    out: list[Optional[tuple[float, float, float]]] = []
    for xs in runs:
        if xs is None:
            out.append(None)
            continue
        n = len(xs)
        means = []
        for _ in range(draws):
            s = 0.0
            for _ in range(n):
                s += xs[rng.randrange(n)]
            means.append(s / n)
        means.sort()
        out.append((sum(xs) / n, means[int(0.025 * draws)], means[int(0.975 * draws) - 1]))
    return out
