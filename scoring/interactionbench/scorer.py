"""InteractionBench scorer with bit-exact parity to the reference (Espere-1119-Song/InteractionBench
`metrics.py` / `evaluate.py`): per-item records by family, aggregation, the paper's headline row.

Rows are native item rows (video fields added, as `annotation.interactionbench.loader.load_rows`
returns them); predictions are preds.jsonl rows. Defaults reproduce the reference, quirks included."""
from __future__ import annotations

import json
import math
from bisect import bisect_right
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple, Optional, Sequence

from annotation.interactionbench import rules as ib_rules
from scoring.interactionbench.aggregate import aggregate, format_table, headline, summarize  # noqa: F401 (re-exported)
from scoring.interactionbench.content import ContentCounter, ItemContent, as_judge_fn, item_content
from scoring.interactionbench.timing import Emission, Unscorable, decision_timing, merge_events, seconds
from scoring.interactionbench.lexical import extract_number
from scoring.interactionbench.refmath import exact_mean, hmean, total_of


REALTIME_BUDGET_S = 0.2
_TIME = itemgetter(0)  # an emission's time
PER_ITEM_FIELDS = ("family", "accuracy", "timing_accuracy", "silence_compliance", "timing_score", "total_score")


class _IBOptions(NamedTuple):
    delta: float = 5.0
    pre_tol: float = 1.0
    use_gate: bool = False
    gate_thresh: float = 0.3
    skip_missing: bool = False
    items: Optional[tuple[str, ...]] = None
    fixed: bool = False


class IBConfig(_IBOptions):
    """Scoring options. Defaults are the paper protocol (delta 5 s, tolerance 1 s, gate off).

    pre_tol=float('inf') is the human-reference greedy mode; items is a split (item ids to keep);
    skip_missing drops items without a prediction line; fixed opts into corrections of reference bugs.
    Immutable and typed as a NamedTuple (`cfg._replace(...)` for a changed copy) rather than a frozen
    dataclass: `score` starts faster without importing dataclasses."""
    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> "IBConfig":
        self = super().__new__(cls, *args, **kwargs)
        for name in ("delta", "pre_tol", "gate_thresh"):  # any number the reference computes with (0, inf, -0.5)
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and not isinstance(v, bool)) or math.isnan(v):
                raise ValueError(f"IBConfig.{name} must be a number of seconds (inf allowed), got {v!r}")
        if self.items is not None and not isinstance(self.items, tuple):
            self = self._replace(items=tuple(self.items))
        return self

    @classmethod
    def from_dict(cls, d: dict) -> "IBConfig":
        """From golden-style options: delta, pre_tol ("inf" allowed), use_gate, gate_thresh, skip_missing, items, fixed."""
        kw: dict[str, Any] = {}
        for k in ("delta", "pre_tol", "gate_thresh"):
            if k in d:
                kw[k] = float(d[k])
        for k in ("use_gate", "skip_missing", "fixed"):
            if k in d:
                kw[k] = bool(d[k])
        if d.get("items") is not None:
            kw["items"] = tuple(str(i) for i in d["items"])
        return cls(**kw)


# ---------------------------------------------------------------- predictions

def _line_key(line: dict, fixed: bool = False) -> str:
    """The item id a prediction line names, built as the reference builds it: `<video_id>#<item_index as
    written>` (missing -> 0), so 1.0 or null match no item. fixed: an integral number (1.0) names item 1."""
    idx = line.get("item_index", 0)
    if fixed and isinstance(idx, float) and idx.is_integer():
        idx = int(idx)
    return f"{line['video_id']}#{idx}"


def index_predictions(preds: Sequence[dict], known: set[str], fixed: bool = False) -> dict[str, dict]:
    """item id -> prediction line; a duplicated key keeps the last line, unknown items are ignored."""
    out: dict[str, dict] = {}
    unknown = []
    for n, line in enumerate(preds, 1):
        if not isinstance(line, dict) or "video_id" not in line:
            raise ValueError(f"predictions line {n}: expected an object with video_id, item_index, emissions")
        key = _line_key(line, fixed)
        if key in known:
            out[key] = line
        else:
            unknown.append(key)
    if unknown:
        import logging  # only on this path: `score` does not pay for the logging import
        logging.getLogger(__name__).warning("predictions: %d line(s) for unknown items ignored (e.g. %s)", len(unknown), unknown[0])
    return out


def filtered_emissions(line: Optional[dict], iid: str) -> list[Emission]:
    """Non-empty emissions as (t, content), stably sorted by t (the reference drops blank contents)."""
    if not line:
        return []
    out = []
    for k, e in enumerate(line.get("emissions") or []):
        c = e.get("content")
        if c is None:
            continue
        c = c if isinstance(c, str) else str(c)
        if not c.strip():
            continue
        try:
            t = seconds(e["t"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"predictions for {iid}: emissions[{k}] needs a numeric stream time 't' "
                             f"(seconds), got {e.get('t')!r}") from None
        out.append((t, c))
    out.sort(key=_TIME)
    return out


def latency_fields(line: Optional[dict], duration: float) -> dict:
    """Reference latency diagnostics (never scored): poll latency, realtime factor, emission rates."""
    raw = (line.get("emissions") or []) if line else []
    out: dict = {}
    lats = (line.get("poll_latencies") if line else None) or [
        e["latency_s"] for e in raw if e.get("latency_s") is not None]
    if lats:
        m = exact_mean(lats)
        out["poll_latency_mean"] = round(m, 3)
        out["poll_latency_max"] = round(max(lats), 3)
        out["realtime_factor"] = round(m / REALTIME_BUDGET_S, 2)
    out["emissions_per_min"] = round(60 * len(raw) / duration, 2) if duration > 0 else None
    n_polls = line.get("n_polls") if line else None
    if n_polls:
        out["chatter_rate"] = round(len(raw) / n_polls, 3)
    return out


# ---------------------------------------------------------------- families

def score_negative(ems: list[Emission]) -> dict:
    """Silence-required item: SC 100 when nothing was said, else 0; every emission is spurious."""
    n = len(ems)
    sc = round(100 * max(0.0, 1 - n / 1), 1)
    return {"family": "negative", "false_alarm": n > 0, "n_violations": n, "v_spurious": n,
            "v_premature": 0, "v_redundant": 0, "silence_compliance": sc, "timing_score": sc, "total_score": sc}


def score_retro_qa(row: dict, answers: list[dict], ems: list[Emission], cfg: IBConfig, content: ItemContent,
                   timing: Optional[list] = None) -> dict:
    """A-type: one event at question_time_s (the answer's own time is ignored); accuracy of the match.
    timing: a list that receives the item's Timing (the emissions' fates)."""
    q = ib_rules.question_time(row)
    tm = decision_timing([q], ems, cfg.pre_tol)
    _keep(timing, tm)
    rec = {"family": "A_retro_qa", **tm.fields(cfg.delta)}
    k = tm.match[0]
    if k is None:
        acc: Optional[float] = 0.0
    else:
        s = content.answer(answers[0].get("content") or "", ems[k][1])
        acc = None if s is None else round(100 * s, 1)
    ts = hmean(rec["timing_accuracy"], rec["silence_compliance"])
    rec["answered"] = k is not None
    rec["accuracy"] = acc
    rec["timing_score"] = ts
    ev = answers[0].get("evidence_time_s")
    if ev is not None:
        rec["memory_span_s"] = round(q - float(ev), 2)
    rec["total_score"] = total_of(acc, ts)
    return rec


def _last_number(texts) -> Optional[float]:
    for text in texts:
        n = extract_number(text)
        if n is not None:
            return n
    return None


def score_trigger(timed: list[dict], ems: list[Emission], cfg: IBConfig, content: ItemContent, counting: bool,
                  timing: Optional[list] = None) -> dict:
    """B_trigger / C_counting: merged events, decision timing (optional gate), content of the matches.
    timing: a list that receives the item's Timing (the emissions' fates)."""
    events = merge_events(timed)
    times = [e.time for e in events]
    gate = None
    if cfg.use_gate:
        if counting:
            def gate(k: int, text: str) -> bool:
                g = extract_number(events[k].ref)
                p = extract_number(text)
                return g is None or (p is not None and abs(p - g) < 1e-9)
        else:
            def gate(k: int, text: str) -> bool:
                s = content.plain(events[k].ref, text)
                return s is None or s >= cfg.gate_thresh
    tm = decision_timing(times, ems, cfg.pre_tol, gate)
    _keep(timing, tm)
    rec = {"family": "C_counting" if counting else "B_trigger", **tm.fields(cfg.delta)}
    scores = [content.plain(events[k].ref, ems[m][1]) for k, m in enumerate(tm.match) if m is not None]
    got = [s for s in scores if s is not None]
    cs = round(100 * exact_mean(got), 1) if got else None  # nothing matched: nothing to judge (reference)
    ts = hmean(rec["timing_accuracy"], rec["silence_compliance"])
    rec["content_score"] = cs
    rec["timing_score"] = ts
    if counting:
        gt_final = _last_number(a.get("content") for a in reversed(timed))
        pred_final = _last_number(text for _, text in reversed(ems))
        rec["gt_final_count"] = gt_final
        rec["pred_final_count"] = pred_final
        if gt_final is None:
            acc = None
        else:
            rec["final_count_abs_err"] = round(abs((pred_final or 0) - gt_final), 2)
            acc = 100.0 if pred_final is not None and abs(pred_final - gt_final) < 1e-9 else 0.0
    else:
        acc = cs if scores else 0.0  # no matched event: accuracy 0 (reference); unavailable verdicts: None
    rec["accuracy"] = acc
    rec["total_score"] = total_of(acc, ts)
    return rec


def score_segments(timed: list[dict], ems: list[Emission], duration: float, cfg: IBConfig,
                   content: ItemContent, timing: Optional[list] = None) -> dict:
    """LCG/BRC: segments [e_i, e_i+1) scored on the joined emissions inside; total = accuracy.
    timing: a list that receives the item's Timing (the emissions' fates; a diagnostic here)."""
    events = merge_events(timed)
    times = [e.time for e in events]
    end = max(duration, times[-1]) + 1e-6
    buckets: list[list[str]] = [[] for _ in events]
    for t, text in ems:
        if times[0] <= t < end:
            buckets[bisect_right(times, t) - 1].append(text)
    all_scores, covered = [], []
    for ev, b in zip(events, buckets):
        if b:
            s = content.answer(ev.ref, " ".join(b))
            if s is not None:
                all_scores.append(s)
                covered.append(s)
        else:
            all_scores.append(0.0)
    tm = decision_timing(times, ems, cfg.pre_tol)
    _keep(timing, tm)
    rec = {"family": "C_segments", **tm.fields(cfg.delta)}
    acc = round(100 * exact_mean(all_scores), 1) if all_scores else None
    rec["accuracy"] = acc
    rec["covered_accuracy"] = round(100 * exact_mean(covered), 1) if covered else None
    rec["segment_coverage"] = round(sum(1 for b in buckets if b) / len(events), 3)
    rec["timing_score"] = hmean(rec["timing_accuracy"], rec["silence_compliance"])
    rec["total_score"] = acc
    return rec


def _keep(sink: Optional[list], tm: Any) -> None:
    """Hand a family's Timing to the caller that asked for it."""
    if sink is not None:
        sink.append(tm)


def emission_verdicts(rec: dict, timing: list, delta: float) -> list[dict]:
    """One scored item's emissions as its record counts them (Timing.verdicts); a silence-required item's are
    every one spurious, with no event."""
    if rec["family"] == "negative":
        return [{"label": "spurious", "event": None, "event_time": None, "delay": None, "credit": 0.0}
                for _ in range(rec["v_spurious"])]
    return timing[0].verdicts(delta)


def score_row(row: dict, iid: str, line: Optional[dict], duration: float, domain: Any, cfg: IBConfig,
              content: ItemContent, family: str, timed: list[dict], timing: Optional[list] = None) -> dict:
    """The full reference record of one valid item (`family` and `timed` as ib_rules.family_and_timed gives);
    timing: a list that receives the item's Timing (none for a silence-required item)."""
    ems = filtered_emissions(line, iid)
    if family == "negative":
        rec = score_negative(ems)
    elif family == "A_retro_qa":
        rec = score_retro_qa(row, timed, ems, cfg, content, timing)
    elif family == "C_segments":
        rec = score_segments(timed, ems, duration, cfg, content, timing)
    else:
        rec = score_trigger(timed, ems, cfg, content, family == "C_counting", timing)
    rec.update(latency_fields(line, duration))
    cap = ib_rules.capability(row)
    rec.update({
        "item_id": iid, "video_id": row["video_id"], "capability": cap,
        "capability_group": ib_rules.CAPABILITY_GROUPS.get(cap, cap),
        "core_realtime": cap in ib_rules.CORE_REALTIME, "time_type": row.get("time_type"),
        "interaction_type": row.get("interaction_type"), "sub_tag": row.get("sub_tag"),
        "range_length": row.get("range_length"), "domain": domain, "duration_s": duration,
    })
    return rec


# ---------------------------------------------------------------- scoring entry points

def unique_valid_rows(rows: Sequence[dict], ids: Sequence[str]) -> list[tuple[dict, str, str, list[dict]]]:
    """(row, item id, family, timed answers) of the scoreable rows (ids: each row's item id) in order; a repeated
    item id keeps the later row in the earlier one's place (the reference keys its items by id, e.g. two files
    with one video_id)."""
    by_id: dict[str, tuple[dict, str, str, list[dict]]] = {}
    for r, iid in zip(rows, ids):
        fam, timed = ib_rules.family_and_timed(r)
        if fam is not None:
            by_id[iid] = (r, iid, fam, timed)
    return list(by_id.values())


def select_rows(rows: Sequence[dict], ids: Sequence[str], cfg: IBConfig,
                lines: Optional[dict] = None) -> list[tuple[dict, str, str, list[dict]]]:
    """`unique_valid_rows` restricted to the split (cfg.items) and, with skip_missing, to the items that have a
    prediction line."""
    keep = set(cfg.items) if cfg.items is not None else None
    return [sel for sel in unique_valid_rows(rows, ids)
            if (keep is None or sel[1] in keep) and not (cfg.skip_missing and lines is not None and sel[1] not in lines)]


def video_fields(row: dict) -> tuple[float, Any]:
    """(duration_s, domain) of an item row; the duration as the reference reads it: float(x or 0.0)."""
    d = row.get("duration_s")
    try:
        return float(d or 0.0), row.get("domain")
    except (TypeError, ValueError):
        raise ValueError(f"item {ib_rules.item_id(row)}: duration_s {d!r} is not a number of seconds") from None


def score(rows: list[dict], preds: list[dict], config: IBConfig = IBConfig(), judge: Any = None,
          mcq_key: Optional[list[dict]] = None, *, mcq_key_source: Optional[str] = None,
          items_source: Optional[str] = None, verdicts: bool = False) -> dict:
    """Score predictions against native item rows; returns {per_item, records, aggregate, table}, and with
    `verdicts` also {"emission_verdicts": item id -> each filtered emission's fate} (what Compare draws).

    judge: None (lexical) or a callable (question, gt, pred) -> [0, 1] (optional .name, .prompt_version,
    .n_missing, .vdc); JudgeUnavailable excludes that content and is counted in config.judge_unavailable.
    mcq_key: answer-key rows; mcq_key_source / items_source: what the config block names as their source."""
    cfg = config
    ids = list(map(ib_rules.item_id, rows))
    lines = index_predictions(preds, set(ids), cfg.fixed)
    selected = select_rows(rows, ids, cfg, lines)
    if mcq_key:
        from scoring.interactionbench.mcq import load_key
        keys = load_key(mcq_key)
    else:
        keys = {}
    judge_fn = as_judge_fn(judge)
    missing_before = int(getattr(judge, "n_missing", 0) or 0) if judge is not None else 0
    counter = ContentCounter()
    records = []
    fates: dict[str, list[dict]] = {}
    for r, iid, fam, timed in selected:
        key = keys.get(iid)
        content = item_content(r.get("question") or "", judge_fn, judge, key, cfg.fixed, counter)
        duration, domain = video_fields(r)  # each row's own: one video_id may span two files
        line = lines.get(iid)
        timing: Optional[list] = [] if verdicts else None
        try:
            rec = score_row(r, iid, line, duration, domain, cfg, content, fam, timed, timing)
        except ZeroDivisionError:  # the reference divides by delta too, and stops
            raise ValueError(f"item {iid}: delta {cfg.delta:g} divides a matched response's delay by zero (the "
                             "reference scorer stops here too); pass a delta other than 0") from None
        except Unscorable as exc:
            raise ValueError(f"item {iid}: {exc}") from None
        if timing is not None:
            fates[iid] = emission_verdicts(rec, timing, cfg.delta)
        if key is not None:
            rec["mcq"] = True
        if line:
            for k in ("model", "run"):
                if k in line:
                    rec[k] = line[k]
        records.append(rec)
    agg = aggregate(records)
    conf = {
        "delta_s": float(cfg.delta), "gate_thresh": float(cfg.gate_thresh), "use_gate": cfg.use_gate,
        "pre_tol_s": float(cfg.pre_tol),
        "mcq_key": mcq_key_source if mcq_key_source is not None else ("<rows>" if mcq_key else None),
        "items": items_source if items_source is not None else (list(cfg.items) if cfg.items is not None else None),
        "judge": None if judge is None else getattr(judge, "name", type(judge).__name__),
        "judge_prompt": None if judge is None else getattr(judge, "prompt_version", None),
        "judge_cache_misses": (int(getattr(judge, "n_missing", 0) or 0) - missing_before) if judge is not None else 0,
    }
    if counter.unavailable:
        conf["judge_unavailable"] = counter.unavailable
    if cfg.fixed:
        conf["fixed"] = True
    agg["config"] = conf
    per_item = {rec["item_id"]: {f: rec.get(f) for f in PER_ITEM_FIELDS} for rec in records}
    out = {"per_item": per_item, "records": records, "aggregate": agg, "table": headline(agg["overall"])}
    if verdicts:
        out["emission_verdicts"] = fates
    return out


def read_predictions(path: str | Path) -> list[dict]:
    """The rows of a preds.jsonl file (blank lines skipped); a malformed line raises naming file:line."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for n, text in enumerate(fh, 1):
            if not text.strip():
                continue
            try:
                row = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
            if not isinstance(row, dict) or "video_id" not in row:
                raise ValueError(f"{path}:{n}: expected an object with video_id, item_index, emissions")
            rows.append(row)
    return rows


def build_judge(judge_spec: Optional[str], cache_dir: Optional[str | Path] = None, prompt: str = "v2",
                verdict_cache: Any = None) -> Any:
    """None / 'lexical' -> None; cache:/ensemble: -> stored-verdict judges; other specs -> scoring.judges, their
    verdicts kept in `verdict_cache` (the store) keyed by judge, prompt version and inputs."""
    if not judge_spec or judge_spec.strip().lower() in ("lexical", "none", "nojudge"):
        return None
    kind = judge_spec.split(":", 1)[0].strip().lower()
    if kind in ("cache", "ensemble"):
        from scoring.judges.stored import build_stored_judge
        return build_stored_judge(judge_spec, cache_dir=cache_dir, prompt=prompt)
    from scoring.judges.spec import build_judge as build_model_judge
    return build_model_judge(judge_spec, cache=verdict_cache)


def read_split(path: str | Path) -> tuple[str, ...]:
    """Item ids of a split file (benchmark/splits/*.txt): one id per line, blank lines skipped."""
    with open(path, encoding="utf-8") as fh:
        return tuple(line.strip() for line in fh if line.strip())


def evaluate(data_dir: str | Path, preds_path: str | Path, mcq_key_path: Optional[str | Path] = None,
             judge_spec: Optional[str] = None, config: IBConfig = IBConfig(),
             judge_cache_dir: Optional[str | Path] = None, items_path: Optional[str | Path] = None,
             verdict_cache: Any = None) -> dict:
    """Read the native annotations, preds.jsonl, the optional MCQ key and split file, then `score` them."""
    from annotation.interactionbench.loader import load_rows
    from scoring.interactionbench.mcq import read_key_file
    rows = load_rows(data_dir)
    preds = read_predictions(preds_path)
    key = read_key_file(mcq_key_path) if mcq_key_path is not None else None
    judge = build_judge(judge_spec, judge_cache_dir, verdict_cache=verdict_cache)
    if items_path is not None:
        config = config._replace(items=read_split(items_path))
    return score(rows, preds, config, judge, key,
                 mcq_key_source=str(mcq_key_path) if mcq_key_path is not None else None,
                 items_source=str(items_path) if items_path is not None else None)
