"""Helpers for the command-line tests: run a verb in-process through app.main, and see what it left on disk."""
import json
import os
from pathlib import Path

import pytest

from annotation.loaders import demo_dir, load
from app import main

REPO = Path(__file__).resolve().parents[2]


class Result:
    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    @property
    def error_lines(self):
        return [line for line in self.err.splitlines() if line.startswith("error:")]

    def refused(self, code, *needles):
        """Exit `code`, exactly one `error:` line on stderr holding every needle, no traceback."""
        assert self.code == code, (self.code, self.err)
        assert len(self.error_lines) == 1, self.err
        assert "Traceback" not in self.err, self.err
        for n in needles:
            assert n in self.error_lines[0], (n, self.error_lines[0])
        return self.error_lines[0]


@pytest.fixture
def cli(capsys):
    def run(*args):
        capsys.readouterr()
        code = main([str(a) for a in args])
        cap = capsys.readouterr()
        return Result(code, cap.out, cap.err)
    return run


def tree(root: Path) -> set:
    """Every path under root (files and folders), relative; compared before and after a refused command."""
    return {str(p.relative_to(root)) for p in Path(root).rglob("*")}


@pytest.fixture
def ib_demo():
    return demo_dir("interactionbench")


def write_ib_preds(path: Path, emissions=None, extra_lines=()) -> Path:
    """One prediction line per demo InteractionBench item (an emission at 5 s), plus raw extra lines."""
    ds = load("interactionbench", probe_media=False)
    lines = []
    for it in ds.items:
        r = it.native
        lines.append(json.dumps({"video_id": r["video_id"], "item_index": r["item_index"],
                                 "emissions": emissions if emissions is not None else [{"t": 5.0, "content": "four"}]}))
    path.write_text("\n".join(list(lines) + list(extra_lines)) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def ib_preds(tmp_path):
    return write_ib_preds(tmp_path / "preds.jsonl")


def ib_dataset(root: Path, items, vid="v1", duration=30) -> Path:
    """A one-video InteractionBench dataset under root with the given item dicts."""
    f = root / "annotations" / "d" / f"{vid}.json"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps({"video_id": vid, "domain": "d", "duration_s": duration, "items": items}))
    return root


GOOD_ITEM = {"capability": "PTR", "time_type": "B", "question": "tell me when",
             "answers": [{"time_s": 5, "content": "now"}]}


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    """Every CLI test runs in its own working folder, so a default output path never lands in the repo."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("IBENCH_PASSWORD", raising=False)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture
def h():
    """The helpers above, for test modules (importlib import mode gives conftest no importable name)."""
    import types
    return types.SimpleNamespace(tree=tree, write_ib_preds=write_ib_preds, ib_dataset=ib_dataset, GOOD_ITEM=GOOD_ITEM,
                                 REPO=REPO)
