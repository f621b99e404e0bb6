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
