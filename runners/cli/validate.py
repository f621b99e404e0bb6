"""`python app.py validate <benchmark> [PATH]`: load a dataset, print its counts per item kind and every problem."""
from __future__ import annotations

from runners.checks import CliError
from runners.cli.common import benchmarks


def main(argv: list[str], p) -> int:
    p.add_argument("benchmark", choices=benchmarks())
    p.add_argument("path", nargs="?", help="dataset folder (default: the embedded demo)")
    p.add_argument("--no-media", action="store_true", help="skip probing the video files")
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")
    a = p.parse_args(argv)

    from annotation.loaders import load
    from runners.checks import input_dir
    if a.path is not None:
        input_dir(a.path, "PATH")
    ds = load(a.benchmark, a.path, probe_media=not a.no_media)
    print(f"{a.benchmark}: {len(ds)} items in {ds.root}")
    for kind, n in ds.kind_counts().items():
        print(f"  {kind}: {n}")
    for prob in ds.problems:
        print(prob)
    n_err = len(ds.errors)
    n_warn = len(ds.problems) - n_err
    print(f"{n_err} error(s), {n_warn} warning(s)")
    if n_err or (a.strict and n_warn):
        raise CliError(f"expected a dataset without {'errors' if n_err else 'warnings (--strict)'}, found "
                       f"{n_err} error(s) and {n_warn} warning(s), listed above", file=str(ds.root))
    return 0
