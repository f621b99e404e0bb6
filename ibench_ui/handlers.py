"""Helpers the tabs' handlers share: permission and input errors become a message in the tab (the Annotation
sub-tabs) or Gradio's error popup (Runs, Compare) instead of a traceback, and the success message. A module of
its own so that the tab modules (Verify, Review) and the tab host (auth_ui) do not import each other."""
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


def reports_to(msg: gr.components.Component) -> Callable:
    """Turn a handler's permission and input errors into a message in `msg`; its other outputs stay as they are.
    The handler returns {component: value}, so no output is named by its position."""
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            try:
                return fn(*args)
            except GUARDED as exc:
                return {msg: error_html(exc)}
        return wrapper
    return deco


def raises_shown(fn: Callable) -> Callable:
    """Turn a handler's permission and input errors into Gradio's error popup with their own text (for tabs
    without a message box); the handler keeps its name, so its event's api_name stays."""
    @functools.wraps(fn)
    def wrapper(*args):
        try:
            return fn(*args)
        except (PermissionError, ValueError) as exc:
            raise gr.Error(str(exc)) from None
    return wrapper
