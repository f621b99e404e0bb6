"""Imports point one way: annotation <- scoring <- runners <- ibench_ui <- app.py; scoring stays pure."""
import ast
import re
import sys
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


# ---------------------------------------------------------------- no circles, no benchmark names outside their rooms

PRODUCT = ("annotation", "scoring", "runners", "ibench_ui")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _product_modules() -> dict[str, Path]:
    mods = {_module_name(p): p for pkg in PRODUCT for p in (REPO / pkg).rglob("*.py")}
    mods["app"] = REPO / "app.py"
    return mods


def _edges(name: str, path: Path, known: set[str]) -> set[str]:
    """Every product module `name` imports, at module level or inside a function (relative imports resolved;
    `from pkg import sub` is an edge to the submodule `pkg.sub` when there is one, else to `pkg`)."""
    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_pkg else name.split(".")[:-1]
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for a in node.names:
                out.add(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base)
    return {m for m in out if m in known and m != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circles_function_level_imports_counted():
    mods = _product_modules()
    graph = {name: _edges(name, path, set(mods)) for name, path in mods.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_sees_a_circle_through_a_function_level_import(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("import b\n")
    b.write_text("def f():\n    from a import x\n")
    graph = {"a": _edges("a", a, {"a", "b"}), "b": _edges("b", b, {"a", "b"})}
    assert _cycles(graph) == [["a", "b"]]


def _strings(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def _misplaced_names(path: Path, names: tuple[str, ...]) -> list[str]:
    """Lines of `path` whose string literals (docstrings and f-string parts included) spell a benchmark's name
    outside that benchmark's rooms: only registry.py, benchmarks.py and paths that contain the name may."""
    rel = path.relative_to(REPO).as_posix()
    if path.name in ("registry.py", "benchmarks.py"):
        return []
    bad = []
    for lineno, text in _strings(ast.parse(path.read_text(encoding="utf-8"))):
        for name in names:
            if name not in rel and re.search(rf"(?<![A-Za-z]){name}(?![A-Za-z])", text):
                bad.append(f"{rel}:{lineno}: {name}")
    return bad


def test_a_benchmark_is_named_only_in_the_registry_and_its_own_folders():
    from annotation.registry import names
    files = [p for pkg in PRODUCT for p in (REPO / pkg).rglob("*.py")] + [REPO / "app.py"]
    bad = [hit for p in files for hit in _misplaced_names(p, names())]
    assert bad == []


def test_the_name_check_sees_docstrings_f_strings_and_dict_keys(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    (tmp_path / "scoring").mkdir()
    f = tmp_path / "scoring" / "x.py"
    f.write_text('"""reads omniinteract rows"""\nA = {"proactivebench": 1}\nB = f"{A}/interactscope"\n'
                 'C = "interactionbenchmark"\n')
    assert _misplaced_names(f, ("omniinteract", "proactivebench", "interactscope", "interactionbench")) == [
        "scoring/x.py:1: omniinteract", "scoring/x.py:2: proactivebench", "scoring/x.py:3: interactscope"]
    own = tmp_path / "scoring" / "omniinteract"
    own.mkdir()
    (own / "y.py").write_text('X = "omniinteract"\nY = "interactscope"\n')
    assert _misplaced_names(own / "y.py", ("omniinteract", "interactscope")) == ["scoring/omniinteract/y.py:2: interactscope"]
