"""Shared test setup: offline hub, golden folder, repo paths."""
import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def golden_dir() -> Path:
    """The golden vectors folder: $IBENCH_GOLDEN_DIR or ../shared/golden beside the repo."""
    return Path(os.environ.get("IBENCH_GOLDEN_DIR", REPO.parent / "shared" / "golden"))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def golden() -> Path:
    return golden_dir()


@pytest.fixture
def fast_argon2(monkeypatch):
    """annotation.auth hashing at argon2's cheapest parameters: the same hash and verify rules in well under a
    millisecond, instead of ~0.5 s per sign-in on a loaded machine (rule tests sign in hundreds of times)."""
    from argon2 import PasswordHasher

    from annotation import auth

    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    monkeypatch.setattr(auth, "_hasher", cheap)
    monkeypatch.setattr(auth, "_DUMMY_HASH", cheap.hash("not-a-real-password"))
