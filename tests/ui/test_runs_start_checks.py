"""The Runs tab refuses a model it cannot reach before any run row exists, and keeps a failed run's reason."""
import pytest

from annotation.model import Run
from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.models import ModelRegistry
from ibench_ui.runs import runs_table_html
from ibench_ui.runs_service import RunRegistry, run_report_text, run_rows, start_run


def test_missing_model_folder_and_dead_server_are_refused_up_front(tmp_path):
    reg = ModelRegistry.from_dict({"allowed_base_urls": ["http://127.0.0.1:9/v1"],
                                   "models": {"ghost": "hf:/nonexistent/model",
                                              "down": "openai:m@http://127.0.0.1:9/v1"}})
    ctx = AppContext(store=Store(tmp_path / "db.sqlite"), models=reg)
    with pytest.raises(ValueError, match="model folder /nonexistent/model not found"):
        start_run(ctx, RunRegistry(), "proactivebench", "ghost", "", 1, 1, "")
    with pytest.raises(ValueError, match="cannot reach http://127.0.0.1:9/v1/models"):
        start_run(ctx, RunRegistry(), "proactivebench", "down", "", 1, 1, "")
    assert ctx.store.runs() == []


def test_failed_run_keeps_its_reason(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "db.sqlite"))
    ctx.store.create_run(Run(id="run_x", benchmark="proactivebench", model_spec="baseline:motion", protocol="p",
                             data_dir="", config={"limit": 2}, status="running", created=1.7e9))
    ctx.store.update_run("run_x", status="failed", error="all 12 calls failed: connection refused")
    html = runs_table_html(run_rows(ctx.store, RunRegistry()))
    assert "failed: all 12 calls failed: connection refused" in html and "limit=2" in html
    assert run_report_text(ctx, "run_x").endswith("connection refused.")
