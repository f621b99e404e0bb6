"""`python app.py report --db PATH --out DIR`: Markdown + CSV tables of the scorers' own figures with
bootstrap intervals (none below --min-n items; `--ci paper` adds the paper's own) and timeline figures
(HTML + PNG) for every responder in the store: each participant, the pooled humans, each model run and
live model sitting; `--study NAME` keeps one study's participants as the humans."""
from __future__ import annotations

from runners.checks import usage
from runners.cli.common import benchmarks


def _data_dirs(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        bench, sep, path = pair.partition("=")
        if not sep or bench not in benchmarks():
            raise ValueError(f"--data {pair!r}: expected BENCHMARK=DIR with BENCHMARK one of "
                             f"{', '.join(benchmarks())}")
        out[bench] = path
    return out


def main(argv: list[str], p) -> int:
    p.add_argument("--db", default="ibench.sqlite", help="SQLite store holding sessions and runs")
    p.add_argument("--out", required=True, help="output folder (created)")
    p.add_argument("--benchmark", action="append", choices=benchmarks(), help="only these benchmarks (repeatable)")
    p.add_argument("--data", action="append", default=[], metavar="BENCHMARK=DIR",
                   help="dataset folder of a benchmark (default: the embedded demo; repeatable)")
    p.add_argument("--items", nargs="*", help="item ids to draw timelines for (default: items humans answered)")
    p.add_argument("--max-items", type=int, default=5, help="timelines per benchmark when --items is not given")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--level", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--min-n", type=int, default=5, dest="min_n",
                   help="fewest items for an interval; below it the figure is shown alone, with the reason (default 5)")
    p.add_argument("--ci", choices=("ours", "paper"), default="ours",
                   help="ours (default): our item bootstrap; paper: also each benchmark's published intervals of its "
                        "headline where it has them (the paper's seeded procedure over the table's rows in order)")
    p.add_argument("--judge", help="content judge spec for scoring (default: each benchmark's reference judge)")
    p.add_argument("--study", metavar="NAME", help="only this study's participants as human responders and in the "
                   "pooled row (a study id or name; models are always kept)")
    p.add_argument("--pool-studio", action="store_true", dest="pool_studio",
                   help="pool studio sessions with study participants (default: study participants only)")
    p.add_argument("--no-figures", action="store_true", help="tables only")
    p.add_argument("--no-png", action="store_true", help="HTML timelines only")
    a = p.parse_args(argv)

    from annotation.loaders import load
    from annotation.store import Store
    from runners import checks
    from runners.report import write_report
    if not 0 < a.level < 1:  # NaN fails this too
        raise usage(f"expected a number between 0 and 1, found {a.level}", "--level")
    checks.positive_int(a.resamples, "--resamples")
    checks.positive_int(a.min_n, "--min-n")
    if a.max_items < 0:
        raise usage(f"expected an integer >= 0, found {a.max_items}", "--max-items")
    try:
        dirs = _data_dirs(a.data)
    except ValueError as exc:
        raise usage(str(exc), "--data") from None
    for path in dirs.values():
        checks.input_dir(path, "--data")
    checks.output_dir(a.out, "--out")
    checks.check_db(a.db, create=False)
    store = Store(a.db)
    if a.study:
        from runners.report import study_id
        try:
            study_id(store, a.study)
        except KeyError as exc:
            raise usage(str(exc.args[0]), "--study") from None
    datasets = {b: load(b, dirs.get(b), probe_media=False) for b in (a.benchmark or benchmarks())}
    paths = write_report(store, datasets, a.out, items=a.items, n_resamples=a.resamples, seed=a.seed,
                         level=a.level, judge=a.judge, figures=not a.no_figures, png=not a.no_png,
                         max_items=a.max_items, min_n=a.min_n, ci=a.ci, study=a.study, pool_studio=a.pool_studio)
    print(f"wrote {len(paths)} file(s) under {a.out}; start with {paths[0]}")
    return 0
