"""What the verbs share: the argparse that refuses in the one error line, the benchmark names (the registry's),
and who a benchmark-specific flag is for, read from what each benchmark's runners hooks say of their own flags
(so no verb spells a benchmark's name)."""
from __future__ import annotations

import argparse

from annotation import registry
from runners.checks import USAGE, CliError


class Parser(argparse.ArgumentParser):
    """argparse that raises a usage CliError (one line, exit 2) instead of printing usage and exiting, and takes
    options and positionals in any order (`score <benchmark> --data D preds.jsonl --use-gate`, as the
    reference's `ibench eval` users write it): every verb parses intermixed, except one with sub-commands or a
    pass-through remainder (argparse cannot intermix those)."""

    def parse_args(self, args=None, namespace=None):
        if self._intermixable():
            return self.parse_intermixed_args(args, namespace)
        return super().parse_args(args, namespace)

    def _intermixable(self) -> bool:
        return not any(isinstance(x, argparse._SubParsersAction) or x.nargs in (argparse.PARSER, argparse.REMAINDER)
                       for x in self._actions)

    def error(self, message: str):
        verb_name = self.prog[len("python app.py"):].strip()
        raise CliError(f"{message} (see python app.py {verb_name + ' ' if verb_name else ''}-h)", code=USAGE)


def benchmarks() -> tuple[str, ...]:
    """The benchmark names a verb accepts, in the registry's order."""
    return registry.names()
