"""Omni-InteractScope scorer: joint content-timing accuracy (T1-T7) and timely recall (T8).

Pure functions over the native dicts (see docs/formats.md). Content verdicts are inputs
(`response["verdicts"][target_id]`); timing is checked here. Every reading marked as an
assumption (B1-B11 in the shared ProactiveBench / InteractScope spec under specs/) is an option of `ISConfig`.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Optional, Union

from annotation.errors import DatasetError, Problem
from scoring import common
from scoring.common import (check_options, check_pair, index_predictions, is_real, not_an_object, pair_problem, pct,
                            record_id, round1)

TASKS = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")
T8_SUBTYPES = ("A", "B", "C")
EXPECTED_TOTALS = {"interactions": 1479, "targets": 1790, "T8_targets": 360}  # seed statistics
TABLE_COLUMNS = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "Avg", "T8", "Complete T8-C")


@dataclass(frozen=True)
class ISConfig:
    """Scoring options; each names the spec assumption it settles. Defaults = spec = golden."""
    # B1: accuracy per target ("target") or per interaction, all targets correct ("interaction").
    unit: str = "target"
    # B2: windows inclusive at both ends (False: half-open [start, end)).
    window_closed: bool = True
    # B3: a response's time is its start ("start") or its end ("end", falling back to start).
    time_anchor: str = "start"
    # B4: T1-T7 judge the earliest in-window response ("first_in_window") or any ("any_in_window").
    t17_rule: str = "first_in_window"
    # B5: a missing verdict counts as false ("false") or the response is skipped for that
    #     target and counted as unjudged ("exclude").
    missing_verdict: str = "false"
    # B6: no penalty for early responses (False); True fails a T1-T7 target when a response
    #     with a true verdict for it came before its window.
    penalize_early: bool = False
    # B7: T5 windows are query_time + window_rel, widened by this many seconds on each side.
    t5_tolerance: float = 0.0
    # B8: tasks averaged (equally) into Avg; T5 and T8 are reported separately.
    avg_tasks: tuple[str, ...] = ("T1", "T2", "T3", "T4", "T6", "T7")
    # B9: T8 recall needs any timely true response ("any_in_window") or the earliest ("first_in_window").
    t8_rule: str = "any_in_window"
    # B10: the T8 subtype whose fully recalled interactions are counted as "Complete T8-C".
    complete_subtype: str = "C"
    # B11: targets scored independently (False); True lets each response serve only one target
    #      (targets taken in window-start order).
    exclusive_responses: bool = False
    # Avg is None when an Avg task has no targets, unless partial averages are allowed.
    allow_partial: bool = False

    def __post_init__(self) -> None:
        checks = {
            "unit": (self.unit, ("target", "interaction")),
            "time_anchor": (self.time_anchor, ("start", "end")),
            "t17_rule": (self.t17_rule, ("first_in_window", "any_in_window")),
            "t8_rule": (self.t8_rule, ("first_in_window", "any_in_window")),
            "missing_verdict": (self.missing_verdict, ("false", "exclude")),
        }
        check_options("ISConfig", checks)
        bad = [t for t in self.avg_tasks if t not in TASKS]
        if bad:
            raise ValueError(f"ISConfig.avg_tasks has unknown task(s) {bad}; expected some of {TASKS}")
        if self.t5_tolerance < 0:
            raise ValueError(f"ISConfig.t5_tolerance={self.t5_tolerance}: must be >= 0")


# ---------------------------------------------------------------- diagnostics

@dataclass(frozen=True)
class TargetDiag:
    """How one target was scored: its absolute window, the judged response and the result.

    `timing` is in_window (some response inside), early (only a true-verdict response before
    the window) or missed. `correct` is the joint result (T1-T7) or recall (T8)."""
    interaction_id: str
    target_id: str
    task: str
    subtype: Optional[str]
    window: tuple[float, float]
    in_window: tuple[str, ...]
    candidate: Optional[str]
    candidate_t: Optional[float]
    verdict: Optional[bool]
    timing: str
    correct: bool
    rule: str
    unjudged: int = 0
    unjudged_ids: tuple[str, ...] = ()  # timely responses with no verdict for this target (a judge failure)
    before: tuple[str, ...] = ()  # responses before the window


@dataclass(frozen=True)
class InteractionDiag:
    """One interaction's targets and whether all of them are correct (recalled for T8)."""
    interaction_id: str
    task: str
    subtype: Optional[str]
    targets: tuple[TargetDiag, ...]
    n_targets: int
    n_correct: int
    all_correct: bool


# ---------------------------------------------------------------- windows and timing

def _annotation_error(iid: Any, fld: str, message: str) -> DatasetError:
    return DatasetError([Problem("<scoring>", None if iid is None else str(iid), fld, message)])


def target_window(target: Mapping, interaction: Mapping, config: ISConfig = ISConfig()) -> tuple[float, float]:
    """B7: absolute [start, end]; a window_rel target is relative to its (or the interaction's) query_time."""
    iid = interaction.get("interaction_id")
    tid = target.get("id")
    if target.get("window_rel") is not None:
        qt = target.get("query_time", interaction.get("query_time"))
        if qt is None:
            raise _annotation_error(iid, f"targets[{tid}].query_time",
                                    "target has window_rel but no query_time (on the target or the interaction)")
        a, b = target["window_rel"]
        tol = config.t5_tolerance if interaction.get("task") == "T5" else 0.0
        return (float(qt) + float(a) - tol, float(qt) + float(b) + tol)
    if target.get("window") is None:
        raise _annotation_error(iid, f"targets[{tid}].window", "target has neither window nor window_rel")
    s, e = target["window"]
    return (float(s), float(e))


def response_time(response: Mapping, config: ISConfig = ISConfig()) -> float:
    """B3: the time that decides timeliness (start by default, end when anchored at the end)."""
    if config.time_anchor == "end" and response.get("end") is not None:
        return float(response["end"])
    return float(response["t"])


def _inside(t: float, window: tuple[float, float], closed: bool) -> bool:
    return window[0] <= t <= window[1] if closed else window[0] <= t < window[1]


def _verdict(response: Mapping, target_id: str) -> Optional[bool]:
    v = (response.get("verdicts") or {}).get(target_id)
    return None if v is None else bool(v)


# ---------------------------------------------------------------- per-target scoring

def score_target(target: Mapping, interaction: Mapping, responses: list[Mapping],
                 config: ISConfig = ISConfig(), used: Optional[set] = None) -> TargetDiag:
    """B4/B9: T1-T7 judge the earliest timely response; T8 recalls on any timely true response."""
    task = interaction.get("task")
    tid = str(target.get("id"))
    window = target_window(target, interaction, config)
    rule = config.t8_rule if task == "T8" else config.t17_rule
    used = used if used is not None else set()
    timed = sorted(((response_time(r, config), i, r) for i, r in enumerate(responses)), key=lambda x: (x[0], x[1]))
    inside = [(t, r) for t, i, r in timed if _inside(t, window, config.window_closed) and str(r.get("id")) not in used]
    unjudged = 0
    unjudged_ids = tuple(str(r.get("id")) for _, r in inside if _verdict(r, tid) is None)
    if config.missing_verdict == "exclude":
        judged = [(t, r) for t, r in inside if _verdict(r, tid) is not None]
        unjudged = len(inside) - len(judged)
        inside = judged
    candidate, verdict = None, None
    if inside:
        if rule == "first_in_window":
            candidate = inside[0]
        else:
            candidate = next(((t, r) for t, r in inside if _verdict(r, tid)), inside[0])
        verdict = bool(_verdict(candidate[1], tid))
    before = [r for t, _, r in timed if t < window[0]]
    early = any(_verdict(r, tid) for r in before)
    timing = "in_window" if inside else ("early" if early else "missed")
    correct = bool(verdict)
    if config.penalize_early and task != "T8" and early:
        correct = False
    return TargetDiag(interaction_id=str(interaction.get("interaction_id")), target_id=tid, task=str(task),
                      subtype=interaction.get("subtype"), window=window,
                      in_window=tuple(str(r.get("id")) for _, r in inside),
                      candidate=None if candidate is None else str(candidate[1].get("id")),
                      candidate_t=None if candidate is None else candidate[0], verdict=verdict,
                      timing=timing, correct=correct, rule=rule, unjudged=unjudged, unjudged_ids=unjudged_ids,
                      before=tuple(str(r.get("id")) for r in before))


def score_interaction(interaction: Mapping, prediction: Optional[Mapping],
                      config: ISConfig = ISConfig()) -> InteractionDiag:
    """Score every target of one interaction; a missing prediction means no responses."""
    responses = list((prediction or {}).get("responses") or ())
    targets = list(interaction.get("targets") or ())
    order = range(len(targets))
    if config.exclusive_responses:
        order = sorted(order, key=lambda i: target_window(targets[i], interaction, config)[0])
    used: set = set()
    diags: dict[int, TargetDiag] = {}
    for i in order:
        d = score_target(targets[i], interaction, responses, config, used)
        diags[i] = d
        if config.exclusive_responses and d.candidate is not None:
            used.add(d.candidate)
    ordered = tuple(diags[i] for i in range(len(targets)))
    n_correct = sum(1 for d in ordered if d.correct)
    return InteractionDiag(interaction_id=str(interaction.get("interaction_id")), task=str(interaction.get("task")),
                           subtype=interaction.get("subtype"), targets=ordered, n_targets=len(ordered),
                           n_correct=n_correct, all_correct=bool(ordered) and n_correct == len(ordered))


# ---------------------------------------------------------------- aggregation

def task_aggregate(diags: list[InteractionDiag], config: ISConfig = ISConfig()) -> dict:
    """B1: per-target (default) or per-interaction accuracy of one task, with timing rates."""
    targets = [t for d in diags for t in d.targets]
    n_t, n_i = len(targets), len(diags)
    correct_t = sum(1 for t in targets if t.correct)
    correct_i = sum(1 for d in diags if d.all_correct)
    timing = [t.timing for t in targets]
    out = {"n_interactions": n_i, "n_targets": n_t, "correct_targets": correct_t,
           "correct_interactions": correct_i, "target_accuracy": pct(correct_t, n_t),
           "interaction_accuracy": pct(correct_i, n_i),
           "in_window_rate": pct(timing.count("in_window"), n_t),
           "early_rate": pct(timing.count("early"), n_t),
           "missed_rate": pct(timing.count("missed"), n_t),
           "unjudged": sum(t.unjudged for t in targets)}
    out["accuracy"] = out["target_accuracy"] if config.unit == "target" else out["interaction_accuracy"]
    return out


def t8_aggregate(diags: list[InteractionDiag], config: ISConfig = ISConfig()) -> dict:
    """B9/B10: recall pooled over all T8 targets, per-subtype recall, and Complete T8-C as k / n."""
    targets = [t for d in diags for t in d.targets]
    recalled = sum(1 for t in targets if t.correct)
    by_subtype = {}
    for sub in sorted({str(d.subtype) for d in diags}):
        ts = [t for d in diags if str(d.subtype) == sub for t in d.targets]
        by_subtype[sub] = pct(sum(1 for t in ts if t.correct), len(ts))
    c_inter = [d for d in diags if d.subtype == config.complete_subtype]
    k = sum(1 for d in c_inter if d.all_correct)
    return {"n_targets": len(targets), "recalled_targets": recalled, "recall": pct(recalled, len(targets)),
            "recall_by_subtype": by_subtype, "complete_T8C": k, "T8C_interactions": len(c_inter),
            "complete_T8C_str": f"{k} / {len(c_inter)}"}


def benchmark_avg(task_scores: Mapping[str, Optional[float]], config: ISConfig = ISConfig()) -> Optional[float]:
    """B8: equal-weight mean of the Avg tasks (T1-T4, T6, T7 by default; T5 left out)."""
    values = [task_scores.get(t) for t in config.avg_tasks]
    present = [float(v) for v in values if v is not None]
    if len(present) < len(values) and not config.allow_partial:
        return None
    return sum(present) / len(present) if present else None


def score(interactions: Iterable[Mapping], predictions: Union[Iterable[Mapping], Mapping[str, Mapping], None],
          config: ISConfig = ISConfig()) -> dict:
    """Score a run: {"per_item", "aggregate", "table", "warnings", "config"} (JSON-ready dicts)."""
    interactions = list(interactions)
    warnings: list[str] = []
    known = {str(x.get("interaction_id")) for x in interactions}
    preds, missing = index_predictions(predictions, known, "interaction_id", "interaction", warnings)
    per_item: dict[str, dict] = {}
    by_task: dict[str, list[InteractionDiag]] = {t: [] for t in TASKS}
    for inter in interactions:
        task = inter.get("task")
        if task not in TASKS:
            raise _annotation_error(inter.get("interaction_id"), "task",
                                    f"unknown task {task!r}; expected one of {TASKS}")
        iid = str(inter.get("interaction_id"))
        diag = score_interaction(inter, preds.get(iid), config)
        per_item[iid] = asdict(diag)
        by_task[task].append(diag)
    tasks = {t: task_aggregate(by_task[t], config) for t in TASKS if t != "T8"}
    scores = {t: tasks[t]["accuracy"] for t in tasks}
    for t in tasks:
        if not by_task[t]:
            warnings.append(f"no {t} interactions: its accuracy is None")
    t8 = t8_aggregate(by_task["T8"], config)
    avg = benchmark_avg(scores, config)
    if avg is None and any(scores[t] is None for t in config.avg_tasks):
        warnings.append("Avg is None because an Avg task has no targets (set allow_partial=True)")
    unjudged = sum(a["unjudged"] for a in tasks.values()) + sum(
        t.unjudged for d in by_task["T8"] for t in d.targets)
    if unjudged:
        warnings.append(f"{unjudged} in-window response(s) had no verdict and were excluded")
    aggregate = {"tasks": tasks, **scores, "Avg": avg, "T8": t8, "T8_recall": t8["recall"],
                 "complete_T8C": t8["complete_T8C"], "T8C_interactions": t8["T8C_interactions"],
                 "complete_T8C_str": t8["complete_T8C_str"], "n_interactions": len(interactions),
                 "n_targets": sum(len(d.targets) for v in by_task.values() for d in v),
                 "n_predicted": len(preds), "missing_predictions": missing}
    table = {t: round1(scores[t]) for t in scores}
    table["Avg"] = round1(avg)
    table["T8"] = round1(t8["recall"])
    table["Complete T8-C"] = t8["complete_T8C_str"]
    return {"per_item": per_item, "aggregate": aggregate, "table": table,
            "warnings": warnings, "config": asdict(config)}


def format_table(report: Mapping, model: str = "model") -> str:
    """Paper-style header and one row (T1-T7, Avg, T8 recall, Complete T8-C) for the terminal."""
    return common.format_table(report["table"], TABLE_COLUMNS, model)


# ---------------------------------------------------------------- tool-call verdicts (T1)

def _norm_value(v: Any) -> Any:
    """Argument values compared modulo whitespace and case of strings (recursively)."""
    if isinstance(v, str):
        return " ".join(v.split()).casefold()
    if isinstance(v, Mapping):
        return {str(k): _norm_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_norm_value(x) for x in v]
    return v


def _tool_parts(tool: Any) -> Optional[tuple[str, dict]]:
    """(name, args) from {"name", "args"}, {"tool": name, "args"} or {"tool": {"name", "args"}}."""
    if not isinstance(tool, Mapping):
        return None
    if isinstance(tool.get("tool"), Mapping):
        return _tool_parts(tool["tool"])
    name = tool.get("name", tool.get("tool"))
    if not isinstance(name, str):
        return None
    args = tool.get("args", tool.get("arguments")) or {}
    return (name, dict(args) if isinstance(args, Mapping) else {})


def tool_call_verdict(response_tool: Any, reference_tool: Any) -> bool:
    """T1 content verdict: same tool name and same args, strings compared ignoring whitespace/case."""
    got, ref = _tool_parts(response_tool), _tool_parts(reference_tool)
    if got is None or ref is None:
        return False
    return _norm_value(got[0]) == _norm_value(ref[0]) and _norm_value(got[1]) == _norm_value(ref[1])


def fill_tool_verdicts(interaction: Mapping, prediction: Optional[Mapping]) -> dict:
    """A copy of the prediction with tool-call verdicts filled for targets whose reference is a tool call.

    Existing verdicts are left alone; speech responses and text references are not touched."""
    pred = dict(prediction or {"interaction_id": interaction.get("interaction_id"), "responses": []})
    tool_targets = [t for t in interaction.get("targets") or () if _tool_parts(t.get("reference")) is not None]
    responses = []
    for r in pred.get("responses") or ():
        r = dict(r)
        verdicts = dict(r.get("verdicts") or {})
        if r.get("tool") is not None:
            for t in tool_targets:
                tid = str(t.get("id"))
                if tid not in verdicts:
                    verdicts[tid] = tool_call_verdict(r["tool"], t["reference"])
        r["verdicts"] = verdicts
        responses.append(r)
    pred["responses"] = responses
    return pred


def fill_judge_verdicts(interaction: Mapping, prediction: Optional[Mapping], judge,
                        config: ISConfig = ISConfig()) -> dict:
    """A copy of the prediction with content verdicts from `judge` (question, reference, text) -> [0, 1]
    for speech responses inside a text target's window; score >= 0.5 is true.

    Only timely pairs are judged (the others cannot count). A judge that raises leaves the pair without a
    verdict and counts it in `unjudged_pairs`, so it is excluded rather than silently scored false when
    `missing_verdict="exclude"`."""
    pred = dict(prediction or {"interaction_id": interaction.get("interaction_id"), "responses": []})
    question = str(interaction.get("query_text") or "")
    text_targets = [t for t in interaction.get("targets") or () if _tool_parts(t.get("reference")) is None
                    and t.get("reference") is not None]
    failed = 0
    responses = []
    for r in pred.get("responses") or ():
        r = dict(r)
        verdicts = dict(r.get("verdicts") or {})
        if r.get("kind") != "tool_call" and r.get("text"):
            for t in text_targets:
                tid = str(t.get("id"))
                if tid in verdicts or not _inside(response_time(r, config), target_window(t, interaction, config),
                                                  config.window_closed):
                    continue
                try:
                    verdicts[tid] = float(judge(question, str(t["reference"]), str(r["text"]))) >= 0.5
                except Exception:  # noqa: BLE001 - any judge failure means "no verdict", counted below
                    failed += 1
        r["verdicts"] = verdicts
        responses.append(r)
    pred["responses"] = responses
    pred["unjudged_pairs"] = failed + int((prediction or {}).get("unjudged_pairs") or 0)
    return pred


# ---------------------------------------------------------------- validation

def _check_pair(v: Any, file: str, iid: Optional[str], fld: str, out: list[Problem],
                allow_negative: bool = False) -> bool:
    """[start, end] of numbers (not negative unless allowed), start <= end; problems go to `out`."""
    def bounds_ok(w) -> bool:
        if not all(is_real(x) for x in w):
            out.append(pair_problem(w, file, iid, fld))
            return False
        if not allow_negative and min(w) < 0:
            out.append(Problem(file, iid, fld, f"negative time in {list(w)}; times are seconds from stream start"))
            return False
        return True

    return check_pair(v, file, iid, fld, out, bounds_ok)


def validate_item(interaction: Any, file: str) -> list[Problem]:
    """Problems with one interaction (errors and warnings), each naming file, interaction and field."""
    if not isinstance(interaction, Mapping):
        return [not_an_object(interaction, file, "interaction")]
    out: list[Problem] = []
    iid = record_id(interaction, file, "interaction_id", out, "missing interaction_id", empty_is_missing=True)
    task = interaction.get("task")
    if task not in TASKS:
        out.append(Problem(file, iid, "task", f"unknown task {task!r}; expected one of {TASKS}"))
    subtype = interaction.get("subtype")
    if task == "T8":
        if subtype is None:
            out.append(Problem(file, iid, "subtype", "T8 interaction needs a subtype (A, B or C)"))
        elif subtype not in T8_SUBTYPES:
            out.append(Problem(file, iid, "subtype", f"unexpected T8 subtype {subtype!r}; expected A, B or C",
                               "warning"))
    elif subtype is not None and task in TASKS:
        out.append(Problem(file, iid, "subtype", f"subtype {subtype!r} is only used for T8; ignored", "warning"))
    qt = interaction.get("query_time")
    if qt is not None and (not is_real(qt) or qt < 0):
        out.append(Problem(file, iid, "query_time", f"expected seconds >= 0, got {qt!r}"))
    targets = interaction.get("targets")
    if not isinstance(targets, (list, tuple)) or not targets:
        out.append(Problem(file, iid, "targets", "expected a non-empty list of targets"))
        return out
    seen: set = set()
    for n, t in enumerate(targets):
        fld = f"targets[{n}]"
        if not isinstance(t, Mapping):
            out.append(Problem(file, iid, fld, f"expected an object, got {type(t).__name__}"))
            continue
        tid = t.get("id")
        if tid is None or tid == "":
            out.append(Problem(file, iid, f"{fld}.id", "target without id"))
        elif tid in seen:
            out.append(Problem(file, iid, f"{fld}.id", f"duplicate target id {tid!r}"))
        seen.add(tid)
        has_rel = t.get("window_rel") is not None
        if has_rel:
            _check_pair(t["window_rel"], file, iid, f"{fld}.window_rel", out, allow_negative=True)
            tq = t.get("query_time", qt)
            if tq is None:
                out.append(Problem(file, iid, f"{fld}.query_time",
                                   "target has window_rel but no query_time (on the target or the interaction)"))
            elif not is_real(tq) or tq < 0:
                out.append(Problem(file, iid, f"{fld}.query_time", f"expected seconds >= 0, got {tq!r}"))
            if task in TASKS and task != "T5":
                out.append(Problem(file, iid, f"{fld}.window_rel",
                                   f"query-relative window on a {task} target (only T5 is query-relative)",
                                   "warning"))
        elif t.get("window") is not None:
            _check_pair(t["window"], file, iid, f"{fld}.window", out)
            if task == "T5":
                out.append(Problem(file, iid, f"{fld}.window",
                                   "T5 target with an absolute window; T5 is scored query-relative (window_rel)",
                                   "warning"))
        else:
            out.append(Problem(file, iid, f"{fld}.window", "target needs window [start, end] or window_rel"))
        if task == "T1" and _tool_parts(t.get("reference")) is None:
            out.append(Problem(file, iid, f"{fld}.reference",
                               "T1 target without a tool reference {name|tool, args}: verdicts must come "
                               "from elsewhere", "warning"))
    return out


validate_interaction = validate_item


def validate_prediction(prediction: Any, file: str) -> list[Problem]:
    """Problems with one prediction: response ids, start/end times and verdict booleans."""
    if not isinstance(prediction, Mapping):
        return [not_an_object(prediction, file, "prediction")]
    out: list[Problem] = []
    iid = record_id(prediction, file, "interaction_id", out, "prediction without interaction_id")
    responses = prediction.get("responses")
    if not isinstance(responses, (list, tuple)):
        return out + [Problem(file, iid, "responses", f"expected a list of responses, got {responses!r}")]
    seen: set = set()
    for n, r in enumerate(responses):
        fld = f"responses[{n}]"
        if not isinstance(r, Mapping):
            out.append(Problem(file, iid, fld, f"expected an object, got {type(r).__name__}"))
            continue
        rid = r.get("id")
        if rid is None:
            out.append(Problem(file, iid, f"{fld}.id", "response without id"))
        elif rid in seen:
            out.append(Problem(file, iid, f"{fld}.id", f"duplicate response id {rid!r}"))
        seen.add(rid)
        t = r.get("t")
        if not is_real(t) or t < 0:
            out.append(Problem(file, iid, f"{fld}.t", f"expected a start time in seconds >= 0, got {t!r}"))
        end = r.get("end")
        if end is not None and (not is_real(end) or (is_real(t) and end < t)):
            out.append(Problem(file, iid, f"{fld}.end", f"end {end!r} must be a time >= start {t!r}"))
        verdicts = r.get("verdicts", {})
        if not isinstance(verdicts, Mapping):
            out.append(Problem(file, iid, f"{fld}.verdicts", "expected an object target_id -> bool"))
        else:
            for k, v in verdicts.items():
                if not isinstance(v, bool):
                    out.append(Problem(file, iid, f"{fld}.verdicts.{k}", f"expected true/false, got {v!r}"))
    return out


def validate_totals(interactions: Iterable[Mapping], file: str) -> list[Problem]:
    """Warnings when a full dataset's totals differ from the published 1,479 / 1,790 / 360."""
    inters = list(interactions)
    got = {"interactions": len(inters),
           "targets": sum(len(x.get("targets") or ()) for x in inters),
           "T8_targets": sum(len(x.get("targets") or ()) for x in inters if x.get("task") == "T8")}
    return [Problem(file, None, None, f"{name}: {got[name]} found, the paper reports {want}", "warning")
            for name, want in EXPECTED_TOTALS.items() if got[name] != want]
