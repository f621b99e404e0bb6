"""Omni-InteractScope predictions: `responses.jsonl`, one line per interaction
{"interaction_id", "responses": [{"id", "t", "end"?, "kind": "speech|tool_call", "text"?, "tool"?, "verdicts"?}]}."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from annotation.dataset import Dataset
from annotation.errors import Problem
from annotation.loaders._common import Problems, raise_if_errors
from annotation.model import Response
from annotation.values import is_number
from annotation.writers import _jsonl_predictions as jp

PREDICTIONS_FILE = "responses.jsonl"
RESPONSE_KINDS = ("speech", "tool_call")


def responses_to_native(responses: Iterable[Response]) -> list[dict]:
    """Map logged responses to native entries; end, tool and verdicts come from Response.meta."""
    out = []
    for r in sorted(responses, key=lambda r: r.t):
        kind = "tool_call" if r.kind == "tool_call" else "speech"
        row: dict[str, Any] = {"id": r.id, "t": r.t}
        if r.meta.get("end") is not None:
            row["end"] = r.meta["end"]
        row["kind"] = kind
        if r.text:
            row["text"] = r.text
        if kind == "tool_call" and r.meta.get("tool") is not None:
            row["tool"] = r.meta["tool"]
        if r.meta.get("verdicts"):
            row["verdicts"] = dict(r.meta["verdicts"])
        out.append(row)
    return out


def write_predictions(path: str | Path, predictions: Iterable[Mapping] | Mapping[str, list]) -> Path:
    """Write responses.jsonl (a folder gets the file inside); a mapping interaction_id -> responses is accepted."""
    if isinstance(predictions, Mapping):
        rows = [{"interaction_id": k, "responses": list(v)} for k, v in predictions.items()]
    else:
        rows = [dict(p) for p in predictions]
    return jp.write_rows(path, rows, PREDICTIONS_FILE, _check_row)


def check_predictions(path: str | Path, dataset: Optional[Dataset] = None) -> tuple[dict[str, list], list[Problem]]:
    """Read responses.jsonl into {interaction_id: [response, ...]} and list every problem."""
    name, rows, problems = jp.read_rows(path, PREDICTIONS_FILE, "interaction_id", _check_row,
                                        "duplicate line for this interaction")
    preds: dict[str, list] = {iid: row["responses"] for iid, row in rows.items()}
    if dataset is not None:
        def check_verdicts(iid: str) -> None:
            target_ids = {t.id for t in dataset.get(iid).targets}
            for k, r in enumerate(preds[iid]):
                for tid in (r.get("verdicts") or {}):
                    if tid not in target_ids:
                        problems.warn(name, iid, f"responses[{k}].verdicts.{tid}", "no such target in this interaction")

        jp.check_coverage(name, preds, dataset, "interaction_id", "interaction",
                          "no responses for this interaction (scored as silent)", problems, check_verdicts)
    return preds, list(problems)


def read_predictions(path: str | Path, dataset: Optional[Dataset] = None) -> dict[str, list]:
    """Read responses.jsonl; raise DatasetError listing every error."""
    preds, problems = check_predictions(path, dataset)
    raise_if_errors(problems)
    return preds


def _check_row(row: Any, name: str, lineno: int, problems: Problems) -> bool:
    """Validate one line; True when it has no errors."""
    label = jp.row_label(row, "interaction_id", lineno)
    if not isinstance(row, dict):
        problems.error(name, label, None, f"expected an object, got {type(row).__name__}")
        return False
    n = problems.error_count()
    if not (isinstance(row.get("interaction_id"), str) and row["interaction_id"]):
        problems.error(name, label, "interaction_id", f"missing or not a string: {json.dumps(row.get('interaction_id'))}")
    responses = row.get("responses")
    if not isinstance(responses, list):
        problems.error(name, label, "responses", f"expected a list of responses, got {json.dumps(responses)}")
        responses = []
    ids: set[str] = set()
    for k, r in enumerate(responses):
        f = f"responses[{k}]"
        if not isinstance(r, dict):
            problems.error(name, label, f, f"expected an object, got {type(r).__name__}")
            continue
        rid = r.get("id")
        if not isinstance(rid, str) or not rid:
            problems.error(name, label, f"{f}.id", f"missing or not a string: {json.dumps(rid)}")
        elif rid in ids:
            problems.error(name, label, f"{f}.id", f"duplicate response id {json.dumps(rid)}")
        else:
            ids.add(rid)
        t = r.get("t")
        if not is_number(t) or t < 0:
            problems.error(name, label, f"{f}.t", f"expected a non-negative number of seconds, got {json.dumps(t)}")
        end = r.get("end")
        if end is not None:
            if not is_number(end):
                problems.error(name, label, f"{f}.end", f"expected a number of seconds, got {json.dumps(end)}")
            elif is_number(t) and end < t:
                problems.error(name, label, f"{f}.end", f"ends at {end} before it starts at {t}")
        kind = r.get("kind")
        if kind not in RESPONSE_KINDS:
            problems.error(name, label, f"{f}.kind", f"expected one of {', '.join(RESPONSE_KINDS)}, got {json.dumps(kind)}")
        if r.get("text") is not None and not isinstance(r["text"], str):
            problems.error(name, label, f"{f}.text", f"expected a string, got {type(r['text']).__name__}")
        tool = r.get("tool")
        if kind == "tool_call" and tool is None:
            problems.error(name, label, f"{f}.tool", "a tool_call response needs {\"name\", \"args\"}")
        if tool is not None:
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) \
                    or not isinstance(tool.get("args", {}), dict):
                problems.error(name, label, f"{f}.tool", f"expected {{\"name\": str, \"args\": object}}, got {json.dumps(tool)}")
        verdicts = r.get("verdicts")
        if verdicts is not None:
            if not isinstance(verdicts, dict):
                problems.error(name, label, f"{f}.verdicts", f"expected {{target_id: bool}}, got {json.dumps(verdicts)}")
            else:
                for tid, v in verdicts.items():
                    if not isinstance(v, bool):
                        problems.error(name, label, f"{f}.verdicts.{tid}", f"expected true or false, got {json.dumps(v)}")
    return problems.error_count() == n
