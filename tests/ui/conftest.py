"""Shared UI-test setup: a SessionService on a fresh store (its live-model workers stopped afterwards). The media
clock bound is lifted (clock_slack=inf): these tests are about other rules; tests/security tests the bound."""
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
