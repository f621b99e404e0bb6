"""InteractionBench aggregation (reference `summarize` / `aggregate`): item-weighted means rounded to 3,
grouped by capability, group, time type, interaction type, family, range length and core/reactive;
plus the paper's headline row and a terminal table."""
from __future__ import annotations

import math
import operator
from typing import Sequence

from scoring.interactionbench.refmath import exact_mean_big, mean_round3

MEAN_FIELDS = (
    "total_score", "accuracy", "timing_accuracy", "silence_compliance", "covered_accuracy", "timing_score",
    "content_score", "response_precision", "delay_mean_s", "miss_rate", "memory_span_s", "v_premature",
    "v_redundant", "v_spurious", "final_count_abs_err", "segment_coverage", "poll_latency_mean",
    "realtime_factor", "emissions_per_min", "chatter_rate",
)
RATE_FIELDS = (("answered", "answered_rate"), ("false_alarm", "false_alarm_rate"))
GROUPINGS = (
    ("by_capability", "capability"), ("by_capability_group", "capability_group"), ("by_time_type", "time_type"),
    ("by_interaction_type", "interaction_type"), ("by_family", "family"), ("by_range_length", "range_length"),
    ("by_core_realtime", "core_realtime"),
)
TABLE_FIELDS = (("total", "total_score"), ("accuracy", "accuracy"), ("timing_accuracy", "timing_accuracy"),
                ("silence_compliance", "silence_compliance"))


class _Columns:
    """Per-field value columns, summed once per cell (records sharing every grouping key); a group's
    sum is the sum of its cells. Float means use an error-bounded naive sum and fall back to the exact
    mean near a rounding boundary (`mean_round3`), so results equal round(statistics.mean(...), 3)."""

    def __init__(self, records: Sequence[dict]):
        self.n = len(records)
        raw: dict[tuple, list[int]] = {}
        try:
            keys = map(operator.itemgetter(*(f for _, f in GROUPINGS)), records)
            for i, k in enumerate(keys):
                raw.setdefault(k, []).append(i)
        except (KeyError, TypeError):  # a record without some grouping field (None, as r.get gives) or with a
            raw = {}                     # list-valued one (interaction_type ["QA"]): keyed by str() at once
            for i, r in enumerate(records):
                raw.setdefault(tuple(str(r.get(f)) for _, f in GROUPINGS), []).append(i)
        cells: dict[tuple, list[int]] = {}
        for k, idx in raw.items():  # distinct raw keys may share their str() keys
            cells.setdefault(tuple(map(str, k)), []).extend(idx)
        self.cell_keys = list(cells)
        self.cell_idx = [sorted(cells[k]) for k in self.cell_keys]
        # per field: (kind, nonneg, per-cell values)
        self.fields: dict[str, tuple[str, bool, list[list]]] = {}
        for f in MEAN_FIELDS:
            col = [r.get(f) for r in records]
            present = [v for v in col if v is not None]
            if not present:
                continue
            types = set(map(type, present))
            kind = "int" if types == {int} else ("float" if types == {float} else "mixed")
            nonneg = kind == "float" and min(present) >= 0
            has_none = len(present) < len(col)
            per_cell = [[v for i in idx if (v := col[i]) is not None] if has_none else [col[i] for i in idx]
                        for idx in self.cell_idx]
            self.fields[f] = (kind, nonneg, per_cell)
        self.rates: dict[str, list[tuple[int, int]]] = {}
        for key, name in RATE_FIELDS:
            if any(key in r for r in records):
                per_cell = []
                for idx in self.cell_idx:
                    vals = [records[i][key] for i in idx if key in records[i]]
                    per_cell.append((sum(1 for v in vals if v), len(vals)))
                self.rates[name] = per_cell

    def summary(self, cells: Sequence[int], n_items: int) -> dict:
        """The reference `summarize` over the records of the given cells."""
        out: dict = {"n_items": n_items}
        for f, (kind, nonneg, per_cell) in self.fields.items():
            parts = [per_cell[c] for c in cells]
            count = sum(map(len, parts))
            if not count:
                continue
            if kind == "int":
                total = sum(map(sum, parts))
                q, r = divmod(total, count)
                out[f] = round(q if r == 0 else total / count, 3)
                continue
            if kind == "float" and nonneg and count > 1:
                m = sum(map(sum, parts)) / count  # any summation order: error <= (count-1) u sum
                if math.isfinite(m):
                    tol = (2 * count + 8) * math.ulp(m)
                    if round(m - tol, 3) == round(m + tol, 3):
                        out[f] = round(m, 3)
                        continue
            vals = [v for p in parts for v in p]
            out[f] = mean_round3(vals, nonneg) if kind == "float" else round(exact_mean_big(vals), 3)
        for name, per_cell in self.rates.items():
            yes = sum(per_cell[c][0] for c in cells)
            n = sum(per_cell[c][1] for c in cells)
            if n:
                out[name] = round(yes / n, 3)
        return out


def summarize(records: Sequence[dict]) -> dict:
    """n_items plus the mean of every score/diagnostic field present (rounded to 3) and the rates."""
    cols = _Columns(records)
    return cols.summary(range(len(cols.cell_idx)), len(records))


def aggregate(records: Sequence[dict]) -> dict:
    """{overall, by_capability, ..., by_core_realtime}; group keys are str(value), sorted."""
    cols = _Columns(records)
    out = {"overall": cols.summary(range(len(cols.cell_idx)), len(records))}
    for g, (block, _) in enumerate(GROUPINGS):
        groups: dict[str, list[int]] = {}
        for c, key in enumerate(cols.cell_keys):
            groups.setdefault(key[g], []).append(c)
        out[block] = {k: cols.summary(groups[k], sum(len(cols.cell_idx[c]) for c in groups[k]))
                      for k in sorted(groups)}
    return out


def headline(overall: dict) -> dict:
    """The paper's reported row: n_items and the overall means at 1 decimal (None when undefined)."""
    row = {"n_items": overall.get("n_items", 0)}
    for name, field in TABLE_FIELDS:
        v = overall.get(field)
        row[name] = None if v is None else round(v, 1)
    return row


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.1f}"


def format_table(report: dict) -> str:
    """A paper-style terminal table: overall, then by capability group and by time type."""
    agg = report["aggregate"]
    head = f"{'':<22}{'n':>6}{'Total':>8}{'Acc':>8}{'TA':>8}{'SC':>8}"
    lines = [head, "-" * len(head)]

    def row(label: str, s: dict) -> str:
        return (f"{label:<22}{s.get('n_items', 0):>6}" + "".join(f"{_fmt(s.get(f)):>8}" for _, f in TABLE_FIELDS))

    lines.append(row("Overall", agg.get("overall", {})))
    for title, block in (("capability group", "by_capability_group"), ("time type", "by_time_type")):
        groups = agg.get(block) or {}
        if groups:
            lines.append(f"by {title}:")
            lines.extend(row("  " + k, s) for k, s in groups.items())
    cfg = agg.get("config") or {}
    if cfg:
        lines.append(f"delta {cfg.get('delta_s')} s, pre_tol {cfg.get('pre_tol_s')} s, gate "
                     f"{'on' if cfg.get('use_gate') else 'off'}, judge {cfg.get('judge') or 'lexical'}"
                     + (f", mcq key {cfg['mcq_key']}" if cfg.get("mcq_key") else ""))
    return "\n".join(lines)
