"""Imports point one way: annotation <- scoring <- runners <- ibench_ui <- app.py; scoring stays pure."""
import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FORBIDDEN = {
    "annotation": {"scoring", "runners", "ibench_ui", "gradio", "torch", "transformers", "openai"},
    "scoring": {"runners", "ibench_ui", "gradio", "torch", "transformers", "openai"},
    "runners": {"ibench_ui", "gradio"},
}
HEAVY_AT_MODULE_LEVEL = {"torch", "transformers", "openai", "faster_whisper"}


def _imports(path: Path, top_level_only: bool) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_does_not_import_upstream(package):
    bad = []
    for path in (REPO / package).rglob("*.py"):
        # lazy imports inside functions are allowed for heavy libraries, never for upstream packages
        hits = _imports(path, top_level_only=False) & (FORBIDDEN[package] - HEAVY_AT_MODULE_LEVEL - {"gradio"})
        hits |= _imports(path, top_level_only=True) & FORBIDDEN[package]
        if hits:
            bad.append(f"{path.relative_to(REPO)}: {sorted(hits)}")
    assert not bad, "\n".join(bad)


def test_nothing_but_app_imports_the_ui():
    bad = [str(p.relative_to(REPO)) for pkg in ("annotation", "scoring", "runners")
           for p in (REPO / pkg).rglob("*.py") if "ibench_ui" in _imports(p, top_level_only=False)]
    assert not bad


@pytest.mark.parametrize("package", ["annotation", "scoring", "runners"])
def test_no_heavy_imports_at_module_level(package):
    bad = [str(p.relative_to(REPO)) for p in (REPO / package).rglob("*.py")
           if _imports(p, top_level_only=True) & HEAVY_AT_MODULE_LEVEL]
    assert not bad, bad
