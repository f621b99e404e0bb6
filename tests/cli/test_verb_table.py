"""The command line is one package with a lazy verb table: a verb's module is imported only when that verb runs,
`python app.py -h` lists every verb, no UI or library module imports the CLI package, and the package spells no
benchmark's name (the names and each benchmark's own flags come from the registry and its hooks)."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

from runners.cli import DEFAULT_VERB, VERBS

REPO = Path(__file__).resolve().parents[2]
ENV = {"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}


def _module(verb: str) -> str:
    return VERBS[verb][1].partition(":")[0]


def _modules_after_help(argv: list[str]) -> set[str]:
    """The modules loaded by `python app.py <argv> -h` (each verb's help builds its parser and exits)."""
    code = ("import sys, io, contextlib\n"
            "from app import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            f"        main({argv + ['-h']!r})\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print(sorted(sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True,
                         env=ENV).stdout
    return set(eval(out))  # noqa: S307 - our own printed list


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_a_verb_imports_its_own_module_and_no_other_verbs(verb):
    mods = _modules_after_help([verb])
    assert _module(verb) in mods
    assert [v for v in VERBS if v != verb and _module(v) in mods] == []


def test_no_verb_runs_the_serve_verb_alone():
    mods = _modules_after_help([])
    assert [v for v in VERBS if _module(v) in mods] == [DEFAULT_VERB]


def test_importing_the_package_imports_no_verb():
    code = ("import sys, runners.cli\n"
            "print(sorted(m for m in sys.modules if m.startswith(('runners.cli.', 'ibench_ui'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True, env=ENV)
    assert out.stdout.strip() == "[]"


def test_help_without_a_verb_lists_every_verb_and_the_studios_flags():
    res = subprocess.run([sys.executable, str(REPO / "app.py"), "-h"], cwd=REPO, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    assert res.returncode == 0, res.stderr
    listed = {line.split()[0] for line in res.stdout.split("verbs (", 1)[1].splitlines()[1:] if line.strip()}
    assert listed == set(VERBS)
    assert "--db" in res.stdout and "--host" in res.stdout


def _imports(path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return out


def test_no_ui_or_library_module_imports_the_cli_package():
    cli = REPO / "runners" / "cli"
    bad = [str(p.relative_to(REPO)) for pkg in ("annotation", "scoring", "runners", "ibench_ui")
           for p in (REPO / pkg).rglob("*.py") if cli not in p.parents
           and any(m == "runners.cli" or m.startswith("runners.cli.") for m in _imports(p))]
    assert bad == []


def test_the_cli_package_spells_no_benchmark_name():
    from annotation import registry
    bad = []
    for p in (REPO / "runners" / "cli").rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                bad += [f"{p.name}:{node.lineno} {name}" for name in registry.names() if name in node.value]
    assert bad == []
