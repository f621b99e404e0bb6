"""`python app.py score <benchmark> …`: the reference's spellings glued, the flags of runners.score_command
parsed, then checked, scored, written (--out, atomically) and printed as the paper table."""
from __future__ import annotations

from runners.benchmarks import hook
from runners.cli.common import benchmarks
from runners.score_command import arguments, glue_reference_args, score_command


def main(argv: list[str], p) -> int:
    argv = glue_reference_args(argv)
    named = next((t for t in argv if t in benchmarks()), None)
    if named is not None:
        argv = hook(named, "score_argv", lambda argv: argv)(argv)
    arguments(p)
    return score_command(p.parse_args(argv))
