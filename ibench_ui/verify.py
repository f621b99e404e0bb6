"""Verify tab (every signed-in role) and Agreement tab.

Blind trigger: the page shows the recording and the request, never the proposed time; the mark (to the
millisecond, from the playhead, a click on the timeline or the `m` key while playing, less the annotator's
reaction-time offset) is stored first and only then compared. A verifier may withdraw and redo their mark
until a reviewer decides on it. Prefix walk: one interval at a time (default 1 s), played exactly, with
full frames and the interval's waveform, decided with keys (n / y / b / r) and auto-advance. The tabs draw and
wire; VerifyService acts only as the token's user and reads only their records."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Callable, Optional

import gradio as gr

from annotation import agreement, verification
from annotation.model import Item
from ibench_ui.context import AppContext
from ibench_ui.guard import Events
from ibench_ui.handlers import IN_ORDER, ok_html, reports_to
from ibench_ui.render import esc, fmt_time, table_html, video_html
from ibench_ui.verify_service import Marked, VerifyService, Walk
from ibench_ui.workbench_timeline import (build_controls, hidden_picker, pick_table, picked_item_update,
                                          workbench_html)

VIDEO_ID = "verify-video"
PAD = 0.5  # seconds shown either side of a prefix interval on the timeline
SIGN_IN_HINT = "Sign in to verify items (User and Password above, then Sign in)."


def signed_out_html() -> str:
    """What a signed-out visitor reads in Verify: how to start, instead of an empty player."""
    return f'<div class="ib-warn" id="verify-signin-hint" role="status">{esc(SIGN_IN_HINT)}</div>'


def empty_player(hint: str) -> str:
    """The player's place before an item is open, with a plain hint."""
    return f'<div class="ib-novideo" id="{VIDEO_ID}-empty">{esc(hint)}</div>'


def warn_html(msg: str) -> str:
    return f'<div class="ib-warn" id="verify-skip-warning" role="status">{esc(msg)}</div>'


def request_html(item: Optional[Item]) -> str:
    if item is None:
        return ""
    view = verification.blind_view(item)
    when = ("standing request (from the start)" if view["request_time"] is None
            else f"posed at {fmt_time(view['request_time'])} ({view['modality']})")
    return (f'<div id="verify-request-text" class="ib-request"><b>Request</b> — {esc(when)}:<br>'
            f'<span class="ib-request-body">{esc(view["request_text"])}</span></div>'
            '<p style="font-size:.85em;margin:2px 0">Mark the <b>earliest moment the requested event is '
            'unambiguously observable</b>: <kbd>m</kbd> while it plays, or "Use player time"; <kbd>Enter</kbd> '
            'submits. The proposed time shows only after you submit. <kbd>?</kbd> lists every key.</p>')


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


def queue_html(rows: list[tuple], current: Optional[str] = None) -> str:
    return pick_table(["item", "kind", "events marked", "my prefix walk"], [(r[0], *r) for r in rows],
                      "verify-queue-table", "verify-pick-apply", current)


def bar_html(it: Optional[Item], marks: list[dict], state: Optional[dict] = None) -> str:
    """The workbench timeline in tiers: the proposed times only of the events the caller has marked (none
    before the first blind mark), their own marks, others' marks on decided events; zoomed on the current
    prefix interval. Responses are not shown while verifying (they would hint at the answer)."""
    if it is None:
        return workbench_html(None, VIDEO_ID)
    region = view = None
    if state and state.get("current"):
        s, e = state["current"]
        region, view = (s, e), (max(0.0, s - PAD), e + PAD)
    revealed = [m["target"] for m in marks if m.get("tier") == "mine"]
    tiers = ([("targets", "proposed")] if revealed else []) + [("mine", "my marks"), ("others", "others (decided)")]
    return workbench_html(it, VIDEO_ID, show_targets=bool(revealed), target_ids=revealed, marks=marks,
                          region=region, view=view, tiers=tiers)


def build_verify(ctx: AppContext, events: Events) -> Callable[[Callable], None]:
    """Lay out the Verify sub-tab over a VerifyService; returns `refresh_on(trigger)`, which refreshes the
    caller's queue on one more trigger (the sign-in)."""
    svc = VerifyService(ctx)
    ui = SimpleNamespace(token=events.token)
    # one compact workbench (ELAN / Label Studio): the player, its tiered timeline and steps on the left; the
    # item, the request, the mark and the prefix walk on the right; the queue, offset and stills fold below
    with gr.Row(elem_id="verify-workbench", equal_height=False):
        with gr.Column(scale=3, min_width=420):
            ui.player = gr.HTML(empty_player(SIGN_IN_HINT), elem_id="verify-player", js_on_load=None)
            ui.bar = gr.HTML(workbench_html(None, VIDEO_ID), elem_id="verify-bar", js_on_load=None)
            build_controls(VIDEO_ID, with_targets=False)
        with gr.Column(scale=2, min_width=360, elem_id="verify-side"):
            _item_row(ctx, ui)
            _mark_panel(ui)
            _walk_panel(ui)
    _folds(ui)
    refresh_on = _wire_marks(events, svc, ui)
    _wire_offset(events, svc, ui)
    _wire_walk(events, svc, ui)
    return refresh_on


def _item_row(ctx: AppContext, ui) -> None:
    benchmarks = ctx.benchmarks()
    with gr.Row(elem_classes=["ib-compact"]):
        ui.bench = gr.Dropdown(benchmarks, value=benchmarks[0], label="Benchmark", elem_id="verify-benchmark",
                               min_width=110)
        ui.item = gr.Dropdown([], value=None, label="Item", elem_id="verify-item", allow_custom_value=True,
                              min_width=110)
        ui.event = gr.Dropdown([], value=None, label="Event", elem_id="verify-event", allow_custom_value=True,
                               min_width=90)
    with gr.Row(elem_classes=["ib-compact"]):
        ui.prev = gr.Button("Previous item (p)", elem_id="verify-prev", size="sm")
        ui.nxt = gr.Button("Next unverified (j)", elem_id="verify-next", size="sm")
    ui.skip = gr.State(None)  # the unfinished item a first `j` warned about; a second `j` leaves it
    ui.note = gr.State("")  # what a `j` says about the item it left, shown once the next item is open
    ui.msg = gr.HTML(signed_out_html(), elem_id="verify-msg", js_on_load=None)


def _mark_panel(ui) -> None:
    ui.req = gr.HTML("", elem_id="verify-request", js_on_load=None)
    with gr.Row(elem_classes=["ib-compact"]):
        ui.mark = gr.Textbox(label="Mark (seconds)", elem_id="verify-mark", scale=2, min_width=90)
        ui.use_time = gr.Button("Use player time", size="sm", elem_id="verify-use-time", scale=1, min_width=90)
        ui.unit = gr.Dropdown([("millisecond", "ms"), ("frame", "frame"), ("second", "second")], value="ms",
                              label="Mark to the", elem_id="verify-unit", scale=1, min_width=90)
    ui.capture = gr.Textbox(elem_id="verify-capture", elem_classes=["ib-hidden"], show_label=False, container=False)
    ui.keymark = gr.Button("mark", elem_id="verify-keymark", elem_classes=["ib-hidden"])
    with gr.Row(elem_classes=["ib-compact"]):
        ui.submit = gr.Button("Submit blind mark (Enter)", variant="primary", elem_id="verify-submit", size="sm")
        ui.withdraw = gr.Button("Withdraw my mark (u)", elem_id="verify-withdraw", size="sm")
    ui.reveal = gr.HTML(reveal_html(None), elem_id="verify-reveal", js_on_load=None)


def _walk_panel(ui) -> None:
    ui.cur = gr.State(None)
    with gr.Group(elem_id="verify-walk-box"):
        gr.HTML('<b>Silence-prefix walk</b> — <kbd>w</kbd> starts, <kbd>?</kbd> lists every key', js_on_load=None)
        with gr.Row(elem_classes=["ib-compact"]):
            ui.start = gr.Button("Start / resume walk (w)", elem_id="verify-prefix-start", size="sm")
            ui.play = gr.Button("Replay (r)", elem_id="verify-prefix-play", size="sm")
            ui.back = gr.Button("Back (b)", elem_id="verify-prefix-back", size="sm")
            ui.clear = gr.Button("Not yet (n)", elem_id="verify-prefix-clear", size="sm")
            ui.hit = gr.Button("Already satisfied (y)", variant="stop", elem_id="verify-prefix-hit", size="sm")
        ui.pstate = gr.HTML(prefix_html(None), elem_id="verify-prefix-state", js_on_load=None)


def _folds(ui) -> None:
    """What is not needed while marking, folded under the workbench: the queue, the offset, the stills."""
    with gr.Accordion("My queue", open=False, elem_id="verify-queue-box"):
        ui.queue = gr.HTML("", elem_id="verify-queue", js_on_load=None)
        ui.pick = hidden_picker("verify")
    ui.offset = gr.HTML(offset_html(0.0), elem_id="verify-offset-box", js_on_load=None)
    with gr.Accordion("Reaction-time offset", open=False, elem_id="verify-offset-acc"):
        gr.HTML('<div id="verify-calib-area"><p>Calibrate: press "Start", then press <kbd>c</kbd> (or click '
                'the box) each time the box turns green; 5 flashes. Or type the offset.</p>'
                '<div id="verify-calib-flash" style="width:120px;height:60px;background:#ddd;'
                'border:1px solid #999;border-radius:6px"></div>'
                '<button data-calibrate="verify-calib-apply" style="margin-top:4px">Start</button>'
                '<span id="verify-calib-status"></span></div>', js_on_load=None)
        ui.calib = gr.Textbox(elem_id="verify-calib-box", elem_classes=["ib-hidden"], show_label=False,
                              container=False)
        ui.calib_apply = gr.Button("calib", elem_id="verify-calib-apply", elem_classes=["ib-hidden"])
        with gr.Row():
            ui.off_in = gr.Number(label="Offset (s)", value=0.0, minimum=0, maximum=verification.MAX_OFFSET,
                                  step=0.01, elem_id="verify-offset-input")
            ui.off_set = gr.Button("Set offset", size="sm", elem_id="verify-offset-set")
    gr.Checkbox(value=True, label="Play each prefix interval when it opens", elem_id="verify-prefix-auto")
    ui.frames = gr.Gallery(label="Frames of this prefix interval (whole frames)", columns=3, height="auto",
                           object_fit="contain", elem_id="verify-prefix-frames")


def _wire_marks(events: Events, svc: VerifyService, ui) -> Callable[[Callable], None]:
    """The caller's queue, an opened item, its events' reveals, blind marks and withdrawals."""
    def marked_out(m: Marked, said: str) -> dict:
        return {ui.reveal: reveal_html(m.reveal), ui.msg: ok_html(said), ui.bar: bar_html(m.item, m.marks),
                ui.queue: queue_html(m.rows, m.item.id)}

    @reports_to(ui.msg)
    def on_refresh(tok, b):
        q = svc.queue(tok, b)
        return {ui.item: gr.update(choices=q.ids, value=q.first), ui.msg: "", ui.queue: queue_html(q.rows),
                ui.offset: offset_html(q.offset)}

    @reports_to(ui.msg)
    def on_item(tok, b, iid, note):
        if not iid:
            svc.who(tok)
            return {ui.player: empty_player("Choose an item (Item above) or press j for the next unverified one."),
                    ui.bar: workbench_html(None, VIDEO_ID), ui.req: "",
                    ui.event: gr.update(choices=[], value=None), ui.reveal: reveal_html(None),
                    ui.pstate: prefix_html(None), ui.cur: None, ui.msg: "", ui.frames: [], ui.queue: ""}
        o = svc.open(tok, b, iid)
        return {ui.player: video_html(o.item, VIDEO_ID), ui.bar: bar_html(o.item, o.marks), ui.req: request_html(o.item),
                ui.event: gr.update(choices=[(label, k) for k, label in enumerate(o.events)],
                                    value=0 if o.events else None),
                ui.reveal: reveal_html(o.reveal), ui.pstate: prefix_html(None), ui.cur: None,
                ui.msg: ok_html(note) if note else "", ui.frames: [], ui.queue: queue_html(o.rows, iid), ui.note: ""}

    @reports_to(ui.msg)
    def on_event(tok, b, iid, ev):
        if not iid or ev is None:
            svc.who(tok)
            return {ui.reveal: reveal_html(None), ui.msg: ""}
        return {ui.reveal: reveal_html(svc.reveal(tok, b, iid, ev)), ui.msg: ""}

    @reports_to(ui.msg)
    def on_submit(tok, b, iid, ev, t, u, cap):
        m = svc.submit(tok, b, iid, ev, t, u, cap)
        return marked_out(m, f"{m.user.name}: mark {m.t:.3f} s stored for {iid} event {int(ev) + 1}.")

    @reports_to(ui.msg)
    def on_withdraw(tok, b, iid, ev):
        m = svc.withdraw(tok, b, iid, ev)
        return marked_out(m, f"{m.user.name}: mark for {iid} event {int(ev) + 1} withdrawn; mark again.")

    @reports_to(ui.msg)
    def on_next(tok, b, iid, warned):
        left = svc.left_on(tok, b, iid)
        if left and warned != iid:  # never leave an unfinished item silently: say what is left, j again leaves
            return {ui.skip: iid, ui.msg: warn_html(f"{iid} is not finished ({left}). Press j again to leave it "
                                                    "unfinished; it stays in your queue.")}
        nid = svc.next_item(tok, b, iid)
        if nid is None:
            said = f"{iid} is the only unfinished item left." if left else "Nothing left to verify in this benchmark."
            return {ui.skip: None, ui.msg: ok_html(said)}
        said = f"Left {iid} unfinished ({left}); it stays in your queue." if left else ""
        return {ui.item: gr.update(value=nid), ui.skip: None, ui.note: said, ui.msg: ""}

    @reports_to(ui.msg)
    def on_prev(tok, b, iid):
        pid = svc.prev_item(tok, b, iid)
        if pid is None:
            return {ui.msg: ok_html("This is the first item of your queue.")}
        return {ui.item: gr.update(value=pid), ui.skip: None, ui.msg: ""}

    @reports_to(ui.msg)
    def on_pick(tok, b, value):
        svc.who(tok)
        return {ui.item: picked_item_update(svc.ctx, b, value), ui.msg: ""}

    def refresh_on(trigger, **kw):
        events.on(trigger, on_refresh, [ui.token, ui.bench], [ui.item, ui.msg, ui.queue, ui.offset],
                  api_visibility="private", **IN_ORDER["verify"], **kw)

    at = [ui.token, ui.bench, ui.item]
    refresh_on(ui.bench.change)
    events.on(ui.item.change, on_item, [*at, ui.note], [ui.player, ui.bar, ui.req, ui.event, ui.reveal, ui.pstate,
                                                      ui.cur, ui.msg, ui.frames, ui.queue, ui.note],
                                                                api_name="verify_item")
    events.on(ui.event.change, on_event, [*at, ui.event], [ui.reveal, ui.msg],
              api_name="verify_reveal")
    ui.use_time.click(None, None, [ui.mark, ui.capture], js=f"() => window.ibTimeline.useMark('{VIDEO_ID}', 'playhead')")
    ui.keymark.click(None, None, [ui.mark, ui.capture], js=f"() => window.ibTimeline.useMark('{VIDEO_ID}', 'key')")
    mark_out = [ui.reveal, ui.msg, ui.bar, ui.queue]
    events.on(ui.submit.click, on_submit, [*at, ui.event, ui.mark, ui.unit, ui.capture], mark_out,
              api_name="verify_submit")
    events.on(ui.withdraw.click, on_withdraw, [*at, ui.event], mark_out, api_name="verify_withdraw")
    events.on(ui.nxt.click, on_next, [*at, ui.skip], [ui.item, ui.skip, ui.note, ui.msg],
              api_name="verify_next")
    events.on(ui.prev.click, on_prev, at, [ui.item, ui.skip, ui.msg], api_name="verify_prev")
    events.on(ui.pick.change, on_pick, [ui.token, ui.bench, ui.pick], [ui.item, ui.msg],
              api_visibility="private")
    return refresh_on


def _wire_offset(events: Events, svc: VerifyService, ui) -> None:
    """The reaction-time offset: typed, or measured by the page's calibration."""
    @reports_to(ui.msg)
    def on_offset(tok, value):
        user, off = svc.set_offset(tok, value)
        return {ui.offset: offset_html(off), ui.msg: ok_html(f"{user.name}: reaction-time offset {off:.3f} s")}

    @reports_to(ui.msg)
    def on_calibrate(tok, payload):
        if not payload:
            svc.who(tok)
            return {ui.msg: ""}
        user, off, n = svc.calibrate(tok, payload)
        return {ui.offset: offset_html(off),
                ui.msg: ok_html(f"{user.name}: calibrated; reaction-time offset {off:.3f} s (median of {n})")}

    events.on(ui.off_set.click, on_offset, [ui.token, ui.off_in], [ui.offset, ui.msg],
              api_name="verify_offset")
    ui.calib_apply.click(None, None, [ui.calib], js="() => window.ibTimeline.takeCalibration()")
    events.on(ui.calib.change, on_calibrate, [ui.token, ui.calib], [ui.offset, ui.msg],
              api_visibility="private")


def _wire_walk(events: Events, svc: VerifyService, ui) -> None:
    """The silence-prefix walk: start or resume, a verdict on the interval shown, back, replay."""
    def walk_out(w: Walk, said: str = "") -> dict:
        cur = w.state.get("current")
        return {ui.pstate: prefix_html(w.state, w.item.id), ui.frames: w.frames, ui.cur: cur[0] if cur else None,
                ui.bar: bar_html(w.item, w.marks, w.state), ui.msg: ok_html(said) if said else ""}

    @reports_to(ui.msg)
    def on_start(tok, b, iid):
        w = svc.start_walk(tok, b, iid)
        if not w.state["total"]:
            return walk_out(w, "The response window opens at the request: there is no prefix to check.")
        return walk_out(w)

    def on_verdict(satisfied: bool):
        @reports_to(ui.msg)
        def on_interval(tok, b, iid, s):
            w = svc.mark_interval(tok, b, iid, s, satisfied)
            return {**walk_out(w), ui.queue: queue_html(w.rows, iid)}
        return on_interval

    @reports_to(ui.msg)
    def on_back(tok, b, iid, s):
        return walk_out(svc.back(tok, b, iid, s))

    at = [ui.token, ui.bench, ui.item]
    outs = [ui.pstate, ui.frames, ui.cur, ui.bar, ui.msg]
    events.on(ui.start.click, on_start, at, outs, api_name="prefix_start")
    events.on(ui.clear.click, on_verdict(False), [*at, ui.cur], [*outs, ui.queue],
              api_name="prefix_clear")
    events.on(ui.hit.click, on_verdict(True), [*at, ui.cur], [*outs, ui.queue], api_name="prefix_hit")
    events.on(ui.back.click, on_back, [*at, ui.cur], outs, api_name="prefix_back")
    ui.play.click(None, None, None, js=f"() => window.ibTimeline.playInterval('{VIDEO_ID}')")


NOT_SHOWN = "—"


def _f(x: Optional[float], pct: bool = False) -> str:
    if x is None:
        return NOT_SHOWN
    return f"{100 * x:.0f}%" if pct else f"{x:.3f}"


def _ci(ci: Optional[tuple], pct: bool = False) -> str:
    if ci is None:
        return NOT_SHOWN
    return f"{_f(ci[0], pct)}–{_f(ci[1], pct)}"


def _gated(x: Optional[float], n: int) -> str:
    """A coefficient (ICC, α, κ): '—' below agreement.MIN_N observations, whatever it computes to."""
    return NOT_SHOWN if agreement.below_min(n) else _f(x)


def agreement_html(reports) -> str:
    """Timing agreement first (mean |Δ| with its bootstrap interval, shares within tolerances), then ICC, α on
    times, and κ / α on labelled bins; below the minimum n the interval and coefficients read '—' with the
    reason; prefix agreement per interval."""
    parts = [f'<p id="agreement-min-n">Intervals: 95 % percentile bootstrap for mean |Δ| (never below 0), Wilson '
             f'for shares. ICC, α, κ and the mean\'s interval need at least {agreement.MIN_N} pairs; below that '
             f'they read {NOT_SHOWN} with the reason.</p>']
    tol = agreement.WITHIN
    for rep in reports:
        head = ["rater", "vs", "n", "mean |Δ| s", "95% CI", "median |Δ| s",
                *[f"≤{t:g} s" for t in tol], "ICC(A,1) on times", "α interval on times",
                f"κ ({agreement.BIN_S:g} s bins)", f"α nominal ({agreement.BIN_S:g} s bins)", "warning"]
        rows = [(p.a, p.b, p.deltas.n, _f(p.deltas.mean_abs), _ci(p.deltas.mean_abs_ci), _f(p.deltas.median_abs),
                 *[f"{_f(p.deltas.within[t], True)} ({_ci(p.deltas.within_ci[t], True)})" for t in tol],
                 _gated(p.icc, p.deltas.n), _gated(p.alpha_interval, p.deltas.n), _gated(p.kappa, p.deltas.n),
                 _gated(p.alpha_nominal, p.deltas.n),
                 "; ".join([*filter(None, [agreement.below_min(p.deltas.n)]), *p.warnings]))
                for p in rep.vs_proposed + rep.pairs]
        parts.append(f"<h4>{esc(rep.benchmark)}</h4>")
        parts.append(table_html(head, rows, f"agreement-{rep.benchmark}") if rows else "<p>No marks yet.</p>")
        if rep.revised:
            parts.append(f'<p class="ib-warn">{rep.revised} mark(s) were re-made after their maker saw the proposed '
                         'time; they are included.</p>')
        if rep.alpha_all is not None or rep.alpha_n:
            why = agreement.below_min(rep.alpha_n, "events marked by two or more")
            parts.append(f'<p>Krippendorff α (interval, on mark times) over all annotators: '
                         f'<b id="agreement-alpha-{esc(rep.benchmark)}">{_gated(rep.alpha_all, rep.alpha_n)}</b>'
                         f'{esc(f" ({why})") if why else ""}</p>')
        ps = rep.prefix
        if ps is not None:
            why = agreement.below_min(ps.n_intervals, "shared intervals")
            parts.append(f'<p id="agreement-prefix-{esc(rep.benchmark)}">Prefix intervals judged by two or more '
                         f'verifiers: n = {ps.n_intervals}; agreeing {_f(ps.agree_share, True)} '
                         f'({_ci(ps.agree_ci, True)}); α nominal {_gated(ps.alpha, ps.n_intervals)}'
                         f'{esc(f" ({why})") if why else ""}.</p>')
            for w in ps.warnings:
                parts.append(f'<p class="ib-warn">{esc(w)}</p>')
            dis = [(r[0], f"{fmt_time(r[1])}–{fmt_time(r[2])}",
                    ", ".join(f"{u}: {'satisfied' if v else 'not yet'}" for u, v in sorted(r[3].items())))
                   for r in ps.rows if not r[4]]
            if dis:
                parts.append(table_html(["item", "interval", "verdicts"], dis, f"agreement-prefix-diff-{rep.benchmark}"))
    return "".join(parts)


def build_agreement(ctx: AppContext, events: Events) -> None:
    """Agreement per benchmark and per annotator pair; annotators see only their own row."""
    svc = VerifyService(ctx)
    with gr.Row():
        bench = gr.Dropdown(["all", *ctx.benchmarks()], value="all", label="Benchmark", elem_id="agreement-benchmark")
        go = gr.Button("Compute agreement", elem_id="agreement-compute")
    out = gr.HTML("", elem_id="agreement-table", js_on_load=None)
    msg = gr.HTML("", elem_id="agreement-msg", js_on_load=None)

    @reports_to(msg)
    def on_go(tok, b):
        return {out: agreement_html(svc.agreement(tok, b)), msg: ""}

    events.on(go.click, on_go, [events.token, bench], [out, msg], api_name="agreement")
