"""Verify tab (every signed-in role) and Agreement tab.

Blind trigger: the page shows the recording and the request, never the proposed time; the mark (to the
millisecond, from the playhead, a click on the timeline or the `m` key while playing, less the annotator's
reaction-time offset) is stored first and only then compared. A verifier may withdraw and redo their mark
until a reviewer decides on it. Prefix walk: one interval at a time (default 1 s), played exactly, with
full frames and the interval's waveform, decided with keys (n / y / b / r) and auto-advance. Handlers act
only as the token's user and read only their records."""
from __future__ import annotations

import json
from typing import Optional

import gradio as gr

from annotation import agreement, auth, verification
from annotation.model import Item
from ibench_ui.handlers import IN_ORDER, guarded, ok_html
from ibench_ui.context import AppContext
from ibench_ui.render import esc, fmt_time, table_html, video_html
from ibench_ui.review import current_item
from ibench_ui.workbench_timeline import (build_controls, hidden_picker, pick_table, picked_item_update,
                                          workbench_html)

VIDEO_ID = "verify-video"
PAD = 0.5  # seconds shown either side of a prefix interval on the timeline


def request_html(item: Optional[Item]) -> str:
    if item is None:
        return ""
    view = verification.blind_view(item)
    when = ("standing request (from the start)" if view["request_time"] is None
            else f"posed at {fmt_time(view['request_time'])} ({view['modality']})")
    return (f'<div id="verify-request-text" class="ib-request"><b>Request</b> — {esc(when)}:<br>'
            f'<span class="ib-request-body">{esc(view["request_text"])}</span></div>'
            '<p style="font-size:.9em">Mark the <b>earliest moment the requested event is unambiguously '
            'observable</b>: press <kbd>m</kbd> while it plays, or put the playhead there and press '
            '"Use player time"; <kbd>Enter</kbd> submits. The proposed time is shown only after you submit.</p>')


def reveal_html(r: Optional[dict]) -> str:
    if r is None:
        return '<div id="verify-reveal-pending">Not submitted yet.</div>'
    how = {"key": "key while playing", "playhead": "player time", "click": "timeline", "typed": "typed"}.get(
        r["source"], r["source"])
    made = (f'player {r["raw_t"]:.3f} s − reaction offset {r["offset"]:.3f} s' if r["offset"]
            else f"no offset ({how})")
    state = " · decided by a reviewer (closed)" if r["locked"] else ""
    redo = "" if r["blind"] else " · re-marked after seeing the proposal"
    return (f'<div id="verify-reveal-result" data-delta="{r["delta"]:.3f}" data-mark="{r["mark"]:.3f}" '
            f'data-raw="{r["raw_t"]:.6f}" data-offset="{r["offset"]:.3f}"><b>Your mark:</b> {r["mark"]:.3f} s '
            f'({esc(made)}; to the {esc(r["unit"])}) · <b>proposed:</b> {r["proposed"]:.3f} s · '
            f'<b>Δ = {r["delta"]:+.3f} s</b>{esc(state)}{esc(redo)}</div>')


def offset_html(offset: float) -> str:
    return (f'<div id="verify-offset" data-offset="{offset:.3f}">Reaction-time offset: <b>{offset:.3f} s</b> '
            '(subtracted from marks made while the media plays; shown with each mark)</div>')


def prefix_html(state: Optional[dict], item_id: str = "") -> str:
    if state is None:
        return '<div id="verify-prefix-none">Start the walk after your blind mark.</div>'
    total, done = state["total"], state["done"]
    cells = []
    cur = state.get("current")
    for s, _e in state["plan"]:
        v = state["verdicts"].get(f"{s:.3f}")
        cls = "hit" if v else ("ok" if v is False else "")
        if cur and abs(cur[0] - s) < 1e-9:
            cls += " cur"
        cells.append(f'<span class="{cls.strip()}" title="{s:g} s"></span>')
    strip = f'<div class="ib-walk" aria-hidden="true">{"".join(cells)}</div>'
    head = ""
    if state["status"] == "fail":
        hits = ", ".join(f"{h:g} s" for h in state["hits"])
        head = (f'<div id="verify-prefix-result" data-status="fail"><b>Prefix fails</b>: the request is already '
                f'satisfied at {esc(hits)}. (Another verifier\'s different verdict goes to adjudication.)</div>')
    elif state["status"] == "pass":
        head = (f'<div id="verify-prefix-result" data-status="pass"><b>Prefix passes</b>: {total} interval(s) '
                'checked, none satisfies the request.</div>')
    body = ""
    if cur is not None:
        s, e = cur
        v = state.get("verdict")
        said = "" if v is None else f" Your verdict: <b>{'already satisfied' if v else 'not yet'}</b>."
        body = (f'<div id="verify-prefix-current" data-item="{esc(item_id)}" data-start="{s:.3f}" data-end="{e:.3f}" '
                f'data-index="{state["index"]}" data-nonce="{done}-{v}">Interval {state["index"] + 1} of {total}: '
                f'<b>{fmt_time(s)} – {fmt_time(e)}</b>. Does anything in it already satisfy the request? '
                f'<kbd>n</kbd>/<kbd>Enter</kbd> not yet · <kbd>y</kbd> already satisfied · <kbd>b</kbd> back · '
                f'<kbd>r</kbd> replay.{said}</div>')
    closed = " The prefix was decided by a reviewer (closed)." if state.get("locked") else ""
    return (f'<div id="verify-prefix-walk" data-done="{done}" data-total="{total}" data-status="{state["status"]}">'
            f'{head}{body}{strip}<small>{done} of {total} decided.{esc(closed)}</small></div>')


def interval_frames(item: Item, start: float, end: float, n: int = 3) -> list:
    """A few whole frames spread over [start, end) for the still view (empty when the video cannot be read)."""
    if not item.stream.video_path:
        return []
    try:
        from runners.sampling import FrameSampler, SamplingError
    except ImportError:
        return []
    try:
        with FrameSampler(item.stream.video_path, max_long_side=480) as fs:
            out = []
            for k in range(n):
                t = start + (end - start) * (k + 0.5) / n
                ft, img = fs.frame_at(t)
                out.append((img, f"{ft:.3f} s"))
            return out
    except (SamplingError, OSError, ValueError):
        return []


def _capture(raw: str, typed: str) -> tuple[float, bool, str]:
    """The mark's time, whether the media played and its source: the page's snapshot when it matches the
    mark box (full precision), else the typed value. Only the user's own offset decision depends on it."""
    t = float(typed)
    try:
        cap = json.loads(raw) if raw else None
    except json.JSONDecodeError:
        cap = None
    if isinstance(cap, dict) and isinstance(cap.get("t"), (int, float)) and abs(float(cap["t"]) - t) < 0.0006:
        src = cap.get("source") if cap.get("source") in verification.SOURCES else "typed"
        return float(cap["t"]), bool(cap.get("playing")) and src != "typed", src
    return t, False, "typed"


def build_verify(ctx: AppContext, token: gr.State):
    """Lay out the Verify sub-tab; returns (fn, inputs, outputs) that refreshes it after sign-in."""
    benchmarks = ctx.benchmarks()
    with gr.Row():
        bench = gr.Dropdown(benchmarks, value=benchmarks[0], label="Benchmark", elem_id="verify-benchmark")
        item = gr.Dropdown([], value=None, label="Item", elem_id="verify-item", allow_custom_value=True)
        event = gr.Dropdown([], value=None, label="Event", elem_id="verify-event", allow_custom_value=True)
        nxt = gr.Button("Next unverified (j)", elem_id="verify-next", size="sm")
    msg = gr.HTML("", elem_id="verify-msg", js_on_load=None)
    with gr.Accordion("My queue", open=False, elem_id="verify-queue-box"):
        queue = gr.HTML("", elem_id="verify-queue", js_on_load=None)
        pick = hidden_picker("verify")
    with gr.Row():
        with gr.Column(scale=3):
            player = gr.HTML(video_html(None, VIDEO_ID), elem_id="verify-player", js_on_load=None)
            bar = gr.HTML(workbench_html(None, VIDEO_ID), elem_id="verify-bar", js_on_load=None)
            build_controls(VIDEO_ID, with_targets=False)
        with gr.Column(scale=2):
            req = gr.HTML("", elem_id="verify-request", js_on_load=None)
            offset = gr.HTML(offset_html(0.0), elem_id="verify-offset-box", js_on_load=None)
            unit = gr.Radio([("millisecond", "ms"), ("frame", "frame"), ("second", "second")], value="ms",
                            label="Mark to the", elem_id="verify-unit")
            with gr.Row():
                mark = gr.Textbox(label="Mark (seconds)", elem_id="verify-mark", scale=3)
                use_time = gr.Button("Use player time", size="sm", elem_id="verify-use-time", scale=1)
            capture = gr.Textbox(elem_id="verify-capture", elem_classes=["ib-hidden"], show_label=False,
                                 container=False)
            keymark = gr.Button("mark", elem_id="verify-keymark", elem_classes=["ib-hidden"])
            with gr.Row():
                submit = gr.Button("Submit blind mark (Enter)", variant="primary", elem_id="verify-submit")
                withdraw = gr.Button("Withdraw my mark (u)", elem_id="verify-withdraw")
            reveal = gr.HTML(reveal_html(None), elem_id="verify-reveal", js_on_load=None)
            with gr.Accordion("Reaction-time offset", open=False, elem_id="verify-offset-acc"):
                gr.HTML('<div id="verify-calib-area"><p>Calibrate: press "Start", then press <kbd>c</kbd> (or click '
                        'the box) each time the box turns green; 5 flashes. Or type the offset.</p>'
                        '<div id="verify-calib-flash" style="width:120px;height:60px;background:#ddd;'
                        'border:1px solid #999;border-radius:6px"></div>'
                        '<button data-calibrate="verify-calib-apply" style="margin-top:4px">Start</button>'
                        '<span id="verify-calib-status"></span></div>', js_on_load=None)
                calib = gr.Textbox(elem_id="verify-calib-box", elem_classes=["ib-hidden"], show_label=False,
                                   container=False)
                calib_apply = gr.Button("calib", elem_id="verify-calib-apply", elem_classes=["ib-hidden"])
                with gr.Row():
                    off_in = gr.Number(label="Offset (s)", value=0.0, minimum=0, maximum=verification.MAX_OFFSET,
                                       step=0.01, elem_id="verify-offset-input")
                    off_set = gr.Button("Set offset", size="sm", elem_id="verify-offset-set")
    gr.Markdown("#### Silence-prefix walk")
    cur = gr.State(None)
    with gr.Row():
        start = gr.Button("Start / resume prefix walk", elem_id="verify-prefix-start")
        play = gr.Button("Replay interval (r)", elem_id="verify-prefix-play")
        back = gr.Button("Back (b)", elem_id="verify-prefix-back")
        clear = gr.Button("Not yet (n)", elem_id="verify-prefix-clear")
        hit = gr.Button("Already satisfied (y)", variant="stop", elem_id="verify-prefix-hit")
        auto = gr.Checkbox(value=True, label="Play each interval when it opens", elem_id="verify-prefix-auto")
    pstate = gr.HTML(prefix_html(None), elem_id="verify-prefix-state", js_on_load=None)
    frames = gr.Gallery(label="Frames of this interval (whole frames)", columns=3, height="auto",
                        object_fit="contain", elem_id="verify-prefix-frames")

    def who(tok):
        return auth.require(ctx.store, tok, auth.ANYONE)

    def own_marks_points(user, it: Item) -> list[dict]:
        pts = []
        for k, tg in enumerate(verification.timed_targets(it)):
            v = verification.mark_of(ctx.store, user, it, tg.id)
            if v is not None:
                pts.append({"t": v.value["t"], "label": f"my mark {k + 1}"})
        return pts

    def bar_html(user, it: Optional[Item], state: Optional[dict] = None) -> str:
        if it is None:
            return workbench_html(None, VIDEO_ID)
        region = view = None
        if state and state.get("current"):
            s, e = state["current"]
            region, view = (s, e), (max(0.0, s - PAD), e + PAD)
        return workbench_html(it, VIDEO_ID, show_targets=False, marks=own_marks_points(user, it), region=region,
                              view=view)

    def queue_html(user, b: str, current: Optional[str] = None) -> str:
        ds = ctx.dataset(b)
        rows = []
        for it in ds.items:
            tt = verification.timed_targets(it)
            if not tt:
                continue
            n = sum(verification.mark_of(ctx.store, user, it, t.id) is not None for t in tt)
            st = verification.prefix_state(verification.prefix_plan(it),
                                           ctx.store.verifications(b, it.id, user=user.name, kind=verification.PREFIX))
            walk = st["status"] if st["done"] or not st["total"] else "not started"
            rows.append((it.id, it.id, it.kind, f"{n}/{len(tt)}", walk if st["total"] else "no prefix"))
        return pick_table(["item", "kind", "events marked", "my prefix walk"], rows, "verify-queue-table",
                          "verify-pick-apply", current)

    def unverified(user, b: str, after: Optional[str]) -> Optional[str]:
        ids = []
        for it in ctx.dataset(b).items:
            tt = verification.timed_targets(it)
            if not tt:
                continue
            st = verification.prefix_state(verification.prefix_plan(it),
                                           ctx.store.verifications(b, it.id, user=user.name, kind=verification.PREFIX))
            if any(verification.mark_of(ctx.store, user, it, t.id) is None for t in tt) or st["status"] == "incomplete":
                ids.append(it.id)
        all_ids = [it.id for it in ctx.dataset(b).items]
        pos = all_ids.index(after) if after in all_ids else -1
        later = [i for i in ids if all_ids.index(i) > pos]
        return (later or ids or [None])[0]

    @guarded(4, 1)
    def on_refresh(tok, b):
        user = who(tok)
        ds = ctx.dataset(b)
        ids = [it.id for it in ds.items if verification.timed_targets(it)]
        return (gr.update(choices=ids, value=unverified(user, b, None) or (ids[0] if ids else None)), "",
                queue_html(user, b), offset_html(verification.offset_of(ctx.store, user)))

    @guarded(10, 7)
    def on_item(tok, b, iid):
        user = who(tok)
        if not iid:
            return (video_html(None, VIDEO_ID), workbench_html(None, VIDEO_ID), "",
                    gr.update(choices=[], value=None), reveal_html(None), prefix_html(None), None, "", [], "")
        it = current_item(ctx, b, iid)
        events = [(label, k) for k, label in enumerate(verification.blind_view(it)["events"])]
        return (video_html(it, VIDEO_ID), bar_html(user, it), request_html(it),
                gr.update(choices=events, value=0 if events else None),
                reveal_html(verification.reveal(ctx.store, user, it, 0) if events else None), prefix_html(None),
                None, "", [], queue_html(user, b, iid))

    @guarded(2, 1)
    def on_event(tok, b, iid, ev):
        user = who(tok)
        if not iid or ev is None:
            return reveal_html(None), ""
        return reveal_html(verification.reveal(ctx.store, user, current_item(ctx, b, iid), int(ev))), ""

    @guarded(4, 1)
    def on_submit(tok, b, iid, ev, t, u, cap):
        user = who(tok)
        if not iid or ev is None:
            raise ValueError("choose an item and an event first")
        if t in (None, ""):
            raise ValueError("enter the mark in seconds (or press 'Use player time' or m)")
        try:
            when, playing, source = _capture(cap, str(t).strip())
        except ValueError:
            raise ValueError(f"the mark must be a time in seconds, got {t!r}") from None
        it = current_item(ctx, b, iid)
        v = verification.submit_mark(ctx.store, user, it, int(ev), when, u or "ms", playing=playing, source=source)
        return (reveal_html(verification.reveal(ctx.store, user, it, int(ev))), ok_html(
            f"{user.name}: mark {v.value['t']:.3f} s stored for {iid} event {int(ev) + 1}."),
            bar_html(user, it), queue_html(user, b, iid))

    @guarded(4, 1)
    def on_withdraw(tok, b, iid, ev):
        user = who(tok)
        if not iid or ev is None:
            raise ValueError("choose an item and an event first")
        it = current_item(ctx, b, iid)
        verification.withdraw_mark(ctx.store, user, it, int(ev), "withdrawn in the Verify tab")
        return (reveal_html(None), ok_html(f"{user.name}: mark for {iid} event {int(ev) + 1} withdrawn; mark again."),
                bar_html(user, it), queue_html(user, b, iid))

    @guarded(2, 1)
    def on_next(tok, b, iid):
        user = who(tok)
        nid = unverified(user, b, iid)
        if nid is None:
            return gr.update(), ok_html("Nothing left to verify in this benchmark.")
        return gr.update(value=nid), ""

    @guarded(2, 1)
    def on_pick(tok, b, value):
        who(tok)
        return picked_item_update(ctx, b, value), ""

    @guarded(2, 1)
    def on_offset(tok, value):
        user = who(tok)
        off = verification.set_offset(ctx.store, user, value if value is not None else 0.0)
        return offset_html(off), ok_html(f"{user.name}: reaction-time offset {off:.3f} s")

    @guarded(2, 1)
    def on_calibrate(tok, payload):
        user = who(tok)
        if not payload:
            return gr.update(), ""
        try:
            xs = json.loads(payload).get("reactions")
        except (json.JSONDecodeError, AttributeError):
            raise ValueError("calibration: the page sent no reaction times") from None
        off = verification.calibrate(ctx.store, user, xs or [])
        return offset_html(off), ok_html(f"{user.name}: calibrated; reaction-time offset {off:.3f} s (median of "
                                         f"{len(xs)})")

    def walk_view(user, it: Item, state: dict):
        curiv = state.get("current")
        pics = interval_frames(it, *curiv) if curiv else []
        return prefix_html(state, it.id), pics, (curiv[0] if curiv else None), bar_html(user, it, state)

    @guarded(5, 4)
    def on_start(tok, b, iid):
        user = who(tok)
        if not iid:
            raise ValueError("choose an item first")
        it = current_item(ctx, b, iid)
        state = verification.start_prefix(ctx.store, user, it)
        if not state["total"]:
            return (prefix_html(state, it.id), [], None, bar_html(user, it),
                    ok_html("The response window opens at the request: there is no prefix to check."))
        return (*walk_view(user, it, state), "")

    def on_mark(satisfied: bool):
        @guarded(6, 4)
        def handler(tok, b, iid, s):
            user = who(tok)
            if not iid or s is None:
                raise ValueError("start the prefix walk first")
            it = current_item(ctx, b, iid)
            state = verification.mark_interval(ctx.store, user, it, float(s), satisfied)
            return (*walk_view(user, it, state), "", queue_html(user, b, iid))
        return handler

    @guarded(5, 4)
    def on_back(tok, b, iid, s):
        user = who(tok)
        if not iid:
            raise ValueError("start the prefix walk first")
        it = current_item(ctx, b, iid)
        plan = verification.prefix_plan(it)
        starts = [p[0] for p in plan]
        if s is None:  # the walk ended (pass, or a hit): back to the interval decided last
            mine = ctx.store.verifications(b, iid, user=user.name, kind=verification.PREFIX)
            last = [float(r.value["start"]) for r in mine if not r.value.get("withdrawn")]
            at = last[-1] if last else (starts[-1] if starts else None)
        else:
            k = next((i for i, x in enumerate(starts) if abs(x - float(s)) < 1e-6), 0)
            at = starts[max(0, k - 1)]
        if at is None:
            raise ValueError("this item has no prefix")
        state = verification.start_prefix(ctx.store, user, it, at=at)
        return (*walk_view(user, it, state), "")

    refresh_io = (on_refresh, [token, bench], [item, msg, queue, offset])
    bench.change(*refresh_io, api_visibility="private", **IN_ORDER["verify"])
    item.change(on_item, [token, bench, item],
                [player, bar, req, event, reveal, pstate, cur, msg, frames, queue], api_name="verify_item")
    event.change(on_event, [token, bench, item, event], [reveal, msg], api_name="verify_reveal")
    snap = ("(id, src) => { const P = window.ibPlayer; if (!P) return ['', ''];"
            " let c = P.capture(id); const v = P.video(id);"
            " if (!c || c.source !== src || !c.fresh) { c = P.snapshot(id, src); }"
            " c.fresh = false; return [c.t.toFixed(3), JSON.stringify(c)]; }")
    use_time.click(None, None, [mark, capture], js=f"() => ({snap})('{VIDEO_ID}', 'playhead')")
    keymark.click(None, None, [mark, capture], js=f"() => ({snap})('{VIDEO_ID}', 'key')")
    submit.click(on_submit, [token, bench, item, event, mark, unit, capture], [reveal, msg, bar, queue],
                 api_name="verify_submit")
    withdraw.click(on_withdraw, [token, bench, item, event], [reveal, msg, bar, queue], api_name="verify_withdraw")
    nxt.click(on_next, [token, bench, item], [item, msg], api_name="verify_next")
    pick.change(on_pick, [token, bench, pick], [item, msg], api_visibility="private")
    off_set.click(on_offset, [token, off_in], [offset, msg], api_name="verify_offset")
    calib_apply.click(None, None, [calib], js="() => (window.ibTimeline && window.ibTimeline.calibration) || ''")
    calib.change(on_calibrate, [token, calib], [offset, msg], api_visibility="private")
    walk_out = [pstate, frames, cur, bar, msg]
    start.click(on_start, [token, bench, item], walk_out, api_name="prefix_start")
    clear.click(on_mark(False), [token, bench, item, cur], [*walk_out, queue], api_name="prefix_clear")
    hit.click(on_mark(True), [token, bench, item, cur], [*walk_out, queue], api_name="prefix_hit")
    back.click(on_back, [token, bench, item, cur], walk_out, api_name="prefix_back")
    play.click(None, None, None, js="() => { const el = document.getElementById('verify-prefix-current');"
               f" if (el && window.ibPlayer) window.ibPlayer.playRange('{VIDEO_ID}', parseFloat(el.dataset.start),"
               " parseFloat(el.dataset.end)); }")
    return refresh_io


def _f(x: Optional[float], pct: bool = False) -> str:
    if x is None:
        return "–"
    return f"{100 * x:.0f}%" if pct else f"{x:.3f}"


def _ci(ci: Optional[tuple], pct: bool = False) -> str:
    if ci is None:
        return "–"
    return f"{_f(ci[0], pct)}–{_f(ci[1], pct)}"


def agreement_html(reports) -> str:
    """Timing agreement first (mean |Δ| with its interval, shares within tolerances), then ICC, α on times,
    and κ / α on labelled bins; warnings under the minimum n; prefix agreement per interval."""
    parts = []
    tol = agreement.WITHIN
    for rep in reports:
        head = ["rater", "vs", "n", "mean |Δ| s", "95% CI", "median |Δ| s",
                *[f"≤{t:g} s" for t in tol], "ICC(A,1) on times", "α interval on times",
                f"κ ({agreement.BIN_S:g} s bins)", f"α nominal ({agreement.BIN_S:g} s bins)", "warning"]
        rows = [(p.a, p.b, p.deltas.n, _f(p.deltas.mean_abs), _ci(p.deltas.mean_abs_ci), _f(p.deltas.median_abs),
                 *[f"{_f(p.deltas.within[t], True)} ({_ci(p.deltas.within_ci[t], True)})" for t in tol],
                 _f(p.icc), _f(p.alpha_interval), _f(p.kappa), _f(p.alpha_nominal), "; ".join(p.warnings))
                for p in rep.vs_proposed + rep.pairs]
        parts.append(f"<h4>{esc(rep.benchmark)}</h4>")
        parts.append(table_html(head, rows, f"agreement-{rep.benchmark}") if rows else "<p>No marks yet.</p>")
        if rep.revised:
            parts.append(f'<p class="ib-warn">{rep.revised} mark(s) were re-made after their maker saw the proposed '
                         'time; they are included.</p>')
        if rep.alpha_all is not None:
            parts.append(f'<p>Krippendorff α (interval, on mark times) over all annotators: '
                         f'<b id="agreement-alpha-{esc(rep.benchmark)}">{rep.alpha_all:.3f}</b></p>')
        ps = rep.prefix
        if ps is not None:
            parts.append(f'<p id="agreement-prefix-{esc(rep.benchmark)}">Prefix intervals judged by two or more '
                         f'verifiers: n = {ps.n_intervals}; agreeing {_f(ps.agree_share, True)} '
                         f'({_ci(ps.agree_ci, True)}); α nominal {_f(ps.alpha)}.</p>')
            for w in ps.warnings:
                parts.append(f'<p class="ib-warn">{esc(w)}</p>')
            dis = [(r[0], f"{fmt_time(r[1])}–{fmt_time(r[2])}",
                    ", ".join(f"{u}: {'satisfied' if v else 'not yet'}" for u, v in sorted(r[3].items())))
                   for r in ps.rows if not r[4]]
            if dis:
                parts.append(table_html(["item", "interval", "verdicts"], dis, f"agreement-prefix-diff-{rep.benchmark}"))
    return "".join(parts)


def build_agreement(ctx: AppContext, token: gr.State) -> None:
    """Agreement per benchmark and per annotator pair; annotators see only their own row."""
    with gr.Row():
        bench = gr.Dropdown(["all", *ctx.benchmarks()], value="all", label="Benchmark", elem_id="agreement-benchmark")
        go = gr.Button("Compute agreement", elem_id="agreement-compute")
    out = gr.HTML("", elem_id="agreement-table", js_on_load=None)
    msg = gr.HTML("", elem_id="agreement-msg", js_on_load=None)

    @guarded(2, 1)
    def on_go(tok, b):
        user = auth.require(ctx.store, tok, auth.ANYONE)
        names = ctx.benchmarks() if b == "all" else [b]
        reports = [verification.agreement_report(ctx.store, user, ctx.dataset(n)) for n in names]
        return agreement_html(reports), ""

    go.click(on_go, [token, bench], [out, msg], api_name="agreement")
