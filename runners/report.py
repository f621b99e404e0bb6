"""Model-vs-human comparison: responders (each participant, the pooled humans, each model run or live model
sitting), per-item lanes of classified
responses, paper tables with bootstrap intervals, human - model differences, rank stability, the
cross-benchmark leaderboard, timeline figures (plotly HTML, matplotlib PNG) and the report writer.
Shared by the Compare / Leaderboard tabs and `python app.py report`."""
from __future__ import annotations

import csv
import html
import io
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence
from urllib.parse import urlencode

from annotation.csv_cells import safe_row
from annotation.dataset import Dataset
from annotation import registry
from annotation.model import Item
from annotation.predictions import item_prediction
from annotation.store import Store, human_responder, model_responder, responder_of
from runners.benchmarks import by_benchmark, hook
from scoring.bootstrap import (DEFAULT_MIN_N, DEFAULT_RESAMPLES, DEFAULT_SEED, BenchStats, Interval, RankStability,
                               item_stats, paired_difference, rank_stability)
from scoring.classify import ResponseVerdict, classify, labels

# one colour per verdict; green = credited, orange = too early, red = penalised, grey = not counted
LABEL_COLORS = {
    "matched": "#2ca02c", "in_window": "#2ca02c", "correct": "#2ca02c", "core": "#2ca02c", "hit": "#2ca02c",
    "counted": "#2ca02c", "premature": "#ff7f0e", "early": "#ff7f0e", "redundant": "#9467bd",
    "spurious": "#d62728", "unmatched": "#d62728", "breaks_silence": "#d62728", "wrong": "#d62728",
    "missed": "#8c564b", "late": "#8c564b", "early+core": "#17becf", "ignored": "#7f7f7f", "neutral": "#7f7f7f",
    "outside": "#7f7f7f", "excluded": "#bbbbbb", "unscored": "#bbbbbb", "response": "#7f7f7f",
}
HEADLINE = by_benchmark("headline_column")  # benchmark -> the column its leaderboard and ranks use


# ---------------------------------------------------------------- responders

POOLED_HUMANS = "humans:pooled"


@dataclass(frozen=True)
class Responder:
    """Whoever answered, on one benchmark, with the items it covers. Grouped by responder, never by
    session: `human:<participant>` holds every session of that person (an item answered twice counts once,
    the latest sitting), `model:<spec>@<run or session>` is one batch run or one live sitting of a model,
    and `humans:pooled` pools every participant (n counts participant x item)."""
    key: str
    kind: str  # human | model
    label: str
    name: str  # the leaderboard row: "human:<participant>", "humans (pooled)" or the model spec
    benchmark: str
    item_ids: tuple[str, ...]
    created: float = 0.0
    sources: tuple = ()  # human: ((item id, session id), ...); model: (run or session id,)
    source_kind: str = ""  # session | run | pooled
    members: tuple[str, ...] = ()  # pooled: the participants' responder keys

    @property
    def pooled(self) -> bool:
        return self.source_kind == "pooled"


def _session_items(store: Store, session, answered: Optional[set] = None) -> tuple[str, ...]:
    """Items a session has covered: all once closed, else those passed or answered."""
    if session.status not in ("open", "", None):
        return tuple(session.item_ids)
    if answered is None:
        answered = {r.item_id for r in store.responses(session_id=session.id)}
    return tuple(iid for i, iid in enumerate(session.item_ids) if i < session.current_index or iid in answered)


def humans_respond(session) -> bool:
    """A session is a human sitting unless its settings say only a live model responds."""
    settings = session.settings or {}
    return not settings.get("model") or settings.get("responders") != "model"


def responders(store: Store, benchmark: str, dataset: Optional[Dataset] = None,
               pooled: bool = True) -> list[Responder]:
    """Every responder with at least one item (of `dataset`) on a benchmark: one per participant (all
    their human sittings), the pooled humans when there are two or more participants (`pooled`), one
    per batch run and one per live model sitting. A model-only session gives no human responder."""
    known = (lambda i: i in dataset) if dataset is not None else (lambda i: True)
    order = {it.id: k for k, it in enumerate(dataset.items)} if dataset is not None else {}
    humans: dict[str, dict[str, str]] = {}  # participant -> item -> session (latest sitting wins)
    latest: dict[str, float] = {}  # participant -> their latest sitting (the leaderboard prefers recent rows)
    out_models = []
    for s in store.sessions(benchmark=benchmark):
        rows = store.responses(session_id=s.id)
        items = tuple(i for i in _session_items(store, s, {r.item_id for r in rows}) if known(i))
        if not items:
            continue
        if humans_respond(s):
            cover = humans.setdefault(s.participant, {})
            for iid in items:
                cover[iid] = s.id
            latest[s.participant] = max(latest.get(s.participant, 0.0), s.created)
        live = {responder_of(r) for r in rows if responder_of(r).startswith("model:")}
        spec = str((s.settings or {}).get("model") or "")
        if spec:
            live.add(model_responder(spec, s.id))
        for key in sorted(live):
            spec_ = key[len("model:"):-len(s.id) - 1]
            out_models.append(Responder(key, "model", f"{spec_} · live {s.id[-6:]}", spec_, benchmark, items,
                                        s.created, (s.id,), "session"))
    out = []
    for participant, cover in humans.items():
        ids = sorted(cover, key=lambda i: order.get(i, 0))
        key = human_responder(participant)
        out.append(Responder(key, "human", key, key, benchmark, tuple(ids), latest[participant],
                             tuple((i, cover[i]) for i in ids), "session"))
    if pooled and len(out) >= 2:
        obs = tuple(f"{i}@{r.key}" for r in out for i in r.item_ids)
        out.append(Responder(POOLED_HUMANS, "human", f"humans (pooled: {len(out)} participants)", "humans (pooled)",
                             benchmark, obs, max(r.created for r in out), (), "pooled", tuple(r.key for r in out)))
    out += out_models
    for r in store.runs(benchmark):
        items = tuple(i for i in store.run_items(r.id) if known(i))
        if items:
            status = "" if r.status == "done" else f" ({r.status})"
            out.append(Responder(model_responder(r.model_spec, r.id), "model",
                                 f"{r.model_spec} · {r.protocol} · {r.id[-6:]}{status}", r.model_spec, benchmark,
                                 items, r.created, (r.id,), "run"))
    return out


def find_responder(store: Store, benchmark: str, key: str, dataset: Optional[Dataset] = None) -> Responder:
    for r in responders(store, benchmark, dataset):
        if r.key == key:
            return r
    raise KeyError(f"no responder {key!r} with items on {benchmark}")


def predictions(store: Store, ds: Dataset, responder: Responder, item_ids: Optional[Iterable[str]] = None) -> dict:
    """item id -> the responder's native prediction: a run's stored one, or the responder's own logged
    responses converted (a human's rows only, never a live model's in the same session, and vice versa)."""
    if responder.pooled:
        raise ValueError("the pooled humans have no predictions of their own; use each participant's")
    ids = list(item_ids) if item_ids is not None else list(responder.item_ids)
    if responder.source_kind == "run":
        stored = store.run_items(responder.sources[0])
        return {i: stored[i]["prediction"] for i in ids if i in stored}
    session_of = dict(responder.sources) if responder.kind == "human" else {i: responder.sources[0] for i in ids}
    by_session: dict[str, dict[str, list]] = {}
    for sid in {session_of[i] for i in ids if i in session_of}:
        rows = by_session.setdefault(sid, {})
        for r in store.responses(session_id=sid):
            if responder_of(r) == responder.key:
                rows.setdefault(r.item_id, []).append(r)
    return {iid: item_prediction(ds.benchmark, ds.get(iid), by_session.get(session_of[iid], {}).get(iid, []))
            for iid in ids if iid in session_of}


# ---------------------------------------------------------------- lanes (Compare)

@dataclass(frozen=True)
class Lane:
    """One responder's classified responses on one item, and the scorer's figures for it on that item."""
    responder: Responder
    verdicts: tuple[ResponseVerdict, ...]
    covered: bool = True
    score: tuple[tuple[str, object], ...] = ()


def item_score(store: Store, item: Item, resp: Responder, pred) -> dict:
    """The scorer's headline figures for one responder on one item: a finished run's own report (its judge
    and settings), else the item scored as a session scores it at item end (`scoring.live`)."""
    from scoring.live import headline, score_prediction

    def per_item(item: Item, rep: dict) -> Optional[dict]:
        return headline(item, rep) if item.id in (rep.get("per_item") or {}) else None

    if resp.source_kind == "run":
        run = store.get_run(resp.sources[0])
        rep = run.report if run is not None and run.status == "done" else None
        own = hook(item.benchmark, "run_item_score", per_item)(item, rep) if rep else None
        if own is not None:
            return own
    return headline(item, score_prediction(item, pred))


def item_lanes(store: Store, ds: Dataset, item_id: str, keys: Sequence[str], judge=None) -> list[Lane]:
    """The lanes of the chosen responders on one item, in the order given."""
    item = ds.get(item_id)
    by_key = {r.key: r for r in responders(store, ds.benchmark, ds, pooled=False)}
    lanes = []
    for key in keys:
        resp = by_key.get(key)
        if resp is None:
            raise KeyError(f"no responder {key!r} with items on {ds.benchmark}")
        covered = item_id in resp.item_ids
        pred = predictions(store, ds, resp, [item_id]).get(item_id) if covered else None
        verdicts = tuple(classify(ds.benchmark, item, pred, judge=judge)) if covered else ()
        score = tuple(item_score(store, item, resp, pred).items()) if covered else ()
        lanes.append(Lane(resp, verdicts, covered, score))
    return lanes


def _media_span(benchmark: str, window) -> Optional[tuple[float, float]]:
    """A target window in media seconds: its start is a benchmark time (`media_time`: ProactiveBench's 1-based
    second k starts at k - 1 s), its end already a media time (that second ends at k); no end: a point."""
    if window is None:
        return None
    s, e = window
    start = registry.get(benchmark).media_time(s)
    return (start, float(e) if e is not None else start)


def _plain(text, limit: int = 160) -> str:
    """Dataset or user text for plotly labels, which render a subset of HTML: escaped, and cut to `limit`."""
    text = str(text or "")
    if len(text) > limit:
        text = text[:limit - 3] + "…"
    return html.escape(text, quote=True)


def _hover(v: ResponseVerdict) -> str:
    delay = "–" if v.delay is None else f"{v.delay:+.2f} s"
    credit = "–" if v.credit is None else f"{v.credit:.2f}"
    return (f"<b>{_plain(v.label)}</b> at {v.t:.2f} s<br>{_plain(v.text)}<br>delay {delay} · credit {credit}"
            f"<br>{_plain(v.detail, 400)}")


def timeline_figure(item: Item, lanes: Sequence[Lane]):
    """Plotly timeline: request, targets and windows on top, one lane per responder, responses coloured
    by verdict; each point's customdata[0] is its media time (click-to-seek uses it)."""
    import plotly.graph_objects as go

    bench = item.benchmark
    names = ["targets"] + [ln.responder.label for ln in lanes]
    fig = go.Figure()
    for t in item.targets:
        span = _media_span(bench, t.window)
        if span and span[1] > span[0]:
            fig.add_vrect(x0=span[0], x1=span[1], fillcolor="#1f77b4", opacity=0.10, line_width=0, layer="below")
        if span:
            fig.add_trace(go.Scatter(x=[span[0], span[1]], y=["targets", "targets"], mode="lines+markers",
                                     line=dict(color="#1f77b4", width=6), marker=dict(size=6),
                                     name=f"target {t.id}", showlegend=False,
                                     hovertext=f"target {_plain(t.id)} ({_plain(t.kind)}) window "
                                               f"[{span[0]:g}, {span[1]:g}]<br>{_plain(t.reference or t.label, 120)}",
                                     hoverinfo="text",
                                     customdata=[[span[0]], [span[1]]]))
        if t.anchor is not None:
            a = registry.get(bench).media_time(t.anchor)
            fig.add_vline(x=a, line_dash="dot", line_color="#1f77b4", opacity=0.6)
    rq = item.request
    fig.add_trace(go.Scatter(x=[rq.time], y=["targets"], mode="markers", marker=dict(symbol="star", size=14,
                             color="#000"), name="request", hoverinfo="text",
                             hovertext=f"request ({_plain(rq.modality)}) at {rq.time:g} s<br>{_plain(rq.text)}",
                             customdata=[[rq.time]]))
    for label in labels(bench):
        xs, ys, hs, cd = [], [], [], []
        for ln in lanes:
            for v in ln.verdicts:
                if v.label == label:
                    xs.append(v.t), ys.append(ln.responder.label), hs.append(_hover(v)), cd.append([v.t])
        if xs:
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=label, hovertext=hs, hoverinfo="text",
                                     customdata=cd, marker=dict(size=13, color=LABEL_COLORS.get(label, "#444"),
                                                                line=dict(width=1, color="#222"))))
    end = item.stream.duration or max([1.0] + [v.t for ln in lanes for v in ln.verdicts] +
                                      [(_media_span(bench, t.window) or (0, 0))[1] for t in item.targets])
    fig.update_layout(height=140 + 60 * len(names), margin=dict(l=10, r=10, t=40, b=40),
                      title=f"{bench} · {item.id}", xaxis_title="media time (s)", clickmode="event",
                      legend=dict(orientation="h", y=-0.25), hovermode="closest")
    fig.update_xaxes(range=[-0.5, float(end) + 0.5])
    fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(names)), type="category")
    return fig


def timeline_png(item: Item, lanes: Sequence[Lane], path: str | Path) -> Path:
    """The same timeline as a static PNG (matplotlib, no browser needed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bench = item.benchmark
    names = ["targets"] + [ln.responder.label for ln in lanes]
    ypos = {n: len(names) - 1 - i for i, n in enumerate(names)}
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.6 * len(names)))
    for t in item.targets:
        span = _media_span(bench, t.window)
        if span:
            ax.axvspan(span[0], max(span[1], span[0] + 0.05), color="#1f77b4", alpha=0.12)
            ax.plot([span[0], span[1]], [ypos["targets"]] * 2, color="#1f77b4", lw=5)
        if t.anchor is not None:
            ax.axvline(registry.get(bench).media_time(t.anchor), color="#1f77b4", ls=":")
    ax.plot([item.request.time], [ypos["targets"]], marker="*", color="k", ms=14, ls="none", label="request")
    for label in labels(bench):
        pts = [(v.t, ypos[ln.responder.label]) for ln in lanes for v in ln.verdicts if v.label == label]
        if pts:
            ax.plot(*zip(*pts), marker="o", ls="none", ms=9, color=LABEL_COLORS.get(label, "#444"),
                    markeredgecolor="#222", label=label)
    ax.set_yticks(list(ypos.values()), list(ypos.keys()))
    ax.set_ylim(-0.7, len(names) - 0.3)
    ax.set_xlabel("media time (s)")
    ax.set_title(f"{bench} · {item.id}")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(names) < 4 else -0.2), ncol=6, fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def lane_counts(lanes: Sequence[Lane], benchmark: str) -> list[tuple[str, dict[str, int]]]:
    """Per lane, how many responses got each label (the Compare tab's summary under the plot)."""
    out = []
    for ln in lanes:
        counts = {lab: sum(1 for v in ln.verdicts if v.label == lab) for lab in labels(benchmark)}
        out.append((ln.responder.label, {k: v for k, v in counts.items() if v}))
    return out


# ---------------------------------------------------------------- tables

@dataclass
class ResponderScores:
    """One responder's scorer report on the items it covers (the figures), its per-item statistics (for
    resampling only) and its interval per column."""
    responder: Responder
    report: dict
    stats: BenchStats
    columns: dict[str, Interval]
    source: str = ""  # where the report comes from: the run's own report, or scored for this table
    groups: dict = field(default_factory=dict)  # breakdown dimension -> [(group, interval)]


@dataclass
class BenchmarkTables:
    """Everything the report shows for one benchmark."""
    benchmark: str
    columns: list[str]
    rows: list[ResponderScores]
    breakdowns: dict[str, list[tuple[str, str, Interval]]] = field(default_factory=dict)  # dim -> (resp, group, iv)
    differences: list[tuple[str, str, str, int, Interval]] = field(default_factory=list)  # human, model, col, n, iv
    ranks: list[RankStability] = field(default_factory=list)
    rank_items: int = 0
    rank_note: str = ""  # why there is no rank stability table
    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    min_n: int = DEFAULT_MIN_N


def _model_name(resp: Responder) -> str:
    return resp.name.replace("human:", "human_")


def score_responder(store: Store, ds: Dataset, resp: Responder, judge: Optional[str] = None) -> dict:
    """The scorer's report for the responder (see `_report_of`)."""
    return _report_of(store, ds, resp, judge)[0]


def _report_of(store: Store, ds: Dataset, resp: Responder, judge: Optional[str] = None) -> tuple[dict, str]:
    """The benchmark scorer's report for the responder on exactly the items it covers, under the same
    settings as its own figures: a finished run's stored report (its judge, its verdicts, its failures),
    re-scored only for another judge or another item set."""
    from runners.evaluate import score_predictions
    if resp.pooled:
        raise ValueError("score the pooled humans with pooled_report")
    if resp.source_kind == "run":
        run = store.get_run(resp.sources[0])
        run_judge = (run.config or {}).get("judge") if run is not None else None
        if (run is not None and run.status == "done" and run.report and (judge is None or judge == run_judge)
                and set(resp.item_ids) == set(store.run_items(run.id))):
            return run.report, "the run's own report"
        judge = judge if judge is not None else run_judge
    preds = predictions(store, ds, resp)
    ids = [i for i in resp.item_ids if i in preds]
    report = score_predictions(ds.benchmark, ds, ids, preds, judge=judge, store=store, model=_model_name(resp))
    return report, f"scored now (judge {judge or 'default'})"


def pooled_report(store: Store, ds: Dataset, parts: Sequence[tuple[Responder, dict]],
                  judge: Optional[str] = None) -> dict:
    """The scorer's report over every participant's items at once (item ids become `<item>@<responder>`,
    one observation each): the benchmark's `pooled_report` hook, from the participants' reports (through the
    scorer's own aggregation) or their predictions (scoring the relabelled items)."""
    return hook(ds.benchmark, "pooled_report")(ds, parts, lambda r: predictions(store, ds, r), judge=judge,
                                                store=store)


def figures(benchmark: str, report: Mapping, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
            level: float = 0.95, min_n: int = DEFAULT_MIN_N) -> tuple[BenchStats, dict[str, Interval],
                                                                      dict[str, list[tuple[str, Interval]]]]:
    """What every table shows for one scorer report: its per-item statistics, the paper columns and the
    breakdowns (dimension -> [(group, interval)]), each the scorer's own figure with its interval."""
    bs = item_stats(benchmark, report)
    cols = {c: bs.interval(c, n_resamples, seed, level, min_n) for c in bs.table}
    groups = {dim: [(g, bs.interval(key, n_resamples, seed, level, min_n)) for g, key in entries]
              for dim, entries in bs.breakdowns.items()}
    return bs, cols, groups


def _scores(resp: Responder, report: dict, source: str, n_resamples: int, seed: int, level: float,
            min_n: int) -> ResponderScores:
    bs, cols, groups = figures(resp.benchmark, report, n_resamples, seed, level, min_n)
    return ResponderScores(resp, report, bs, cols, source, groups)


def benchmark_tables(store: Store, ds: Dataset, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                     level: float = 0.95, judge: Optional[str] = None,
                     keys: Optional[Sequence[str]] = None, min_n: int = DEFAULT_MIN_N) -> BenchmarkTables:
    """Paper table for every responder (the scorer's figures, with an interval when n >= min_n),
    the scorer's breakdowns, human - model differences on shared items, and rank stability on the
    items every (unpooled) responder covers."""
    bench = ds.benchmark
    resps = [r for r in responders(store, bench, ds) if keys is None or r.key in keys]
    rows: list[ResponderScores] = []
    for r in resps:
        if not r.pooled:
            report, src = _report_of(store, ds, r, judge)
            rows.append(_scores(r, report, src, n_resamples, seed, level, min_n))
    scored = {rs.responder.key: (rs.responder, rs.report) for rs in rows}
    for r in resps:
        if r.pooled:
            members = [m for m in responders(store, bench, ds, pooled=False) if m.key in r.members]
            parts = [scored.get(m.key) or (m, _report_of(store, ds, m, judge)[0]) for m in members]
            rows.append(_scores(r, pooled_report(store, ds, parts, judge), "pooled", n_resamples, seed, level,
                                min_n))
    rows.sort(key=lambda rs: ({"human": 0, "model": 1}[rs.responder.kind], rs.responder.pooled))
    columns = rows[0].stats.table if rows else []
    out = BenchmarkTables(bench, list(columns), rows, n_resamples=n_resamples, seed=seed, min_n=min_n)
    for rs in rows:
        for dim, groups in rs.groups.items():
            for group, iv in groups:
                out.breakdowns.setdefault(dim, []).append((rs.responder.label, group, iv))
    single = [r for r in rows if not r.responder.pooled]
    humans = [r for r in single if r.responder.kind == "human"]
    models = [r for r in single if r.responder.kind == "model"]
    for h in humans:
        for m in models:
            common = [i for i in h.stats.item_ids if i in set(m.stats.item_ids)]
            if not common:
                continue
            hs, ms = h.stats.subset(common), m.stats.subset(common)
            for c in columns:
                iv = paired_difference(hs.stats, hs.metrics[c], ms.stats, ms.metrics[c], n_resamples, seed, level,
                                       hs.strata, points=(hs.point(c), ms.point(c)), min_n=min_n,
                                       n_items=min(hs.n_for(c), ms.n_for(c)))
                out.differences.append((h.responder.label, m.responder.label, c, len(common), iv))
    if len(single) >= 2:
        common = set(single[0].stats.item_ids)
        for r in single[1:]:
            common &= set(r.stats.item_ids)
        ordered = [i for i in single[0].stats.item_ids if i in common]
        out.rank_items = len(ordered)
        if len(ordered) < min_n:
            out.rank_note = (f"not computed: the {len(single)} responders share {len(ordered)} item(s), "
                             f"fewer than {min_n}")
        else:
            subs = [r.stats.subset(ordered) for r in single]
            head = subs[0].headline
            out.ranks = rank_stability([s.stats for s in subs], [s.metrics[head] for s in subs],
                                       [r.responder.label for r in single], n_resamples, seed, True, level,
                                       subs[0].strata, points=[s.point(head) for s in subs])
    return out


def compare_link(benchmark: str, keys: Sequence[str], item_id: Optional[str] = None) -> str:
    """A relative URL that opens the Compare tab on these responders (and item)."""
    q = {"view": "compare", "benchmark": benchmark, "responders": ",".join(keys)}
    if item_id:
        q["item"] = item_id
    return "?" + urlencode(q)


@dataclass(frozen=True)
class LeaderRow:
    """One responder name across benchmarks: per benchmark its headline interval and responder key."""
    name: str
    kind: str
    cells: dict  # benchmark -> (Interval, responder key, n_items)


def leaderboard(tables: Mapping[str, BenchmarkTables]) -> list[LeaderRow]:
    """One row per participant (all their sittings), one for the pooled humans, one per model spec (its
    run with the most items, then the latest); humans and models never share a row."""
    acc: dict[tuple[str, str], dict] = {}
    for bench, tb in tables.items():
        head = HEADLINE[bench]
        best: dict[tuple[str, str], ResponderScores] = {}
        for rs in tb.rows:
            k = (rs.responder.name, rs.responder.kind)
            cur = best.get(k)
            if cur is None or (len(rs.responder.item_ids), rs.responder.created) > (
                    len(cur.responder.item_ids), cur.responder.created):
                best[k] = rs
        for k, rs in best.items():
            acc.setdefault(k, {})[bench] = (rs.columns.get(head), rs.responder.key, len(rs.stats.item_ids))
    rows = [LeaderRow(name, kind, cells) for (name, kind), cells in acc.items()]
    return sorted(rows, key=lambda r: -_mean_headline(r))


def _mean_headline(row: LeaderRow) -> float:
    vals = [iv.point for iv, _, _ in row.cells.values() if iv is not None and iv.point is not None]
    return sum(vals) / len(vals) if vals else float("-inf")


# ---------------------------------------------------------------- writing

def _fmt(iv: Optional[Interval]) -> str:
    return "–" if iv is None else iv.fmt(1)


def _md_table(headers: Sequence[str], rows: Iterable[Sequence]) -> str:
    esc = lambda v: str(v).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(esc(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _iv_cells(iv: Optional[Interval]) -> list:
    """value, low, high, n, note (why there is no interval)."""
    if iv is None:
        return ["", "", "", "", ""]
    return ["" if v is None else round(v, 4) for v in (iv.point, iv.low, iv.high)] + [iv.n_items, iv.reason]


IV_SUFFIXES = ("", "_low", "_high", "_n", "_note")


def table_rows(tb: BenchmarkTables) -> list[list]:
    """The main table as CSV rows: responder, kind, key, n_items, source, then value/low/high/n/note per column."""
    out = []
    for rs in tb.rows:
        row = [rs.responder.label, rs.responder.kind, rs.responder.key, len(rs.stats.item_ids), rs.source]
        for c in tb.columns:
            row += _iv_cells(rs.columns.get(c))
        out.append(row)
    return out


def table_header(tb: BenchmarkTables) -> list[str]:
    return ["responder", "kind", "key", "n_items", "source"] + [f"{c}{s}" for c in tb.columns for s in IV_SUFFIXES]


def _write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(safe_row(header))
        w.writerows(safe_row(r) for r in rows)
    return path


def markdown_section(tb: BenchmarkTables, level: float = 0.95) -> str:
    """One benchmark's Markdown: the paper table, breakdowns, differences and rank stability."""
    pct = int(round(level * 100))
    parts = [f"## {tb.benchmark}", "",
             f"The scorer's own figures, with {pct}% bootstrap intervals over items ({tb.n_resamples} resamples, "
             f"seed {tb.seed}); n = the items each figure counts; no interval from fewer than {tb.min_n} items.",
             ""]
    if not tb.rows:
        return "\n".join(parts + ["No human sessions or model runs.", ""])
    extra = list(hook(tb.benchmark, "report_extra_columns", tuple)())
    headers = ["responder", "kind", "n"] + tb.columns + extra + ["figures from"]
    rows = []
    for rs in tb.rows:
        row = [rs.responder.label, rs.responder.kind, len(rs.stats.item_ids)] + [_fmt(rs.columns.get(c))
                                                                                 for c in tb.columns]
        row += [(rs.report.get("table") or {}).get(c, "–") for c in extra]
        rows.append(row + [rs.source])
    parts += [_md_table(headers, rows), ""]
    for dim, entries in tb.breakdowns.items():
        if entries:
            parts += [f"### by {dim}", "", _md_table(["responder", dim, "value"],
                                                     [(r, g, _fmt(iv)) for r, g, iv in entries]), ""]
    if tb.differences:
        parts += ["### human − model (paired on shared items)", "",
                  _md_table(["human", "model", "column", "n", "difference"],
                            [(h, m, c, n, _fmt(iv)) for h, m, c, n, iv in tb.differences]), ""]
    if tb.ranks:
        parts += [f"### rank stability ({HEADLINE[tb.benchmark]}, {tb.rank_items} shared items)", "",
                  "Ties are ties: tied responders share a rank (shown as 1=); P(best) counts resamples where a "
                  "responder is best alone, P(tied best) those where it shares rank 1.", "",
                  _md_table(["responder", "rank", "tied with", "mean rank", "P(same rank)", "P(best)", "P(tied best)",
                             f"{pct}% rank range"],
                            [(r.name, r.rank_label, ", ".join(r.tied_with) or "–", f"{r.mean_rank:.2f}",
                              f"{r.p_same_rank:.2f}", f"{r.p_best:.2f}", f"{r.p_tied_best:.2f}",
                              f"{r.rank_low}–{r.rank_high}") for r in tb.ranks]), ""]
    elif tb.rank_note:
        parts += [f"### rank stability ({HEADLINE[tb.benchmark]})", "", tb.rank_note, ""]
    return "\n".join(parts)


def default_figure_items(store: Store, ds: Dataset, limit: int = 5) -> list[str]:
    """Items worth a figure: those some human answered, else those any responder covers (dataset order)."""
    rs = responders(store, ds.benchmark, ds, pooled=False)
    human = {i for r in rs if r.kind == "human" for i in r.item_ids}
    anyone = {i for r in rs for i in r.item_ids}
    chosen = [it.id for it in ds.items if it.id in human] or [it.id for it in ds.items if it.id in anyone]
    return chosen[:limit]


def write_report(store: Store, datasets: Mapping[str, Dataset], out_dir: str | Path,
                 items: Optional[Sequence[str]] = None, n_resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED, level: float = 0.95, judge: Optional[str] = None,
                 figures: bool = True, png: bool = True, max_items: int = 5,
                 min_n: int = DEFAULT_MIN_N) -> list[Path]:
    """Write report.md, per-benchmark CSV tables (main, breakdown, differences, ranks), leaderboard.csv
    and timeline figures (HTML + PNG) for the chosen items under out_dir; returns the files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    tables: dict[str, BenchmarkTables] = {}
    md = ["# ibench-ui report", "", f"Generated {time.strftime('%Y-%m-%d %H:%M:%S')} from {store.path}.", ""]
    for bench in [b for b in registry.names() if b in datasets]:
        ds = datasets[bench]
        if not responders(store, bench, ds):
            continue
        tb = benchmark_tables(store, ds, n_resamples, seed, level, judge, min_n=min_n)
        tables[bench] = tb
        md.append(markdown_section(tb, level))
        written.append(_write_csv(out / f"{bench}_table.csv", table_header(tb), table_rows(tb)))
        written.append(_write_csv(out / f"{bench}_breakdown.csv",
                                  ["dimension", "responder", "group", "value", "low", "high", "n", "note"],
                                  [[d, r, g, *_iv_cells(iv)] for d, es in tb.breakdowns.items() for r, g, iv in es]))
        written.append(_write_csv(out / f"{bench}_differences.csv",
                                  ["human", "model", "column", "n_items", "difference", "low", "high", "n", "note"],
                                  [[h, m, c, n, *_iv_cells(iv)] for h, m, c, n, iv in tb.differences]))
        written.append(_write_csv(out / f"{bench}_ranks.csv",
                                  ["responder", "point_rank", "tied_with", "mean_rank", "p_same_rank", "p_best",
                                   "p_tied_best", "rank_low", "rank_high", "n_items"],
                                  [[r.name, r.point_rank, ";".join(r.tied_with), round(r.mean_rank, 4),
                                    round(r.p_same_rank, 4), round(r.p_best, 4), round(r.p_tied_best, 4), r.rank_low,
                                    r.rank_high, tb.rank_items] for r in tb.ranks]))
        if figures:
            chosen = [i for i in items if i in ds] if items else default_figure_items(store, ds, max_items)
            keys = [rs.responder.key for rs in tb.rows if not rs.responder.pooled]
            if chosen:
                md += ["### timelines", ""]
            for iid in chosen:
                lanes = item_lanes(store, ds, iid, keys)
                stem = out / "figures" / f"{bench}__{_safe(iid)}"
                stem.parent.mkdir(parents=True, exist_ok=True)
                html = stem.with_suffix(".html")
                timeline_figure(ds.get(iid), lanes).write_html(str(html), include_plotlyjs="directory")
                written.append(html)
                line = f"- `{iid}`: [interactive](figures/{html.name})"
                if png:
                    p = timeline_png(ds.get(iid), lanes, stem.with_suffix(".png"))
                    written.append(p)
                    line += f" · ![{iid}](figures/{p.name})"
                md.append(line)
            md.append("")
    board = leaderboard(tables)
    benches = list(tables)
    written.append(_write_csv(out / "leaderboard.csv", ["name", "kind"] + [f"{b}{s}" for b in benches
                                                                          for s in IV_SUFFIXES],
                              [[r.name, r.kind] + [x for b in benches for x in (
                                  _iv_cells(r.cells[b][0]) if b in r.cells else [""] * len(IV_SUFFIXES))]
                               for r in board]))
    md += ["## leaderboard", "", _md_table(["name", "kind"] + [f"{b} ({HEADLINE[b]})" for b in benches],
                                           [[r.name, r.kind] + [_fmt(r.cells[b][0]) if b in r.cells else "–"
                                                                for b in benches] for r in board]), ""]
    if not tables:
        md.append("No human sessions or model runs in this store yet.")
    (out / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    written.insert(0, out / "report.md")
    return written


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def zip_dir(folder: str | Path) -> bytes:
    """The folder as a zip archive in memory (the UI's download)."""
    import zipfile
    buf = io.BytesIO()
    folder = Path(folder)
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                z.write(p, p.relative_to(folder))
    return buf.getvalue()
