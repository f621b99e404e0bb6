"""Shared UI-test setup: a SessionService on a fresh store (its live-model workers stopped afterwards), and a store
with a batch run, a human session and an account per role for the Runs and Compare services. The media clock
bound is lifted (clock_slack=inf): these tests are about other rules; tests/security tests the bound."""
from __future__ import annotations

import math

import pytest

from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.session import SessionService


@pytest.fixture
def svc(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"), asr_model=str(tmp_path / "none"))
    s = SessionService(ctx, clock_slack=math.inf)
    yield s
    for w in s.hub.workers():
        w.stop("test over")


@pytest.fixture(scope="module")
def studio_store(tmp_path_factory):
    """A store the Runs and Compare services read: one batch run of baseline:periodic:5 on InteractionBench's
    ball_counter#0 (through the CLI, in-process), participant P01's human session on color_scene#0 (saying
    "The background turned blue." at 11 s), then one account per role. Yields (db path, run id, tokens by role,
    None for anonymous)."""
    from annotation import auth
    from runners.cli import main

    d = tmp_path_factory.mktemp("studio")
    (d / "items.txt").write_text("ball_counter#0\n")
    assert main(["run", "--benchmark", "interactionbench", "--model", "baseline:periodic:5",
                 "--items", str(d / "items.txt"), "--db", str(d / "db.sqlite")]) == 0
    store = Store(d / "db.sqlite")
    sessions = SessionService(AppContext(store=store, asr_model=str(d / "none")), clock_slack=math.inf)
    sid = sessions.open_session({"participant": "P01", "benchmark": "interactionbench",
                                 "items": "color_scene#0"})["session"]["id"]
    base = {"session_id": sid, "item_index": 0, "item_id": "color_scene#0", "page_id": "pg-P01"}
    assert sessions.respond({**base, "kind": "text", "text": "The background turned blue.", "media_t": 11.0,
                             "source": "text"})["ok"]
    assert sessions.finish_item({"session_id": sid, "item_index": 0})["ok"]
    tokens = {None: ""}
    for role in ("annotator", "reviewer", "admin"):
        auth.create_user(store, role, role, f"{role}-password")
        tokens[role] = auth.sign_in(store, role, f"{role}-password")
    (run,) = store.runs()
    yield d / "db.sqlite", run.id, tokens
    store.close()
