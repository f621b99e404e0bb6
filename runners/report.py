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
                               difference_bounds, item_stats, paired_difference, rank_stability, within)
from scoring.classify import ResponseVerdict, classify, labels

# one colour per verdict; green = credited, orange = too early, red = penalised, grey = not counted
LABEL_COLORS = {
    "matched": "#2ca02c", "in_window": "#2ca02c", "correct": "#2ca02c", "core": "#2ca02c", "hit": "#2ca02c",
    "counted": "#2ca02c", "premature": "#ff7f0e", "early": "#ff7f0e", "redundant": "#9467bd",
    "spurious": "#d62728", "unmatched": "#d62728", "breaks_silence": "#d62728", "wrong": "#d62728",
    "missed": "#8c564b", "late": "#8c564b", "early+core": "#17becf", "ignored": "#7f7f7f", "neutral": "#7f7f7f",
    "outside": "#7f7f7f", "excluded": "#bbbbbb", "unscored": "#bbbbbb", "response": "#7f7f7f",
    "judge_failed": "#000000", "unjudged": "#000000",  # missing data: a judge call that failed
}
HEADLINE = by_benchmark("headline_column")  # benchmark -> the column its leaderboard and ranks use


# ---------------------------------------------------------------- responders

POOLED_HUMANS = "humans:pooled"


ORIGINS = {"participant": "study participant", "studio": "studio session", "model": "model"}


@dataclass(frozen=True)
class Responder:
    """Whoever answered, on one benchmark, with the items it covers. Grouped by responder, never by
    session: `human:<participant>@<study id>` holds a study participant's sittings of that study,
    `human:<participant>` a person's studio sittings (an item answered twice counts once, the latest sitting),
    `model:<spec>@<run or session>` is one batch run or one live sitting of a model, and `humans:pooled` pools
    the study participants (n counts participant x item). `origin` says which of the three it is."""
    key: str
    kind: str  # human | model
    label: str
    name: str  # the leaderboard row: the human key, "humans (pooled)" or the model spec
    benchmark: str
    item_ids: tuple[str, ...]
    created: float = 0.0
    sources: tuple = ()  # human: ((item id, session id), ...); model: (run or session id,)
    source_kind: str = ""  # session | run | pooled
    members: tuple[str, ...] = ()  # pooled: the participants' responder keys
    origin: str = ""  # participant (a study's) | studio (a session opened in the studio) | model
    who: str = ""  # human: the participant; live model: who opened the session
    study: str = ""  # a study participant's (or a pool of one study's) study id

    @property
    def pooled(self) -> bool:
        return self.source_kind == "pooled"


def when(ts: float) -> str:
    """A responder's date in labels: UTC to the minute, e.g. "2026-11-30 14:02"."""
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(ts))


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


def study_id(store: Store, study: Optional[str]) -> Optional[str]:
    """The id of a study named by id or name (None: no filter); KeyError naming the studies otherwise."""
    if not study:
        return None
    from annotation.studies import find_study
    return find_study(store, study).id


def responders(store: Store, benchmark: str, dataset: Optional[Dataset] = None,
               pooled: bool = True, study: Optional[str] = None, pool_studio: bool = False) -> list[Responder]:
    """Every responder with at least one item (of `dataset`) on a benchmark: one per study participant (their
    sittings of that study), one per person's studio sittings, the pooled humans when two or more study
    participants (`pooled`; with `pool_studio`, studio sittings too) have items, one per batch run and one per
    live model sitting. With `study` (an id), only that study's participants are human responders. A model-only
    session gives no human responder."""
    from annotation.studies import list_studies
    known = (lambda i: i in dataset) if dataset is not None else (lambda i: True)
    order = {it.id: k for k, it in enumerate(dataset.items)} if dataset is not None else {}
    names = {st.id: st.name for st in list_studies(store)}
    humans: dict[tuple[str, str], dict[str, str]] = {}  # (participant, study id) -> item -> session (latest wins)
    latest: dict[tuple[str, str], float] = {}  # the latest sitting (the leaderboard prefers recent rows)
    out_models = []
    for s in store.sessions(benchmark=benchmark):
        rows = store.responses(session_id=s.id)
        items = tuple(i for i in _session_items(store, s, {r.item_id for r in rows}) if known(i))
        if not items:
            continue
        sid = str((s.settings or {}).get("study_id") or "")
        if humans_respond(s) and (study is None or sid == study):
            group = (s.participant, sid)
            cover = humans.setdefault(group, {})
            for iid in items:
                cover[iid] = s.id
            latest[group] = max(latest.get(group, 0.0), s.created)
        live = {responder_of(r) for r in rows if responder_of(r).startswith("model:")}
        spec = str((s.settings or {}).get("model") or "")
        if spec:
            live.add(model_responder(spec, s.id))
        for key in sorted(live):
            spec_ = key[len("model:"):-len(s.id) - 1]
            out_models.append(Responder(key, "model", f"{spec_} · live session by {s.participant} · {when(s.created)}"
                                        f" · {s.id[-6:]}", spec_, benchmark, items, s.created, (s.id,), "session",
                                        origin="model", who=s.participant))
    out = []
    for (participant, sid), cover in humans.items():
        ids = sorted(cover, key=lambda i: order.get(i, 0))
        base = human_responder(participant)
        key, label = (f"{base}@{sid}", f"{participant} · study {names.get(sid) or sid} · ") if sid else \
            (base, f"{participant} · studio session · ")
        out.append(Responder(key, "human", label + when(latest[(participant, sid)]), key, benchmark, tuple(ids),
                             latest[(participant, sid)], tuple((i, cover[i]) for i in ids), "session",
                             origin="participant" if sid else "studio", who=participant, study=sid))
    pool = [r for r in out if r.origin == "participant" or pool_studio]
    if pooled and len(pool) >= 2:
        obs = tuple(f"{i}@{r.key}" for r in pool for i in r.item_ids)
        kinds = "participants" if not pool_studio else "participants and studio sessions"
        scope = f", study {names.get(study) or study}" if study else ""
        out.append(Responder(POOLED_HUMANS, "human", f"humans (pooled: {len(pool)} {kinds}{scope})",
                             "humans (pooled)", benchmark, obs, max(r.created for r in pool), (), "pooled",
                             tuple(r.key for r in pool), origin="participant" if not pool_studio else "",
                             study=study or ""))
    out += out_models
    for r in store.runs(benchmark):
        items = tuple(i for i in store.run_items(r.id) if known(i))
        if items:
            status = "" if r.status == "done" else f" ({r.status})"
            out.append(Responder(model_responder(r.model_spec, r.id), "model",
                                 f"{r.model_spec} · {r.protocol} · run {when(r.created)} · {r.id[-6:]}{status}",
                                 r.model_spec, benchmark, items, r.created, (r.id,), "run", origin="model"))
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
            if responder_of(r) == (human_responder(responder.who) if responder.kind == "human" else responder.key):
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


def item_report(store: Store, item: Item, resp: Responder, pred) -> tuple[dict, dict]:
    """The scorer's report on one responder's item and its headline figures: a finished run's own report (its
    judge and settings) when it holds the item, else the item scored as a session scores it at item end
    (`scoring.live`). The lane's labels are read off the same report."""
    from scoring.live import headline, score_prediction

    def per_item(item: Item, rep: dict) -> Optional[dict]:
        return headline(item, rep) if item.id in (rep.get("per_item") or {}) else None

    if resp.source_kind == "run":
        run = store.get_run(resp.sources[0])
        rep = run.report if run is not None and run.status == "done" else None
        own = hook(item.benchmark, "run_item_score", per_item)(item, rep) if rep else None
        if own is not None:
            return rep, own
    rep = score_prediction(item, pred)
    return rep, headline(item, rep)


def item_lanes(store: Store, ds: Dataset, item_id: str, keys: Sequence[str]) -> list[Lane]:
    """The lanes of the chosen responders on one item, in the order given; each response labelled as the
    scorer's report on that responder's item counts it (`scoring.classify`)."""
    item = ds.get(item_id)
    by_key = {r.key: r for r in responders(store, ds.benchmark, ds, pooled=False)}
    lanes = []
    for key in keys:
        resp = by_key.get(key)
        if resp is None:
            raise KeyError(f"no responder {key!r} with items on {ds.benchmark}")
        if item_id not in resp.item_ids:
            lanes.append(Lane(resp, (), False, ()))
            continue
        pred = predictions(store, ds, resp, [item_id]).get(item_id)
        rep, score = item_report(store, item, resp, pred)
        lanes.append(Lane(resp, tuple(classify(ds.benchmark, item, pred, rep)), True, tuple(score.items())))
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
    ci: str = "ours"  # "paper": the benchmark's own published procedure beside ours (its paper_intervals hook)
    paper: dict = field(default_factory=dict)  # responder key -> Interval of the headline by the paper's procedure
    allowances: dict = field(default_factory=dict)  # human responder key -> the human-reference allowances used

    @property
    def paper_note(self) -> str:
        """How the paper's intervals were made ("" when this table has none)."""
        return hook(self.benchmark, "paper_ci_note")() if self.paper else ""


CI_CHOICES = ("ours", "paper")  # report --ci, the Leaderboard's interval choice


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
                     keys: Optional[Sequence[str]] = None, min_n: int = DEFAULT_MIN_N,
                     ci: str = "ours", study: Optional[str] = None, pool_studio: bool = False) -> BenchmarkTables:
    """Paper table for every responder (the scorer's figures, with an interval when n >= min_n),
    the scorer's breakdowns, human - model differences on shared items, and rank stability on the
    items every (unpooled) responder covers; with ci="paper", also the benchmark's published intervals of
    the headline over the rows in table order; each human row's human-reference allowances. `study` (an id) and
    `pool_studio` choose the human responders and the pool as `responders` does."""
    bench = ds.benchmark
    if ci not in CI_CHOICES:
        raise ValueError(f"ci must be one of {', '.join(CI_CHOICES)}, got {ci!r}")
    everyone = responders(store, bench, ds, study=study, pool_studio=pool_studio)
    resps = [r for r in everyone if keys is None or r.key in keys]
    rows: list[ResponderScores] = []
    for r in resps:
        if not r.pooled:
            report, src = _report_of(store, ds, r, judge)
            rows.append(_scores(r, report, src, n_resamples, seed, level, min_n))
    scored = {rs.responder.key: (rs.responder, rs.report) for rs in rows}
    for r in resps:
        if r.pooled:
            members = [m for m in everyone if m.key in r.members]
            parts = [scored.get(m.key) or (m, _report_of(store, ds, m, judge)[0]) for m in members]
            rows.append(_scores(r, pooled_report(store, ds, parts, judge), "pooled", n_resamples, seed, level,
                                min_n))
    rows.sort(key=lambda rs: ({"human": 0, "model": 1}[rs.responder.kind], rs.responder.pooled))
    columns = rows[0].stats.table if rows else []
    out = BenchmarkTables(bench, list(columns), rows, n_resamples=n_resamples, seed=seed, min_n=min_n, ci=ci)
    if ci == "paper" and registry.get(bench).has_hook("runners", "paper_intervals"):
        out.paper = dict(zip((rs.responder.key for rs in rows), hook(bench, "paper_intervals")([rs.report
                                                                                                for rs in rows])))
    if registry.get(bench).has_hook("runners", "human_allowances"):
        out.allowances = {rs.responder.key: hook(bench, "human_allowances")(ds, predictions(store, ds, rs.responder),
                                                                            rs.report)
                          for rs in rows if rs.responder.kind == "human" and not rs.responder.pooled}
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
                iv = within(paired_difference(hs.stats, hs.metrics[c], ms.stats, ms.metrics[c], n_resamples, seed,
                                              level, hs.strata, points=(hs.point(c), ms.point(c)), min_n=min_n,
                                              n_items=min(hs.n_for(c), ms.n_for(c))),
                            difference_bounds(hs.range_of(c), ms.range_of(c)))
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


def compare_link(benchmark: str, keys: Sequence[str], item_id: Optional[str] = None, study: str = "") -> str:
    """A relative URL that opens the Compare tab on these responders (and item, and study filter)."""
    q = {"view": "compare", "benchmark": benchmark, "responders": ",".join(keys)}
    if item_id:
        q["item"] = item_id
    if study:
        q["study"] = study
    return "?" + urlencode(q)


@dataclass(frozen=True)
class LeaderRow:
    """One responder name across benchmarks: per benchmark its headline interval and responder key; its origin
    (study participant, studio session, model; "" for a pool of both) and whether any figure rests on fewer
    items than its benchmark's minimum n."""
    name: str
    kind: str
    cells: dict  # benchmark -> (Interval, responder key, n_items)
    origin: str = ""
    under_n: bool = False

    @property
    def kind_label(self) -> str:
        """What the row is, in words: "study participant", "studio session", "model", "pooled humans"."""
        if self.name == "humans (pooled)":
            return "pooled " + ("study participants" if self.origin == "participant" else "humans")
        return ORIGINS.get(self.origin, self.kind)


def leaderboard(tables: Mapping[str, BenchmarkTables]) -> list[LeaderRow]:
    """One row per study participant, per person's studio sittings, the pooled humans, one per model spec (its
    run with the most items, then the latest); humans and models never share a row. Ranked by the mean
    headline, except that a row with a figure below its benchmark's minimum n comes after every row without
    one: a figure on too few items is never ranked above a better-supported one."""
    acc: dict[tuple[str, str], dict] = {}
    origin: dict[tuple[str, str], str] = {}
    under: dict[tuple[str, str], bool] = {}
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
            iv = rs.columns.get(head)
            acc.setdefault(k, {})[bench] = (iv, rs.responder.key, len(rs.stats.item_ids))
            origin[k] = rs.responder.origin
            if iv is not None and iv.point is not None and iv.n_items < tb.min_n:
                under[k] = True
    rows = [LeaderRow(name, kind, cells, origin[(name, kind)], under.get((name, kind), False))
            for (name, kind), cells in acc.items()]
    return sorted(rows, key=lambda r: (r.under_n, -_mean_headline(r)))


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


def paper_cells(iv: Optional[Interval]) -> list:
    """value, low, high, n, note of a paper interval, formatted as the paper's CSV writes them (2 decimals)."""
    if iv is None or iv.point is None:
        return ["", "", "", "", iv.reason if iv is not None else ""]
    return [f"{iv.point:.2f}", f"{iv.low:.2f}", f"{iv.high:.2f}", iv.n_items, ""]


def paper_text(iv: Optional[Interval]) -> str:
    """A paper interval as its CSV rounds it: "66.09 [51.22, 79.49] n=23", or "– (no scored records)"."""
    if iv is None:
        return "–"
    return iv.fmt(2) if iv.point is not None else f"– ({iv.reason})"


def table_rows(tb: BenchmarkTables) -> list[list]:
    """The main table as CSV rows: responder, kind, key, n_items, source, then value/low/high/n/note per column;
    with the paper's intervals, theirs for the headline; then the human-reference allowances (human rows)."""
    out = []
    for rs in tb.rows:
        key = rs.responder.key
        row = [rs.responder.label, rs.responder.kind, key, len(rs.stats.item_ids), rs.source]
        for c in tb.columns:
            row += _iv_cells(rs.columns.get(c))
        if tb.paper:
            row += paper_cells(tb.paper.get(key))
        out.append(row + [tb.allowances.get(key, "")])
    return out


def table_header(tb: BenchmarkTables) -> list[str]:
    paper = [f"{HEADLINE[tb.benchmark]}_paper{s}" for s in IV_SUFFIXES] if tb.paper else []
    return (["responder", "kind", "key", "n_items", "source"] + [f"{c}{s}" for c in tb.columns for s in IV_SUFFIXES]
            + paper + ["allowances"])


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
             f"seed {tb.seed}; ours); n = the items each figure counts; no interval from fewer than {tb.min_n} items.",
             ""]
    if tb.paper:
        parts += [f"{HEADLINE[tb.benchmark]} (paper CI) is the {tb.paper_note}.", ""]
    if not tb.rows:
        return "\n".join(parts + ["No human sessions or model runs.", ""])
    extra = list(hook(tb.benchmark, "report_extra_columns", tuple)())
    paper = [f"{HEADLINE[tb.benchmark]} (paper CI)"] if tb.paper else []
    allow = ["allowances (human rows)"] if tb.allowances else []
    headers = ["responder", "kind", "n"] + tb.columns + paper + extra + ["figures from"] + allow
    rows = []
    for rs in tb.rows:
        key = rs.responder.key
        row = [rs.responder.label, rs.responder.kind, len(rs.stats.item_ids)] + [_fmt(rs.columns.get(c))
                                                                                 for c in tb.columns]
        row += [paper_text(tb.paper.get(key))] if tb.paper else []
        row += [(rs.report.get("table") or {}).get(c, "–") for c in extra]
        rows.append(row + [rs.source] + ([tb.allowances.get(key, "–")] if tb.allowances else []))
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


def answered_items(store: Store, ds: Dataset, study: Optional[str] = None) -> list[str]:
    """Items worth a figure: those some human answered, else those any responder covers (dataset order)."""
    rs = responders(store, ds.benchmark, ds, pooled=False, study=study)
    human = {i for r in rs if r.kind == "human" for i in r.item_ids}
    anyone = {i for r in rs for i in r.item_ids}
    return [it.id for it in ds.items if it.id in human] or [it.id for it in ds.items if it.id in anyone]


def left_out_note(answered: Sequence[str], chosen: Sequence[str], asked: Optional[Sequence[str]], ds: Dataset,
                  max_items: int) -> str:
    """Why an answered item has no timeline (or an asked one is not drawn): "" when none is left out."""
    missing = [i for i in (asked or []) if i not in ds]
    left = [i for i in answered if i not in chosen]
    why = []
    if left:
        cause = "not among --items" if asked else f"beyond the first {max_items} (--max-items)"
        why.append(f"answered but not drawn, {cause}: " + ", ".join(f"`{i}`" for i in left))
    if missing:
        why.append(f"asked for but not in the {ds.benchmark} dataset: " + ", ".join(f"`{i}`" for i in missing))
    return ("Items without a timeline: " + "; ".join(why) + ".") if why else ""


def write_report(store: Store, datasets: Mapping[str, Dataset], out_dir: str | Path,
                 items: Optional[Sequence[str]] = None, n_resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED, level: float = 0.95, judge: Optional[str] = None,
                 figures: bool = True, png: bool = True, max_items: int = 5,
                 min_n: int = DEFAULT_MIN_N, ci: str = "ours", study: Optional[str] = None,
                 pool_studio: bool = False) -> list[Path]:
    """Write report.md, per-benchmark CSV tables (main, breakdown, differences, ranks), leaderboard.csv
    and timeline figures (HTML + PNG) for the chosen items under out_dir; returns the files written.
    ci="paper" adds each benchmark's published intervals of its headline where it has them. `study` (an id or a
    name) keeps only that study's participants as humans; `pool_studio` pools studio sittings with them. Each
    timeline has lanes only for the responders who sat its item; an answered item left out is named, with why."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    tables: dict[str, BenchmarkTables] = {}
    sid = study_id(store, study)
    md = ["# ibench-ui report", "", f"Generated {time.strftime('%Y-%m-%d %H:%M:%S')} from {store.path}.", ""]
    if sid:
        md += [f"Human responders: the participants of study {study} ({sid}) only.", ""]
    md += ["Pooled humans: study participants" + (" and studio sessions." if pool_studio else
                                                  " only (studio sessions are listed but not pooled)."), ""]
    for bench in [b for b in registry.names() if b in datasets]:
        ds = datasets[bench]
        if not responders(store, bench, ds, study=sid):
            continue
        tb = benchmark_tables(store, ds, n_resamples, seed, level, judge, min_n=min_n, ci=ci, study=sid,
                              pool_studio=pool_studio)
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
            answered = answered_items(store, ds, sid)
            chosen = [i for i in items if i in ds] if items else answered[:max_items]
            sitters = [rs.responder for rs in tb.rows if not rs.responder.pooled]
            if chosen:
                md += ["### timelines", ""]
            note = left_out_note(answered, chosen, items, ds, max_items)
            for iid in chosen:
                lanes = item_lanes(store, ds, iid, [r.key for r in sitters if iid in r.item_ids])
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
            md += ["", note, ""] if note else [""]
    board = leaderboard(tables)
    benches = list(tables)
    papered = [b for b in benches if tables[b].paper]
    written.append(_write_csv(out / "leaderboard.csv", ["name", "kind"] + [f"{b}{s}" for b in benches
                                                                          for s in IV_SUFFIXES]
                              + [f"{b}_paper{s}" for b in papered for s in IV_SUFFIXES],
                              [[r.name, r.kind] + [x for b in benches for x in (
                                  _iv_cells(r.cells[b][0]) if b in r.cells else [""] * len(IV_SUFFIXES))]
                               + [x for b in papered for x in (paper_cells(tables[b].paper.get(r.cells[b][1]))
                                                               if b in r.cells else [""] * len(IV_SUFFIXES))]
                               for r in board]))
    md += ["## leaderboard", "", "Ranked by the mean headline; rows marked † have a figure below the minimum n "
           "and are listed after every better-supported row.", "",
           _md_table(["name", "kind"] + [f"{b} ({HEADLINE[b]})" for b in benches],
                     [[r.name + (" †" if r.under_n else ""), r.kind_label] +
                      [_fmt(r.cells[b][0]) if b in r.cells else "–" for b in benches] for r in board]), ""]
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
