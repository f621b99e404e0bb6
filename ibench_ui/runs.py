"""Runs tab: start a batch evaluation in the background, watch its progress, cancel it, read its report."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import gradio as gr

from ibench_ui.context import AppContext
from ibench_ui.guard import SIGNED_IN, Events
from ibench_ui.render import esc
from ibench_ui.run_inspect import FILTERS, drill_html, run_label

RUN_ROLES = ("admin",)            # starting or cancelling a run loads and runs a model: an admin action
VIEW_ROLES = ("admin", "reviewer")
MAX_CONCURRENCY = 16


@dataclass
class RunRegistry:
    """The batch runners started from this app process (their state also lives in the store)."""
    runners: dict = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, runner) -> None:
        with self.lock:
            self.runners[runner.run_id or id(runner)] = runner

    def find(self, run_id: str):
        with self.lock:
            return self.runners.get(run_id)


def start_run(ctx: AppContext, registry: RunRegistry, benchmark: str, model: str, protocol: str, limit,
              concurrency, judge: str, backend_options: str = "") -> str:
    """Validate the request, start a BatchRunner thread, and wait until it has its run id.

    `model` and `judge` are NAMES from the server's registry (ctx.models), never specs; backend options
    come from that registry too, so a browser cannot name a module, path, URL or environment variable."""
    from runners.batch import BatchRunner
    from runners.protocols import PROTOCOLS
    from runners.run_plan import prepare_run

    if backend_options not in (None, "") and str(backend_options).strip():
        raise gr.Error("Backend options are set by the server's model registry (--models FILE), not by the page.")
    if not isinstance(benchmark, str) or benchmark not in ctx.benchmarks():
        raise gr.Error(f"Benchmark {str(benchmark)[:80]!r} is not loaded")
    try:
        entry = ctx.models.resolve(model)
        judge_spec = ctx.models.resolve_judge(judge)
    except ValueError as exc:
        raise gr.Error(str(exc)) from None
    protocol = (protocol or "").strip() if isinstance(protocol, str) else None
    if protocol is None or (protocol and protocol not in PROTOCOLS):
        raise gr.Error(f"Unknown protocol; choose one of {', '.join(sorted(PROTOCOLS))} or leave it empty.")
    lim, conc = _count(limit, "Limit", 0, 10**6), _count(concurrency, "Concurrency", 1, MAX_CONCURRENCY, default=1)
    try:
        spec, backend = prepare_run(benchmark, entry.spec, ctx.data_dirs[benchmark], protocol or None,
                                    backend_options=dict(entry.options), limit=lim or None, judge=judge_spec)
    except Exception as exc:  # noqa: BLE001 - shown to the user as is
        raise gr.Error(f"Cannot start {entry.name!r}: {exc}") from None
    from ibench_ui.model_check import reach
    why = reach(backend)  # check before doing: an unreachable server is refused now, not "failed (0/15)" later
    if why:
        raise gr.Error(f"Cannot start {entry.name!r}: {why}")
    runner = BatchRunner(ctx.store, spec, concurrency=conc, backend=backend).start()
    deadline = time.time() + 30
    while runner.run_id is None and runner.error is None and time.time() < deadline:
        time.sleep(0.05)
    if runner.error:
        raise gr.Error(runner.error)
    registry.add(runner)
    return runner.run_id or ""


def _count(value, label: str, lo: int, hi: int, default: int = 0) -> int:
    if value in (None, ""):
        return default
    try:
        f = float(value)
        n = int(f)
    except (TypeError, ValueError, OverflowError):
        raise gr.Error(f"{label} must be a whole number, got {str(value)[:40]!r}") from None
    if n != f or not lo <= n <= hi:
        raise gr.Error(f"{label} must be a whole number from {lo} to {hi}, got {str(value)[:40]!r}")
    return n


def runs_table_html(ctx: AppContext, registry: RunRegistry) -> str:
    """Every stored run with a progress bar; live errors from runners of this process are shown too."""
    rows = []
    for run in reversed(ctx.store.runs()):
        pct = 100.0 * run.n_done / run.n_total if run.n_total else 0.0
        runner = registry.find(run.id)
        status = run.status
        if runner is not None and runner.error and status == "running":
            status = f"failed: {runner.error}"
        elif run.status == "failed" and run.error:
            status = f"failed: {run.error}"  # the reason is kept with the run
        label = f"{run.n_done}/{run.n_total} items"
        if runner is not None and status == "running":  # per model call, with the item and media time
            p = dict(runner.progress)
            if p.get("calls_total"):
                pct = 100.0 * p["calls_done"] / p["calls_total"]
                label = f"{p['calls_done']}/{p['calls_total']} calls, {label}"
            if p.get("item") and p.get("t") is not None:
                label += f" · {p['item']} t={p['t']:.1f}s"
            if p.get("waiting"):
                label += f" · {p['waiting']}"
        bar = (f'<div class="ib-progress" data-run="{esc(run.id)}" title="{esc(label)}">'
               f'<div style="width:{pct:.1f}%"></div></div><span class="ib-progress-label">{esc(label)}</span>')
        table = (run.report or {}).get("table") or {}
        headline = ", ".join(f"{k} {v}" for k, v in list(table.items())[:5]) if isinstance(table, dict) else ""
        health = (run.report or {}).get("run_health")
        if health:
            headline += (f" | calls {health['calls']}, retries {health['retries']}, errors {health['errors']}"
                         + (f" ({', '.join(f'{k} {v}' for k, v in health['errors_by_kind'].items())})"
                            if health["errors"] else "")
                         + f", excluded {len(health['excluded_items'])}, skipped ticks {health['skipped_ticks']}"
                         + (f", compliance {100 * health['compliance']:.1f} %" if health.get("compliance") is not None
                            else "") + (" FLAG" if health.get("compliance_flag") else ""))
        rows.append(f"<tr><td><code>{esc(run.id)}</code><br><small class=\"ib-run-label\">{esc(run_label(run))}</small></td>"
                    f"<td>{esc(run.benchmark)}</td><td>{esc(run.model_spec)}</td>"
                    f"<td>{esc(run.protocol)}</td><td class=\"ib-run-status\">{esc(status)}</td><td>{bar}</td><td>{esc(headline)}</td></tr>")
    if not rows:
        return '<p id="runs-empty">No runs yet.</p>'
    head = "".join(f"<th>{h}</th>" for h in ("run (date and settings)", "benchmark", "model", "protocol", "status",
                                             "progress", "result"))
    return f'<table class="ib-table" id="runs-table"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def run_report_text(ctx: AppContext, run_id: str) -> str:
    run = ctx.store.get_run((run_id or "").strip())
    if run is None:
        return f"No run {run_id!r}."
    if not run.report:
        why = f": {run.error}" if run.error else ""
        return f"Run {run.id} is {run.status} ({run.n_done}/{run.n_total} items){why}."
    import contextlib
    import io

    from runners.score_report import print_table
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_table(run.benchmark, run.report, run.model_spec)
    if run.report.get("run_health"):
        from runners.run_health import format_health
        buf.write(format_health(run.report["run_health"]) + "\n")
    return buf.getvalue()


def build_runs(ctx: AppContext, events: Events) -> None:
    """Lay out the Runs tab: admins start and cancel runs of registry models; reviewers watch. Its events are
    open to every account: each handler checks those finer roles."""
    registry = RunRegistry()
    token = events.token
    names = ctx.models.names()
    with gr.Row():
        bench = gr.Dropdown(ctx.benchmarks(), value=ctx.benchmarks()[0], label="Benchmark", elem_id="runs-benchmark")
        model = gr.Dropdown(names, value=names[0], allow_custom_value=False, label="Model (configured on the server)",
                            elem_id="runs-model")
        protocol = gr.Textbox(label="Protocol (empty: the paper protocol)", elem_id="runs-protocol")
    with gr.Row():
        limit = gr.Number(label="Limit (items, 0 = all)", value=0, precision=0, elem_id="runs-limit")
        conc = gr.Number(label="Concurrency", value=1, precision=0, elem_id="runs-concurrency")
        judge = gr.Dropdown([""] + ctx.models.judge_names(), value="", allow_custom_value=False,
                            label="Judge (empty: reference default)", elem_id="runs-judge")
        start = gr.Button("Start run", variant="primary", elem_id="runs-start")
    status = gr.Markdown(elem_id="runs-status")
    table = gr.HTML("", elem_id="runs-list", js_on_load=None)
    with gr.Row():
        run_id = gr.Textbox(label="Run id", elem_id="runs-id")
        cancel = gr.Button("Cancel run", elem_id="runs-cancel")
        show = gr.Button("Show report", elem_id="runs-show")
    report = gr.HTML("", elem_id="runs-report")  # monospace <pre>: the printed table keeps its alignment
    gr.Markdown("### Inspect a run, decision by decision")
    with gr.Row():
        d_run = gr.Dropdown(_run_choices(ctx), label="Run", elem_id="drill-run", allow_custom_value=False)
        d_item = gr.Dropdown([], label="Item", elem_id="drill-item", allow_custom_value=False)
        d_filter = gr.Dropdown(list(FILTERS), value="all", label="Verdict", elem_id="drill-filter",
                               allow_custom_value=False)
        d_other = gr.Dropdown([("(none)", "")] + _run_choices(ctx), value="", label="Side by side with run",
                              elem_id="drill-other", allow_custom_value=False)
        d_show = gr.Button("Show decisions", elem_id="drill-show")
    drill = gr.HTML("", elem_id="drill-out")
    timer = gr.Timer(1.0)

    def who(tok, roles):
        try:
            return ctx.require(tok, roles)
        except PermissionError as exc:
            raise gr.Error(str(exc)) from None

    def on_start(tok, b, m, p, lim, c, j):
        who(tok, RUN_ROLES)
        rid = start_run(ctx, registry, b, m, p, lim, c, j)
        return f"Started run `{rid}` in the background.", rid, runs_table_html(ctx, registry)

    def on_cancel(tok, rid):
        who(tok, RUN_ROLES)
        rid = rid.strip() if isinstance(rid, str) else ""
        runner = registry.find(rid)
        if runner is None:
            raise gr.Error(f"Run {rid[:40]!r} is not running in this app")
        runner.cancel()
        return f"Cancelling `{rid}`; it stops after the items in flight.", runs_table_html(ctx, registry)

    def on_show(tok, rid):
        who(tok, VIEW_ROLES)
        return report_html(ctx, rid if isinstance(rid, str) else "")

    def on_runs_focus(tok):
        who(tok, VIEW_ROLES)
        choices = _run_choices(ctx)
        return gr.Dropdown(choices=choices), gr.Dropdown(choices=[("(none)", "")] + choices)

    def on_run(tok, rid):
        who(tok, VIEW_ROLES)
        items = _run_item_ids(ctx, rid)
        labels = ["all", "responded", "silent", "error"]
        run = ctx.store.get_run(rid) if isinstance(rid, str) else None
        if run is not None:
            from scoring.classify import labels as verdict_labels
            labels += [x for x in verdict_labels(run.benchmark) if x not in labels]
        return (gr.Dropdown(choices=items, value=items[0] if items else None),
                gr.Dropdown(choices=labels, value="all"))

    def on_drill(tok, rid, iid, flt, other):
        who(tok, VIEW_ROLES)
        if not isinstance(rid, str) or not isinstance(iid, str) or not rid or not iid:
            return '<p id="drill-error">Choose a run and an item.</p>'
        return drill_html(ctx.store, ctx, rid, iid, flt if isinstance(flt, str) else "all",
                          other if isinstance(other, str) else "")

    def on_tick(tok):
        return runs_table_html(ctx, registry) if ctx.allowed(tok, VIEW_ROLES) else ""

    events.on(start.click, on_start, [token, bench, model, protocol, limit, conc, judge], [status, run_id, table],
              roles=SIGNED_IN)
    events.on(cancel.click, on_cancel, [token, run_id], [status, table], roles=SIGNED_IN)
    events.on(show.click, on_show, [token, run_id], [report], roles=SIGNED_IN)
    events.on(d_run.focus, on_runs_focus, [token], [d_run, d_other], roles=SIGNED_IN, show_progress="hidden")
    events.on(d_run.change, on_run, [token, d_run], [d_item, d_filter], roles=SIGNED_IN, show_progress="hidden")
    events.on(d_show.click, on_drill, [token, d_run, d_item, d_filter, d_other], [drill], roles=SIGNED_IN)
    events.on(timer.tick, on_tick, [token], [table], roles=SIGNED_IN, show_progress="hidden")


def _run_choices(ctx: AppContext) -> list[tuple[str, str]]:
    """(label, id) of every stored run, newest first: told apart by date and settings, not a hash."""
    return [(f"{run_label(r)} [{r.id}]", r.id) for r in reversed(ctx.store.runs())]


def _run_item_ids(ctx: AppContext, run_id) -> list[str]:
    if not isinstance(run_id, str) or ctx.store.get_run(run_id) is None:
        return []
    ids = list(ctx.store.run_items(run_id))
    for c in ctx.store.run_calls(run_id):
        if c["item_id"] not in ids:
            ids.append(c["item_id"])
    return ids


def report_html(ctx: AppContext, run_id: str) -> str:
    """The run's printed report in a monospace block, so its table keeps its columns."""
    return f'<pre class="ib-report" id="runs-report-text">{esc(run_report_text(ctx, run_id))}</pre>'
