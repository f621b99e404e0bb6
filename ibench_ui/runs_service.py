"""The Runs tab's server side, without Gradio: start and cancel batch runs of the server's registry models,
the runs table with live progress, a run's report and its decision-by-decision drill-down. Every method takes
the caller's sign-in token first and checks their role on the server (admins start and cancel, reviewers and
admins watch), then returns plain data for the tab to draw; a bad request is a ValueError with its reason."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Optional

from annotation import auth
from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.role_table import RUN as RUN_ROLES, RUN_VIEW as VIEW_ROLES  # who starts, who watches (the role table)
from ibench_ui.run_inspect import FILTERS, drill_html, run_label

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


@dataclass(frozen=True)
class RunRow:
    """One stored run as the runs table shows it: its settings, status (a failure with its reason), progress
    as a percentage and a label (per model call while it runs here), and its headline figures and health."""
    id: str
    label: str
    benchmark: str
    model: str
    protocol: str
    status: str
    pct: float
    progress: str
    result: str


def start_run(ctx: AppContext, registry: RunRegistry, benchmark: str, model: str, protocol: str, limit,
              concurrency, judge: str, backend_options: str = "") -> str:
    """Validate the request, start a BatchRunner thread, and wait until it has its run id.

    `model` and `judge` are NAMES from the server's registry (ctx.models), never specs; backend options
    come from that registry too, so a browser cannot name a module, path, URL or environment variable."""
    from runners.batch import BatchRunner
    from runners.protocols import PROTOCOLS
    from runners.run_plan import prepare_run

    if backend_options not in (None, "") and str(backend_options).strip():
        raise ValueError("Backend options are set by the server's model registry (--models FILE), not by the page.")
    if not isinstance(benchmark, str) or benchmark not in ctx.benchmarks():
        raise ValueError(f"Benchmark {str(benchmark)[:80]!r} is not loaded")
    entry = ctx.models.resolve(model)
    judge_spec = ctx.models.resolve_judge(judge)
    protocol = (protocol or "").strip() if isinstance(protocol, str) else None
    if protocol is None or (protocol and protocol not in PROTOCOLS):
        raise ValueError(f"Unknown protocol; choose one of {', '.join(sorted(PROTOCOLS))} or leave it empty.")
    lim, conc = _count(limit, "Limit", 0, 10**6), _count(concurrency, "Concurrency", 1, MAX_CONCURRENCY, default=1)
    on_cluster = ctx.ray is not None and entry.spec.startswith("hf:")  # weights load on the workers only
    try:
        spec, backend = prepare_run(benchmark, entry.spec, ctx.data_dirs[benchmark], protocol or None,
                                    backend_options=dict(entry.options), limit=lim or None, judge=judge_spec,
                                    load=not on_cluster)
    except Exception as exc:  # noqa: BLE001 - shown to the user as is
        raise ValueError(f"Cannot start {entry.name!r}: {exc}") from None
    from ibench_ui.model_check import reach
    why = reach(backend)  # check before doing: an unreachable server is refused now, not "failed (0/15)" later
    if why:
        raise ValueError(f"Cannot start {entry.name!r}: {why}")
    executor = None
    if ctx.ray is not None:  # serve --ray: items run on the cluster; cancel stops its tasks
        from runners.ray_run import RayExecutor
        executor = RayExecutor(ctx.ray_media or "shared", resources=dict(entry.options))
    runner = BatchRunner(ctx.store, spec, concurrency=conc, backend=backend, executor=executor).start()
    deadline = time.time() + 30
    while runner.run_id is None and runner.error is None and time.time() < deadline:
        time.sleep(0.05)
    if runner.error:
        raise ValueError(runner.error)
    registry.add(runner)
    return runner.run_id or ""


def _count(value, label: str, lo: int, hi: int, default: int = 0) -> int:
    if value in (None, ""):
        return default
    try:
        f = float(value)
        n = int(f)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{label} must be a whole number, got {str(value)[:40]!r}") from None
    if n != f or not lo <= n <= hi:
        raise ValueError(f"{label} must be a whole number from {lo} to {hi}, got {str(value)[:40]!r}")
    return n


def run_rows(store: Store, registry: RunRegistry) -> list[RunRow]:
    """Every stored run, newest first; live progress and errors from runners of this process are shown too."""
    return [_row(run, registry.find(run.id)) for run in reversed(store.runs())]


def _row(run, runner) -> RunRow:
    pct = 100.0 * run.n_done / run.n_total if run.n_total else 0.0
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
    return RunRow(run.id, run_label(run), run.benchmark, run.model_spec, run.protocol, status, pct, label,
                  _result(run.report or {}, run.benchmark))


def scaled_figures(benchmark: str, report: dict) -> list[tuple[str, str]]:
    """(column, figure) of a report's paper table as the Leaderboard shows it: the scorer's per-item statistics'
    figures, each on 0–100 (one decimal; "–" undefined); none without a report."""
    if not report or not benchmark:
        return []
    from scoring.bootstrap import figure_text, item_stats
    bs = item_stats(benchmark, report)
    return [(c, figure_text(bs.point(c))) for c in bs.table]


def figures_text(benchmark: str, report: dict) -> str:
    """The paper-table figures on 0–100 with 95% bootstrap intervals over items (none below the minimum n)."""
    from runners.report import figures
    _, cols, _ = figures(benchmark, report)
    width = max([len(c) for c in cols] + [6])
    lines = ["Figures (0–100; 95% bootstrap intervals over items, n = items counted):"]
    lines += [f"  {c:<{width}}  {iv.fmt(1)}" for c, iv in cols.items()]
    return "\n".join(lines) + "\n\n"


def _result(report: dict, benchmark: str = "") -> str:
    """The run's paper-table figures on the 0–100 scale the Leaderboard uses, then its health (calls, retries,
    errors, compliance), each written as every table writes a figure."""
    from scoring.bootstrap import figure_text
    headline = ", ".join(f"{c} {v}" for c, v in scaled_figures(benchmark, report)[:5])
    if headline:
        headline += " (0–100)"
    health = report.get("run_health")
    if health:
        headline += (f" | calls {health['calls']}, retries {health['retries']}, errors {health['errors']}"
                     + (f" ({', '.join(f'{k} {v}' for k, v in health['errors_by_kind'].items())})"
                        if health["errors"] else "")
                     + f", excluded {len(health['excluded_items'])}, skipped ticks {health['skipped_ticks']}"
                     + (f", compliance {figure_text(100 * health['compliance'])} %" if health.get("compliance") is not None
                        else "") + (" FLAG" if health.get("compliance_flag") else ""))
    return headline


def run_report_text(ctx: AppContext, run_id: str) -> str:
    """The run's report as the CLI prints it (its health below), or why there is none yet."""
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
    buf.write(figures_text(run.benchmark, run.report))
    buf.write("The scorer's own table:\n")
    with contextlib.redirect_stdout(buf):
        print_table(run.benchmark, run.report, run.model_spec)
    if run.report.get("run_health"):
        from runners.run_health import format_health
        buf.write(format_health(run.report["run_health"]) + "\n")
    return buf.getvalue()


def run_choices(store: Store) -> list[tuple[str, str]]:
    """(label, id) of every stored run, newest first: told apart by date and settings, not a hash."""
    return [(f"{run_label(r)} [{r.id}]", r.id) for r in reversed(store.runs())]


class RunsService:
    """Plain methods behind the Runs tab; each checks the caller's role on the server first."""

    def __init__(self, ctx: AppContext, registry: Optional[RunRegistry] = None):
        self.ctx = ctx
        self.registry = registry or RunRegistry()

    def admin(self, tok: str) -> auth.User:
        """The caller, if they may start and cancel runs; PermissionError otherwise."""
        return self.ctx.require(tok, RUN_ROLES)

    def viewer(self, tok: str) -> auth.User:
        """The caller, if they may watch runs and read their reports; PermissionError otherwise."""
        return self.ctx.require(tok, VIEW_ROLES)

    def start(self, tok: str, benchmark: str, model: str, protocol: str, limit, concurrency, judge: str) -> str:
        """Start a run of a registry model in the background; its run id."""
        self.admin(tok)
        return start_run(self.ctx, self.registry, benchmark, model, protocol, limit, concurrency, judge)

    def cancel(self, tok: str, run_id) -> str:
        """Ask a run started by this app to stop after the items in flight; its run id."""
        self.admin(tok)
        rid = run_id.strip() if isinstance(run_id, str) else ""
        runner = self.registry.find(rid)
        if runner is None:
            raise ValueError(f"Run {rid[:40]!r} is not running in this app")
        runner.cancel()
        return rid

    def table(self, tok: str) -> list[RunRow]:
        self.viewer(tok)
        return run_rows(self.ctx.store, self.registry)

    def report(self, tok: str, run_id) -> str:
        self.viewer(tok)
        return run_report_text(self.ctx, run_id if isinstance(run_id, str) else "")

    def run_choices(self, tok: str) -> list[tuple[str, str]]:
        self.viewer(tok)
        return run_choices(self.ctx.store)

    def run_filters(self, tok: str, run_id) -> tuple[list[str], list[str]]:
        """The run's items (those it listed, then any others it called on) and the verdict filters: the call
        outcomes first, then every label the run's benchmark can give a response."""
        self.viewer(tok)
        run = self.ctx.store.get_run(run_id) if isinstance(run_id, str) else None
        if run is None:
            return [], list(FILTERS)
        from scoring.classify import labels
        items = list(self.ctx.store.run_items(run.id))
        for c in self.ctx.store.run_calls(run.id):
            if c["item_id"] not in items:
                items.append(c["item_id"])
        return items, list(FILTERS) + [x for x in labels(run.benchmark) if x not in FILTERS]

    def drill(self, tok: str, run_id, item_id, flt, other) -> Optional[str]:
        """One item's decisions in a run (beside another run's, if chosen) as HTML; None until both are chosen."""
        self.viewer(tok)
        if not isinstance(run_id, str) or not isinstance(item_id, str) or not run_id or not item_id:
            return None
        return drill_html(self.ctx.store, self.ctx, run_id, item_id, flt if isinstance(flt, str) else "all",
                          other if isinstance(other, str) else "")
