"""`python app.py list <benchmark> [--data DIR]`: the item ids of a dataset, one per line."""
from __future__ import annotations

from runners.cli.common import benchmarks


def main(argv: list[str], p) -> int:
    p.add_argument("benchmark", choices=benchmarks())
    p.add_argument("--data", help="dataset folder (default: the embedded demo)")
    a = p.parse_args(argv)

    from annotation.loaders import load
    from runners.checks import from_problem, input_dir
    if a.data is not None:
        input_dir(a.data, "--data")
    ds = load(a.benchmark, a.data, probe_media=False)
    for it in ds.items:
        print(it.id)
    if ds.errors:
        err = from_problem(ds.errors[0])
        err.message += f" ({len(ds.errors)} error(s); python app.py validate {a.benchmark} {ds.root})"
        raise err
    return 0
