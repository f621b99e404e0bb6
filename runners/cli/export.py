"""`python app.py export responses|verified|dataset`: logged responses as JSONL or native prediction files
(runners.export), or the annotated dataset: `verified` the prefix-verified subset in the native layout,
`dataset` with its review edits, in native, csv, jsonl, eaf or vtt."""
from __future__ import annotations

import sys
from pathlib import Path

from annotation import registry
from runners.checks import USAGE, CliError, usage
from runners.benchmarks import owners
from runners.cli.common import benchmarks


def main(argv: list[str], p) -> int:
    p.add_argument("what", choices=["responses", "verified", "dataset"],
                   help="responses | verified (the prefix-verified subset, native layout) | dataset (with review edits)")
    p.add_argument("--db", default="ibench.sqlite", help="SQLite store")
    from runners.export import tool_formats
    tools = tool_formats()
    p.add_argument("--format", choices=["jsonl", "native", "csv", "eaf", "vtt", *tools],
                   help=f"responses: jsonl (default), native or {' / '.join(tools)} (a benchmark's annotation-tool "
                        "export.json, one per sitting); dataset: native (default), csv, jsonl, eaf or vtt")
    p.add_argument("--out", help="output file or folder")
    p.add_argument("--data", help="dataset folder (default: the session's, or the embedded demo)")
    p.add_argument("--session", help="responses: one session id (default: every session)")
    p.add_argument("--study", help="responses: every participant session of one study (id or name), each with its "
                                   "reaction-time calibration (calibration_s)")
    p.add_argument("--calibration-shift", dest="calibration_shift", action="store_true",
                   help="responses: move each participant's times back by their measured reaction time "
                        "(jsonl: t_shifted; native: the predictions that get scored)")
    shifted = ", ".join(registry.get(b).title for b in owners("EXPORT_FLAGS", "human_reference"))
    p.add_argument("--human-reference", action="store_true",
                   help=f"responses, {shifted}: move A-type answers back by the paper's human-reference shift, "
                        "measured from the sitting (else its study; else the paper's 2.48 s); says which it used")
    p.add_argument("--benchmark", choices=benchmarks(), help="verified/dataset: which benchmark")
    p.add_argument("--include-unchecked", action="store_true",
                   help="verified: also keep items nobody has prefix-checked yet (failed ones are always dropped)")
    p.add_argument("--no-edits", action="store_true", help="verified/dataset: ignore review edits")
    a = p.parse_args(argv)

    if a.what == "responses":
        if a.format not in (None, "jsonl", "native", *tools):
            raise CliError(f"expected jsonl, native or {' or '.join(tools)} for export responses, found {a.format}",
                           file="--format", code=USAGE)
        from runners.export import export_responses
        return export_responses(a.db, session=a.session, fmt=a.format or "jsonl", out=a.out, data=a.data,
                                human_reference=a.human_reference, study=a.study,
                                calibration_shift=a.calibration_shift)
    return export_dataset(a)


def export_dataset(a) -> int:
    """`export verified|dataset`: the annotated dataset, review edits applied, in a native or interchange format."""
    from annotation import interchange, review, verification
    from annotation.loaders import load
    from annotation.store import Store
    from runners import checks
    if not a.benchmark:
        raise usage(f"export {a.what}: expected --benchmark ({', '.join(benchmarks())}), found none", "--benchmark")
    if a.what == "verified" and a.format not in (None, "native"):
        raise usage(f"export verified writes the native layout, found --format {a.format} (drop it)", "--format")
    if a.format not in (None, "native", "csv", "jsonl", "eaf", "vtt"):
        raise usage(f"expected native, csv, jsonl, eaf or vtt for export {a.what}, found {a.format}", "--format")
    fmt = a.format or "native"
    out = a.out or f"export-{a.benchmark}-{a.what}"
    (checks.output_file if fmt in ("csv", "jsonl") else checks.output_dir)(out, "--out")
    checks.check_db(a.db, create=False)
    if a.data is not None:
        checks.input_dir(a.data, "--data")
    ds = load(a.benchmark, a.data, probe_media=False)
    if ds.errors:
        err = checks.from_problem(ds.errors[0])
        err.message += f" ({len(ds.errors)} error(s) in the dataset; python app.py validate {a.benchmark} {ds.root})"
        raise err
    store = Store(a.db)
    if not a.no_edits:
        ds = review.apply_edits(ds, store.reviews(a.benchmark))
    n_all = len(ds)
    if a.what == "verified":
        flagged = verification.flagged(store, ds)
        ds = verification.verified_subset(store, ds, include_unchecked=a.include_unchecked)
        for iid, why in flagged.items():
            print(f"excluded {iid}: prefix already satisfies the request ({why})", file=sys.stderr)
    out = Path(out)
    root = out.parent if out.is_absolute() else Path.cwd()
    path = interchange.export(ds, fmt, root, out if not out.is_absolute() else out.name)
    print(f"wrote {len(ds)} of {n_all} {a.benchmark} items ({fmt}) to {path}", file=sys.stderr)
    return 0
