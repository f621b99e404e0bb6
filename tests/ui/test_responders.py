"""A live session with a human and a model gives two responders, never one: Compare draws them in two lanes,
the Leaderboard and the report give them two rows, `export responses` names each row's responder, and the
human's figure everywhere is the one the session itself showed at item end. A model-only session is no
human baseline; two studio participants give a pooled human row beside their own only when asked."""
from __future__ import annotations

import csv
import html
import re
import time

import pytest

from ibench_ui.compare import render
from ibench_ui.compare_service import CompareService
from ibench_ui.leaderboard import compute_tables, leaderboard_html
from tests.ui.test_live_model import wait_for
from runners.export import response_rows
from runners.report import item_lanes, leaderboard, responders, write_report

IB = "interactionbench"
ITEM = "moving_square#0"
SPEC = "baseline:periodic:2"


def shown_total(result_html: str, table_id: str) -> str:
    """The total_score cell of a score table the session showed the participant (as shown: 1 decimal, as every table writes figures)."""
    table = re.search(rf'<table class="ib-table" id="{table_id}">(.*?)</table>', result_html, re.S)
    assert table, result_html
    cell = re.search(r"<tr><td>total_score</td><td>([^<]*)</td></tr>", table.group(1))
    assert cell, table.group(1)
    return html.unescape(cell.group(1))


def sit(svc, participant: str, text: str, t: float, who: str = "both") -> tuple[str, str, str]:
    """One single-item session; returns (session id, the human's total as shown, the model's total as shown)."""
    req = {"participant": participant, "benchmark": IB, "items": ITEM, "model": SPEC, "who": who, "protocol": "blind"}
    if who == "human":
        req = {"participant": participant, "benchmark": IB, "items": ITEM}
    res = svc.open_session(req)
    assert res["ok"], res
    sid = res["session"]["id"]
    base = {"session_id": sid, "item_index": 0, "item_id": ITEM, "page_id": f"pg-{participant}"}
    if who != "human":
        assert svc.clock({**base, "media_t": 0.0, "paused": False, "rate": 1.0, "event": "playing"})["started"]
    if who != "model":
        assert svc.respond({**base, "kind": "text", "text": text, "media_t": t, "source": "text"})["ok"]
    if who != "human":
        assert svc.clock({**base, "media_t": 5.05, "paused": True, "event": "pause"})["ok"]
        # the model decides every 2 s from t=1; the paused clock at 5.05 makes t=5 due (missed ticks are skipped)
        wait_for(lambda: any(r.responder.startswith("model:") and r.t == 5.0
                             for r in svc.ctx.store.responses(session_id=sid)), timeout=30)
    fin = svc.finish_item({"session_id": sid, "item_index": 0})
    assert fin["ok"], fin
    human = shown_total(fin["result_html"], "item-score") if who != "model" else ""
    model = shown_total(fin["result_html"], "item-score-model") if who != "human" else ""
    return sid, human, model


def _csv(path):
    with open(path, encoding="utf-8") as fh:
        return {r["key"]: r for r in csv.DictReader(fh)}


def test_live_session_gives_two_responders_everywhere(svc, tmp_path):
    sid, human_shown, model_shown = sit(svc, "DEMO1", "A blue square is resting on the left.", 3.2)
    ctx, store = svc.ctx, svc.ctx.store
    human, model = "human:DEMO1", f"model:{SPEC}@{sid}"
    rows = store.responses(session_id=sid)
    model_rows = [r for r in rows if r.responder == model]
    assert [r.responder for r in rows if r not in model_rows] == [human] and model_rows

    # Compare: two responders, two lanes, each with its own responses only
    assert {k for _, k in CompareService(ctx).select("", IB).responders} == {human, model}
    _, fig, lanes_html = render(CompareService(ctx).view("", IB, ITEM, [human, model]))
    assert re.findall(r'class="ib-lane" data-responder="([^"]+)" data-kind="(\w+)"', html.unescape(lanes_html)) == \
        [(human, "human"), (model, "model")]
    at = time.strftime("%Y-%m-%d %H:%M", time.gmtime(store.get_session(sid).created))  # labels say who and when
    assert {y for tr in fig.data for y in (tr.y or ())} == {
        "targets", f"DEMO1 · studio session · {at}", f"{SPEC} · live session by DEMO1 · {at} · {sid[-6:]}"}
    scores = re.findall(r'data-responder="([^"]+)".*?data-measure="total_score">total_score ([^<]+)</span>',
                        html.unescape(lanes_html))
    assert scores == [(human, human_shown), (model, model_shown)]  # each lane scored on its own responses
    lanes = item_lanes(store, ctx.dataset(IB), ITEM, [human, model])
    assert [ln.responder.key for ln in lanes] == [human, model]
    assert [v.t for v in lanes[0].verdicts] == [3.2]
    assert sorted(v.t for v in lanes[1].verdicts) == sorted(r.t for r in model_rows)
    assert lanes[0].responder.label != lanes[1].responder.label

    # Leaderboard: two rows, the human's is the session's own figure with n=1 and no interval
    tables = compute_tables(ctx, 50, 0)
    board = {(r.name, r.kind): r for r in leaderboard(tables)}
    assert set(board) == {(human, "human"), (SPEC, "model")}
    iv = board[(human, "human")].cells[IB][0]
    assert f"{iv.point:.1f}" == human_shown and iv.n_items == 1 and not iv.has_interval
    assert f"{board[(SPEC, 'model')].cells[IB][0].point:.1f}" == model_shown
    page = leaderboard_html(tables)
    assert 'data-name="human:DEMO1" data-kind="human"' in page and f'data-name="{SPEC}" data-kind="model"' in page
    assert "no interval: fewer than 5 items" in page

    # report: two rows, the same figures
    write_report(store, {IB: ctx.dataset(IB)}, tmp_path / "report", n_resamples=50, figures=False)
    table = _csv(tmp_path / "report" / f"{IB}_table.csv")
    assert set(table) == {human, model}
    assert f"{float(table[human]['total']):.1f}" == human_shown and table[human]["kind"] == "human"
    assert f"{float(table[model]['total']):.1f}" == model_shown and table[model]["kind"] == "model"
    assert table[human]["total_n"] == "1" and table[human]["total_note"] == "fewer than 5 items"

    # export: every row names its responder
    exported = response_rows(store, sid)
    assert {r["responder"] for r in exported} == {human, model}
    assert sum(r["responder"] == human for r in exported) == 1


def test_model_only_session_is_no_human_baseline_and_humans_pool(svc):
    _, only_model_shown = sit(svc, "ROBOT", "", 0.0, who="model")[1:]
    _, a, _ = sit(svc, "P1", "A blue square is resting on the left.", 3.2, who="human")
    _, b, _ = sit(svc, "P2", "The square is moving.", 4.5, who="human")
    ctx = svc.ctx
    rs = {r.key: r for r in responders(ctx.store, IB, ctx.dataset(IB))}
    assert "human:ROBOT" not in rs and [k for k in rs if k.startswith("model:")] != []
    # studio sittings are no study's participants: pooled only when asked
    assert "humans:pooled" not in rs and {rs["human:P1"].origin, rs["human:P2"].origin} == {"studio"}
    rs = {r.key: r for r in responders(ctx.store, IB, ctx.dataset(IB), pool_studio=True)}
    assert rs["humans:pooled"].kind == "human" and len(rs["humans:pooled"].item_ids) == 2
    tables = compute_tables(ctx, 50, 0, pool_studio=True)
    rows = {rs.responder.key: rs for rs in tables[IB].rows}
    assert f"{rows['human:P1'].columns['total'].point:.1f}" == a
    assert f"{rows['human:P2'].columns['total'].point:.1f}" == b
    pooled = rows["humans:pooled"].columns["total"]
    # the pooled figure is the mean over both participants' items (InteractionBench rounds means to 3 decimals)
    assert pooled.n_items == 2 and pooled.point == pytest.approx((float(a) + float(b)) / 2, abs=1.5e-3)
    names = {(r.name, r.kind) for r in leaderboard(tables)}
    assert names == {("human:P1", "human"), ("human:P2", "human"), ("humans (pooled)", "human"), (SPEC, "model")}
    # the model-only sitting is a model responder with the session's own figure
    model = next(r for r in tables[IB].rows if r.responder.kind == "model")
    assert f"{model.columns['total'].point:.1f}" == only_model_shown
    # pooled humans are no lane in Compare (they have no responses of their own)
    assert "humans:pooled" not in {k for _, k in CompareService(ctx).select("", IB).responders}
