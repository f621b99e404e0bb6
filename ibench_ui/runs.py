"""Runs tab: start a batch evaluation in the background, watch its progress, cancel it, read its report."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import gradio as gr

from ibench_ui.context import AppContext
from ibench_ui.render import esc

MODEL_EXAMPLES = ["baseline:motion", "baseline:silent", "baseline:always", "baseline:periodic:5",
                  "openai:<model>@http://127.0.0.1:8000/v1", "hf:/path/to/local/model", "plugin:module:Class"]


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
    """Validate the request, start a BatchRunner thread, and wait until it has its run id."""
    from runners.batch import BatchRunner
    from runners.run_cmd import parse_options, prepare_run

    model = (model or "").strip()
    if not model:
        raise gr.Error("Enter a model spec, e.g. baseline:motion")
    if benchmark not in ctx.benchmarks():
        raise gr.Error(f"Benchmark {benchmark!r} is not loaded")
    try:
        bopts = parse_options([line.strip() for line in (backend_options or "").splitlines() if line.strip()])
        spec, backend = prepare_run(benchmark, model, ctx.data_dirs[benchmark], (protocol or "").strip() or None,
                                    backend_options=bopts, limit=int(limit) if limit else None,
                                    judge=(judge or "").strip() or None)
    except Exception as exc:  # noqa: BLE001 - shown to the user as is
        raise gr.Error(f"Cannot start {model!r}: {exc}") from None
    runner = BatchRunner(ctx.store, spec, concurrency=int(concurrency or 1), backend=backend).start()
    deadline = time.time() + 30
    while runner.run_id is None and runner.error is None and time.time() < deadline:
        time.sleep(0.05)
    if runner.error:
        raise gr.Error(runner.error)
    registry.add(runner)
    return runner.run_id or ""


def runs_table_html(ctx: AppContext, registry: RunRegistry) -> str:
    """Every stored run with a progress bar; live errors from runners of this process are shown too."""
    rows = []
    for run in reversed(ctx.store.runs()):
        pct = 100.0 * run.n_done / run.n_total if run.n_total else 0.0
        runner = registry.find(run.id)
        status = run.status
        if runner is not None and runner.error and status == "running":
            status = f"failed: {runner.error}"
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
        rows.append(f"<tr><td><code>{esc(run.id)}</code></td><td>{esc(run.benchmark)}</td><td>{esc(run.model_spec)}</td>"
                    f"<td>{esc(run.protocol)}</td><td>{esc(status)}</td><td>{bar}</td><td>{esc(headline)}</td></tr>")
    if not rows:
        return '<p id="runs-empty">No runs yet.</p>'
    head = "".join(f"<th>{h}</th>" for h in ("run", "benchmark", "model", "protocol", "status", "progress", "result"))
    return f'<table class="ib-table" id="runs-table"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def run_report_text(ctx: AppContext, run_id: str) -> str:
    run = ctx.store.get_run((run_id or "").strip())
    if run is None:
        return f"No run {run_id!r}."
    if not run.report:
        return f"Run {run.id} is {run.status} ({run.n_done}/{run.n_total} items)."
    import contextlib
    import io

    from runners.score_cmd import print_table
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_table(run.benchmark, run.report, run.model_spec)
    if run.report.get("run_health"):
        from runners.run_health import format_health
        buf.write(format_health(run.report["run_health"]) + "\n")
    return buf.getvalue()


def build_runs(ctx: AppContext) -> None:
    """Lay out the Runs tab."""
    registry = RunRegistry()
    with gr.Row():
        bench = gr.Dropdown(ctx.benchmarks(), value=ctx.benchmarks()[0], label="Benchmark", elem_id="runs-benchmark")
        model = gr.Dropdown(MODEL_EXAMPLES, value="baseline:motion", allow_custom_value=True, label="Model spec",
                            elem_id="runs-model")
        protocol = gr.Textbox(label="Protocol (empty: the paper protocol)", elem_id="runs-protocol")
    with gr.Row():
        limit = gr.Number(label="Limit (items, 0 = all)", value=0, precision=0, elem_id="runs-limit")
        conc = gr.Number(label="Concurrency", value=1, precision=0, elem_id="runs-concurrency")
        judge = gr.Textbox(label="Judge spec (empty: reference default)", elem_id="runs-judge")
        bopts = gr.Textbox(label="Backend options (KEY=VALUE per line; api_key_env names the variable)",
                           lines=2, elem_id="runs-backend-options")
        start = gr.Button("Start run", variant="primary", elem_id="runs-start")
    status = gr.Markdown(elem_id="runs-status")
    table = gr.HTML(runs_table_html(ctx, registry), elem_id="runs-list", js_on_load=None)
    with gr.Row():
        run_id = gr.Textbox(label="Run id", elem_id="runs-id")
        cancel = gr.Button("Cancel run", elem_id="runs-cancel")
        show = gr.Button("Show report", elem_id="runs-show")
    report = gr.Code(label="Report", language=None, elem_id="runs-report")
    timer = gr.Timer(1.0)

    def on_start(b, m, p, lim, c, j, bo):
        rid = start_run(ctx, registry, b, m, p, lim, c, j, bo)
        return f"Started run `{rid}` in the background.", rid, runs_table_html(ctx, registry)

    def on_cancel(rid):
        runner = registry.find((rid or "").strip())
        if runner is None:
            raise gr.Error(f"Run {rid!r} is not running in this app")
        runner.cancel()
        return f"Cancelling `{rid}`; it stops after the items in flight.", runs_table_html(ctx, registry)

    start.click(on_start, [bench, model, protocol, limit, conc, judge, bopts], [status, run_id, table])
    cancel.click(on_cancel, [run_id], [status, table])
    show.click(lambda rid: run_report_text(ctx, rid), [run_id], [report])
    timer.tick(lambda: runs_table_html(ctx, registry), None, [table], show_progress="hidden")


RUNS_CSS = """
.ib-progress { display:inline-block; width: 120px; height: 10px; background:#ddd; margin-right:6px; }
.ib-progress > div { height: 100%; background: #3b82f6; }
"""
