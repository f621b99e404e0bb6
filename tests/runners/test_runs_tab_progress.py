"""The Runs tab's table: a bar that moves per model call (item and media time), then the run's health."""
import time

from annotation.loaders import demo_dir
from annotation.store import Store
from runners.batch import BatchRunner, RunSpec


def test_runs_table_moves_per_call_and_shows_errors_by_kind(fake_server, tmp_path):
    from ibench_ui.runs import runs_table_html
    from ibench_ui.runs_service import RunRegistry, run_rows

    fake_server.reset(latency=0.3)
    fake_server.every(5, ("status", 500))
    store = Store(tmp_path / "db.sqlite")
    spec = RunSpec(benchmark="interactionbench", model=f"openai:scripted@{fake_server.base_url}",
                   data_dir=str(demo_dir("interactionbench")), protocol="sliding", items=("moving_square#2",),
                   backend_options={"retries": 0}, on_error="silence")
    registry = RunRegistry()
    runner = BatchRunner(store, spec).start()
    deadline = time.time() + 120
    while runner.run_id is None and time.time() < deadline:
        time.sleep(0.02)
    registry.add(runner)
    seen = set()
    while runner.thread.is_alive() and time.time() < deadline:
        html = runs_table_html(run_rows(store, registry))
        for k in range(1, 6):
            if f"{k}/5 calls, 0/1 items · moving_square#2 t={19 + k}.0s" in html:
                seen.add(k)
        time.sleep(0.02)
    runner.thread.join()
    assert runner.error is None
    assert len(seen) >= 2  # the bar moved within the item (each call takes the server's 0.3 s)
    html = runs_table_html(run_rows(store, registry))
    assert "calls 5, retries 0, errors 1 (http_500 1), excluded 0, skipped ticks 0, compliance 100.0 %" in html
