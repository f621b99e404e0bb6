"""Who is a responder, who is pooled, which study, and who ranks first (issue 23, researcher). Hand-worked store on
InteractionBench's embedded demo: study "pilot" (P001 on ball_counter#0 and color_scene#0, P002 on ball_counter#0),
study "other" (P001 again, on color_scene#0: another study's P001 is another person), and a studio session of
"demo-both" on ball_counter#0 (made 2026-11-30 14:02 UTC). Expected: four human responders; the pool is the three
study participants (5 observations), never the studio session unless asked; `study` keeps one study's humans."""
from __future__ import annotations

import calendar
import csv
import time

import pytest

from annotation.loaders import load
from annotation.model import Response
from annotation.store import Store
from annotation.studies import create_study
from runners.report import (BenchmarkTables, Responder, ResponderScores, leaderboard, responders, write_report)
from scoring.bootstrap import Interval

IB = "interactionbench"
AT = calendar.timegm((2026, 11, 30, 14, 2, 0, 0, 0, 0))  # 2026-11-30 14:02:00 UTC


def _sit(store: Store, sid: str, who: str, items: list[str], at: float = AT) -> None:
    """One answer per item at 9.0 s, then the sitting closed and dated `at`."""
    for iid in items:
        store.add_response(Response(id="", item_id=iid, benchmark=IB, responder=f"human:{who}", session_id=sid,
                                    t=9.0, kind="text", text="there it is", wall_time=time.time()))
    store.set_session_progress(sid, len(items), "done")
    store.db["sessions"].update(sid, {"created": at})


@pytest.fixture(scope="module")
def studied(tmp_path_factory):
    db = tmp_path_factory.mktemp("studies") / "ibench.sqlite"
    store = Store(db)
    pilot, _ = create_study(store, IB, ["P001", "P002"], {"P001": ["ball_counter#0", "color_scene#0"],
                                                         "P002": ["ball_counter#0"]}, name="pilot")
    other, _ = create_study(store, IB, ["P001"], ["color_scene#0"], name="other")
    for s in store.sessions(benchmark=IB):  # the three study sittings
        _sit(store, s.id, s.participant, list(s.item_ids))
    demo = store.create_session("demo-both", IB, ["ball_counter#0"])
    _sit(store, demo.id, "demo-both", ["ball_counter#0"])
    return store, pilot.id, other.id, load(IB, None, probe_media=False)


def test_each_responder_is_a_study_participant_or_a_studio_session_labelled_who_and_when(studied):
    store, pilot, other, ds = studied
    rs = {r.key: r for r in responders(store, IB, ds)}
    assert set(rs) == {f"human:P001@{pilot}", f"human:P002@{pilot}", f"human:P001@{other}", "human:demo-both",
                       "humans:pooled"}
    assert [(rs[k].origin, rs[k].label) for k in (f"human:P001@{pilot}", f"human:P001@{other}", "human:demo-both")] \
        == [("participant", "P001 · study pilot · 2026-11-30 14:02"),
            ("participant", "P001 · study other · 2026-11-30 14:02"),
            ("studio", "demo-both · studio session · 2026-11-30 14:02")]
    assert rs[f"human:P001@{pilot}"].item_ids == ("ball_counter#0", "color_scene#0")
    assert rs[f"human:P001@{other}"].item_ids == ("color_scene#0",)


def test_the_pool_is_study_participants_only_unless_asked(studied):
    store, pilot, other, ds = studied
    pool = {r.key: r for r in responders(store, IB, ds)}["humans:pooled"]
    assert set(pool.members) == {f"human:P001@{pilot}", f"human:P002@{pilot}", f"human:P001@{other}"}
    assert len(pool.item_ids) == 2 + 1 + 1  # participant x item
    assert pool.label == "humans (pooled: 3 participants)"
    asked = {r.key: r for r in responders(store, IB, ds, pool_studio=True)}["humans:pooled"]
    assert "human:demo-both" in asked.members and len(asked.item_ids) == 5
    assert asked.label == "humans (pooled: 4 participants and studio sessions)"


def test_a_study_filter_keeps_that_studys_participants_and_pool(studied):
    store, pilot, other, ds = studied
    rs = {r.key: r for r in responders(store, IB, ds, study=pilot)}
    assert set(rs) == {f"human:P001@{pilot}", f"human:P002@{pilot}", "humans:pooled"}
    assert len(rs["humans:pooled"].item_ids) == 3 and rs["humans:pooled"].label == \
        "humans (pooled: 2 participants, study pilot)"
    # one participant is no pool
    assert set(r.key for r in responders(store, IB, ds, study=other)) == {f"human:P001@{other}"}


def _row(key: str, name: str, kind: str, origin: str, point: float, n: int, min_n: int = 5) -> ResponderScores:
    """A table row whose headline (total) is `point` over `n` items (an interval only from `min_n` items)."""
    iv = Interval(point, point - 1 if n >= min_n else None, point + 1 if n >= min_n else None, n_items=n)
    resp = Responder(key, kind, name, name, IB, tuple(f"i{k}" for k in range(n)), origin=origin)
    stats = type("Stats", (), {"item_ids": list(resp.item_ids)})()
    return ResponderScores(resp, {}, stats, {"total": iv})


def test_a_figure_below_the_minimum_n_is_never_ranked_above_a_better_supported_one():
    # the case: demo-both (n = 1, 44.3) above a 15-item model run (40.0); a 10-item pool at 30.0
    tb = BenchmarkTables(IB, ["total"], [_row("human:demo-both", "human:demo-both", "human", "studio", 44.3, 1),
                                         _row("humans:pooled", "humans (pooled)", "human", "participant", 30.0, 10),
                                         _row("model:m@r", "m", "model", "model", 40.0, 15)])
    board = leaderboard({IB: tb})
    assert [(r.name, r.under_n) for r in board] == [("m", False), ("humans (pooled)", False),
                                                    ("human:demo-both", True)]
    assert [r.kind_label for r in board] == ["model", "pooled study participants", "studio session"]
    # with a minimum n of 1 nothing is under it: the mean decides alone
    tb.min_n = 1
    assert [r.name for r in leaderboard({IB: tb})] == ["human:demo-both", "m", "humans (pooled)"]


def test_report_study_filter_lanes_and_the_note_on_items_left_out(studied, tmp_path):
    store, pilot, other, ds = studied
    from runners.cli import main
    out = tmp_path / "r"
    assert main(["report", "--db", str(store.path), "--out", str(out), "--benchmark", IB, "--resamples", "20",
                 "--study", "pilot", "--max-items", "1", "--no-png"]) == 0
    with open(out / f"{IB}_table.csv", encoding="utf-8") as fh:
        table = {r["key"]: r for r in csv.DictReader(fh)}
    assert set(table) == {f"human:P001@{pilot}", f"human:P002@{pilot}", "humans:pooled"}
    assert table["humans:pooled"]["n_items"] == "3"
    md = (out / "report.md").read_text(encoding="utf-8")
    assert f"the participants of study pilot ({pilot}) only" in md
    # two answered items, one drawn: the other is named, with why
    assert "Items without a timeline: answered but not drawn, beyond the first 1 (--max-items): `color_scene#0`." \
        in md
    # ball_counter#0's lanes: exactly the two who sat it (P002 did not sit color_scene#0, so never an empty lane)
    fig = (out / "figures" / f"{IB}__ball_counter_0.html").read_text(encoding="utf-8")
    assert "P001 · study pilot" in fig and "P002 · study pilot" in fig and "demo-both" not in fig


def test_report_draws_lanes_only_for_who_sat_the_item(studied, tmp_path):
    store, pilot, other, ds = studied
    write_report(store, {IB: ds}, tmp_path / "r", items=["color_scene#0"], n_resamples=20, png=False)
    fig = (tmp_path / "r" / "figures" / f"{IB}__color_scene_0.html").read_text(encoding="utf-8")
    assert "P001 · study pilot" in fig and "P001 · study other" in fig
    assert "P002" not in fig and "demo-both" not in fig


def test_report_refuses_an_unknown_study_with_one_line(studied, tmp_path, capsys):
    store, *_ = studied
    from runners.cli import main
    assert main(["report", "--db", str(store.path), "--out", str(tmp_path / "r"), "--study", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --study: no study with id or name 'nope'; studies: ")
    assert "(pilot)" in err[0] and "(other)" in err[0]


def test_compare_ticks_exactly_who_sat_the_item_and_filters_by_study(studied):
    from ibench_ui.compare_service import CompareService
    from ibench_ui.context import AppContext
    store, pilot, other, ds = studied
    svc = CompareService(AppContext(store=store))  # no accounts: the local single user
    p1, p2, o1 = f"human:P001@{pilot}", f"human:P002@{pilot}", f"human:P001@{other}"
    assert svc.sitters("", IB, "ball_counter#0") == [p1, p2, "human:demo-both"]
    assert svc.sitters("", IB, "color_scene#0") == [p1, o1]
    assert svc.sitters("", IB, "ball_counter#0", pilot) == [p1, p2]
    assert svc.sitters("", IB, "color_scene#0", other) == [o1]
    assert [k for _, k in svc.select("", IB, study=pilot).responders] == [p1, p2]
    assert svc.studies("", IB) == [("every responder", ""), (f"study pilot ({pilot})", pilot),
                                   (f"study other ({other})", other)]


def test_export_responses_takes_a_study_by_name(studied):
    from runners.export import response_rows
    store, pilot, other, ds = studied
    by_name = response_rows(store, study="pilot")
    assert by_name == response_rows(store, study=pilot)
    assert sorted((r["participant"], r["item"]) for r in by_name) == [
        ("P001", "ball_counter#0"), ("P001", "color_scene#0"), ("P002", "ball_counter#0")]
