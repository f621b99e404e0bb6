"""Toy benchmark, runners layer: its protocol (a decision every second), its native prediction of a driven item,
its scores of a run and of the pooled humans, and what `score` reads."""
from __future__ import annotations

import json

from runners.pooling import relabelled
from runners.protocols import prompts
from runners.protocols.base import Decision, single_turn, spoken_emissions
from runners.protocols.streaming import PerSecond
from tests.toybench import scoring_hooks


class ToyProtocol(PerSecond):
    """A decision every whole second from 1 s on, with the request shown from its time."""
    name = "toy"
    benchmark = "toybench"

    def decide(self, state, t: float) -> Decision:
        text = "\n".join(x for x in (f"Stream time: {t:.0f} s.", self.request_text(state.item, t),
                                     prompts.REPLY_FORMAT) if x)
        frames = self.context_frames(state, t)
        return Decision(item_id=state.item.id, protocol=self.name, t=t, frames=frames, prompt=text,
                        messages=single_turn(prompts.BASE_SYSTEM, frames, text), history=list(state.history),
                        max_new_tokens=self.config.max_new_tokens)

    def absorb(self, state, decision, reply):
        return spoken_emissions(state, decision, reply)


def protocols() -> dict:
    return {ToyProtocol.name: ToyProtocol}


def native_prediction(item, trace, model: str = "") -> dict:
    return {"item_id": item.id, "presses": [round(e.t, 3) for e in trace.emissions]}


def score_predictions(ds, item_ids, preds, judge=None, store=None, model: str = "model") -> dict:
    return scoring_hooks.score([ds.get(i).native for i in item_ids], preds)


def pooled_report(ds, parts, predictions_of, judge=None, store=None) -> dict:
    natives, preds = relabelled(ds, parts, predictions_of, "item_id")
    return scoring_hooks.score(natives, preds)


SCORE_INPUT = ("--preds", "preds.jsonl")


def score_plan(a, checked):
    from annotation.loaders import load
    from runners.score_checks import Plan, dataset, prediction_file
    prediction_file(a)
    ds = load(a.benchmark, a.data, probe_media=False)
    dataset(ds, a.skip_invalid, a.as_reference, checked)
    with open(a.preds, encoding="utf-8") as f:
        preds = {rec["item_id"]: rec for rec in map(json.loads, f) if rec}
    return Plan(checked, lambda: scoring_hooks.score([it.native for it in ds.items], preds))
