"""`python app.py analysis <script> <its arguments>`: a benchmark's published analysis script run as a drop-in.
The scripts come from each benchmark's `analysis_scripts` runners hook (script name -> "module:function"); the
function takes the script's own argument list and returns its exit code."""
from __future__ import annotations

import importlib

from runners.benchmarks import hook
from runners.checks import USAGE, CliError


def scripts() -> dict[str, str]:
    """Script name -> "module:function" over every registered benchmark (a name two benchmarks share is refused)."""
    from annotation import registry
    table: dict[str, str] = {}
    for name in registry.names():
        for script, target in hook(name, "ANALYSIS_SCRIPTS", {}).items():
            if script in table:
                raise CliError(f"analysis script {script!r} is named by two benchmarks", code=USAGE)
            table[script] = target
    return table


def main(argv: list[str], p) -> int:
    table = scripts()
    p.add_argument("script", choices=sorted(table), help="the analysis script (its name without .py)")
    p.add_argument("args", nargs="...", help="the script's own arguments")
    a = p.parse_args(argv[:1])
    module, _, function = table[a.script].partition(":")
    return int(getattr(importlib.import_module(module), function)(argv[1:]) or 0)
