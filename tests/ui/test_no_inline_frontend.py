"""The front end ships one way (issue 21): JS and CSS live in ibench_ui/static/ and pages load them from the host's
static route. No ibench_ui module holds a script or style block, a JS function body, a CSS rule or an inline event
handler in a string, and every `js=`/`js_on_load=` Gradio gets is one call of a function a static module defines."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

UI = Path(__file__).resolve().parents[2] / "ibench_ui"
FORBIDDEN = {
    "a <script> block": re.compile(r"<\s*script(?![^>]*\bsrc\s*=)", re.I),  # <script src=...> loads a static file
    "a <style> block": re.compile(r"<\s*style", re.I),
    "a JS arrow function body": re.compile(r"=>\s*\{"),
    "a JS function": re.compile(r"\bfunction\s*[\w$]*\s*\("),
    "an inline event handler": re.compile(r"<[^>]*\son[a-z]+\s*=", re.I),
    "a CSS rule": re.compile(r"[\w\]\)*-]\s*\{\s*[a-z-]+\s*:[^{};]+;"),
}
# `() => window.ibX.f(args)`, `ibX.f(args)`: one call, no statements, no body
ONE_CALL = re.compile(r"^(\(\)\s*=>\s*)?(window\.)?ib\w+\.\w+\([^;{}=]*\)$")


def _modules() -> list[Path]:
    return sorted(UI.rglob("*.py"))


def _text(node: ast.AST, names: dict[str, str] | None = None) -> str | None:
    """A string literal's text; an f-string's with each replacement field as X; a module-level string constant's
    by its name (from `names`); None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "X" for v in node.values)
    if isinstance(node, ast.Name) and names is not None:
        return names.get(node.id)
    return None


def _string_constants() -> dict[str, str]:
    """NAME -> text of every module-level `NAME = "..."` in ibench_ui (a js_on_load may name one)."""
    out = {}
    for path in UI.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                text = _text(node.value)
                if text is not None:
                    out[node.targets[0].id] = text
    return out


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.name)
def test_no_js_or_css_in_python_strings(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = _text(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        found += [f"line {node.lineno}: {what}" for what, pat in FORBIDDEN.items() if pat.search(text)]
    assert not found, f"{path.name}: move these to ibench_ui/static/: {found}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.name)
def test_gradio_js_is_one_call_of_a_static_function(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = _string_constants()
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg not in ("js", "js_on_load") or (isinstance(kw.value, ast.Constant) and kw.value.value is None):
                continue
            text = _text(kw.value, names)
            if text is None or not ONE_CALL.match(text.strip()):
                bad.append(f"line {kw.value.lineno}: {kw.arg}={ast.unparse(kw.value)}")
    assert not bad, f"{path.name}: {bad}"


def test_the_scan_sees_what_it_forbids():
    samples = ["<script>x()</script>", '<script type="module">', "<STYLE>", "() => { a(); }", "function (x) {", "function go(x) {",
               '<form onsubmit="return false">', "#next-btn { scroll-margin-bottom: 12px; }",
               ".a > b{color:#fff;}"]
    for s in samples:
        assert any(p.search(s) for p in FORBIDDEN.values()), s
    assert all(not p.search(s) for s in ('{"ok": false, "error": "x"}', "f(x) -> {x: y}", "<b>on time</b>",
                                         '<script src="/ib-static/a.js?v=1"></script>')
               for p in FORBIDDEN.values())
    assert ONE_CALL.match("ibenchSession.mount(element, server)")
    assert ONE_CALL.match("() => window.ibPlayer.step('X', X)")
    assert not ONE_CALL.match("() => { const el = x; f(el); }") and not ONE_CALL.match("a(); b()")
