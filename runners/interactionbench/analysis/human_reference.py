"""`analysis human_reference <convert|reaction-latency|shift-a|score|compare>`: the paper's human reference
procedure (reference `analysis/human_reference.py`): the annotation tool's export converted to a run, the measured
reaction shift taken off A-type answers, scoring with multiple choice graded by option text, and the comparison with
systems on the human's items."""
from __future__ import annotations

from runners.interactionbench.analysis.common import (DEFAULT_JUDGE_CACHE, EVAL_JUDGE, EVAL_NOJUDGE, Parser,
                                                      add_common_args, add_fixed, parser, resolve_common)
from runners.interactionbench.analysis.human_run import HUMAN_RUN


def _base(p) -> None:
    add_common_args(p)
    p.add_argument("--human-run", default=HUMAN_RUN,
                   help="name of the human run folder under --runs-root (default: %(default)s)")


def build_parser() -> Parser:
    ap = parser("human_reference", __doc__)
    sub = ap.add_subparsers(dest="command", required=True, parser_class=Parser)

    p = sub.add_parser("convert", help="tool export -> prediction schema")
    _base(p)
    p.add_argument("raw", help="export of the annotation tool (JSON)")
    p.add_argument("--run-dir", default=None, help="output folder (default <runs_root>/<human_run>)")
    p.add_argument("--model", default="human")
    add_fixed(p)
    p.set_defaults(func="human_convert:cmd_convert")

    p = sub.add_parser("reaction-latency", help="measure the human reaction latency")
    _base(p)
    p.add_argument("--raw", default=None,
                   help="export of the annotation tool (default <runs_root>/<human_run>/human_raw.json)")
    p.add_argument("--preds-name", default="preds.jsonl")
    p.set_defaults(func="human_shift:cmd_reaction_latency")

    p = sub.add_parser("shift-a", help="shift A-type emissions back by the reaction latency")
    _base(p)
    p.add_argument("--shift", type=float, default=None,
                   help="seconds; default: shift_s_used of --reaction-offset")
    p.add_argument("--reaction-offset", default=None,
                   help="output of reaction-latency (default <out>/reaction_offset.json)")
    p.add_argument("--preds-name", default="preds.jsonl")
    p.set_defaults(func="human_shift:cmd_shift_a")

    p = sub.add_parser("score", help="score with multiple choice graded by option text")
    _base(p)
    p.add_argument("predictions")
    p.add_argument("--items", default=None, help="file of item ids (default items.txt next to the predictions)")
    p.add_argument("--judge", required=True, help="judge spec, e.g. cache:<verdict files>")
    p.add_argument("--judge-cache", default=DEFAULT_JUDGE_CACHE,
                   help="verdict file of a model judge (the reference's; stored-verdict specs name their own)")
    p.add_argument("--judge-prompt", default="v2", help="grading prompt version: v1, v2")
    p.add_argument("--eval-name", default=f"{EVAL_JUDGE}_mcqtext",
                   help="evaluation folder name, created next to the predictions (default: %(default)s)")
    p.add_argument("--eval-dir", default=None, help="evaluation folder; overrides --eval-name")
    p.add_argument("--delta", type=float, default=None, help="acceptable-delay bound Delta, seconds (default 5.0)")
    p.add_argument("--pre-tol", type=float, default=None,
                   help="pre-anchor tolerance, seconds (default 1.0); 'inf' selects the unbounded tolerance")
    p.set_defaults(func="human_score:cmd_score")

    p = sub.add_parser("compare", help="human run and systems on the same items")
    _base(p)
    p.add_argument("--runs", nargs="*", default=None,
                   help="system run names, or a file with one name per line (default: the five systems of the paper)")
    p.add_argument("--eval-name", default=EVAL_NOJUDGE, help="evaluation without a judge (default: %(default)s)")
    p.add_argument("--judge-eval-name", default=EVAL_JUDGE, help="evaluation with the judge (default: %(default)s)")
    p.add_argument("--human-judge-eval-name", default=None,
                   help="judged evaluation of the human run (default: --judge-eval-name)")
    add_fixed(p)
    p.set_defaults(func="human_compare:cmd_compare")
    return ap


def main(argv: list[str]) -> int:
    import importlib
    args = build_parser().parse_args(argv)
    resolve_common(args)
    module, _, function = args.func.partition(":")
    getattr(importlib.import_module(f"{__package__}.{module}"), function)(args)
    return 0
