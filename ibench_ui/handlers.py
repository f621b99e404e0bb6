"""Helpers every Annotation sub-tab's handlers share: permission and input errors become a message in
the tab instead of a traceback, and the success message. A module of its own so that the tab modules
(Verify, Review) and the tab host (auth_ui) do not import each other."""
from __future__ import annotations

import functools
from typing import Callable

import gradio as gr

from ibench_ui.render import esc

GUARDED = (PermissionError, ValueError, KeyError)

# The listeners that refresh one sub-tab's queue (a sign-in's refresh, a benchmark or filter chosen after it) run
# one at a time in the order they were asked: side by side, an earlier refresh could land last and draw the other
# benchmark's queue under the one chosen. Keyword arguments for each such listener, by sub-tab.
IN_ORDER = {tab: {"concurrency_id": f"{tab}-queue", "concurrency_limit": 1} for tab in ("verify", "review")}


def error_html(exc: BaseException) -> str:
    msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
    kind = "Not allowed" if isinstance(exc, PermissionError) else "Error"
    return f'<div class="ib-error" role="alert"><b>{kind}:</b> {esc(msg)}</div>'


def ok_html(msg: str) -> str:
    return f'<div class="ib-ok" role="status">{esc(msg)}</div>'


def guarded(n_out: int, msg_index: int) -> Callable:
    """Turn permission and input errors into a message in output `msg_index`; other outputs stay as they are."""
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            try:
                return fn(*args)
            except GUARDED as exc:
                out = [gr.update() for _ in range(n_out)]
                out[msg_index] = error_html(exc)
                return tuple(out) if n_out > 1 else out[0]
        return wrapper
    return deco
