"""`score interactscope`: the dataset and responses.jsonl checked (by the writer's own reader) and the optional
content judge built, then a Plan that fills each response's verdicts and scores them."""
from __future__ import annotations

from runners.score_checks import Checked, Plan, dataset, jsonl_predictions, prediction_file, usable_judge, verdict_store


def plan(a, chk: Checked) -> Plan:
    from annotation.loaders import load
    from annotation.interactscope.writer import check_predictions
    prediction_file(a)
    ds = load(a.benchmark, a.data, probe_media=False)
    dataset(ds, a.skip_invalid, False, chk)  # (our own scorer: its dataset errors stay errors)
    preds = jsonl_predictions(a, ds, check_predictions, chk)
    for iid in list(preds):
        if iid in chk.left_out:
            preds.pop(iid)
    keep = [it for it in ds.items if it.id not in chk.left_out]
    store = verdict_store(a)
    judge = None
    if a.judge:
        from runners.evaluate import build_content_judge
        judge = usable_judge(lambda: build_content_judge(a.judge, store), a.judge)

    def run() -> dict:
        from scoring.interactscope import scorer as isc
        native = {it.id: it.native for it in keep}
        predictions = {}
        for iid, responses in preds.items():
            pred = isc.fill_tool_verdicts(native[iid], {"interaction_id": iid, "responses": responses})
            if judge is not None:
                pred = isc.fill_judge_verdicts(native[iid], pred, judge)
            predictions[iid] = pred
        return isc.score([it.native for it in keep], predictions, isc.ISConfig())
    return Plan(chk, run)
