"""Shared UI-test setup: a SessionService on a fresh store (its live-model workers stopped afterwards)."""
from __future__ import annotations

import pytest

from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.session import SessionService


@pytest.fixture
def svc(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"), asr_model=str(tmp_path / "none"))
    s = SessionService(ctx)
    yield s
    for w in s.hub.workers():
        w.stop("test over")
