"""Server-side role checks around every event function of the staff studio.

Each tab's handlers are wrapped when the studio is built: before a handler runs, the caller is
resolved on the server (the local single user, or the sign-in token in the page's session state)
and refused unless their role may use that tab. Handlers still do their own finer checks (the
annotation routes do); this layer makes a forgotten check fail closed, and keeps anonymous
visitors to a shared studio from calling anything but sign-in."""
from __future__ import annotations

import functools
import inspect
import typing
from typing import Callable, Iterable, Optional

import gradio as gr

from ibench_ui.context import AppContext

ANONYMOUS_OK = {"do_signin", "do_signout", "_initial_tab"}  # handler names anyone may call
QUIET_EVENTS = {"load", "select", "tick"}  # refused silently (the page shows nothing), not with an error


def _token(demo: gr.Blocks, token: gr.State, request: Optional[gr.Request]) -> str:
    holder = getattr(demo, "state_holder", None)
    sh = getattr(request, "session_hash", None)
    if holder is None or not sh or sh not in holder:
        return ""
    value = holder[sh].state_data.get(token._id, "")
    return value if isinstance(value, str) else ""


def guard_functions(demo: gr.Blocks, ctx: AppContext, token: gr.State, fn_ids: Iterable[int],
                    roles: tuple[str, ...]) -> None:
    """Wrap the event functions `fn_ids` of `demo` so only `roles` (or the local user) may run them."""
    for fid in list(fn_ids):
        block_fn = demo.fns[fid]
        fn = block_fn.fn
        if fn is None or getattr(fn, "__name__", "") in ANONYMOUS_OK or getattr(fn, "_ib_guarded", False):
            continue
        # page events and a State's own changes (a sign-in refreshing a tab) are refused without a message
        quiet = any(ev in QUIET_EVENTS or isinstance(demo.blocks.get(bid), gr.State)
                    for bid, ev in (block_fn.targets or []))
        block_fn.fn = _wrap(demo, ctx, token, fn, roles, quiet, len(block_fn.outputs))


def _wrap(demo, ctx, token, fn: Callable, roles, quiet: bool, n_out: int) -> Callable:
    sig = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - unresolvable annotations: Gradio then sees none either
        hints = {}
    params = list(sig.parameters.values())
    ridx = next((i for i, p in enumerate(params) if hints.get(p.name) in (gr.Request, Optional[gr.Request])), None)
    own = ridx is not None
    if not own:
        ridx = len([p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
        params.insert(ridx, inspect.Parameter("ib_request", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                              annotation=gr.Request))

    def check(args) -> Optional[tuple]:
        request = args[ridx] if ridx < len(args) else None
        try:
            ctx.require(_token(demo, token, request), roles)
            return None
        except PermissionError as exc:
            if quiet:
                skips = tuple(gr.skip() for _ in range(n_out))
                return (skips if n_out != 1 else skips[0],)
            raise gr.Error(f"Not allowed: {exc}") from None

    def strip(args):
        return args if own else args[:ridx] + args[ridx + 1:]

    if inspect.iscoroutinefunction(fn):
        async def wrapper(*args):
            denied = check(args)
            if denied is not None:
                return denied[0]
            return await fn(*strip(args))
    elif inspect.isgeneratorfunction(fn):
        def wrapper(*args):
            denied = check(args)
            if denied is not None:
                yield denied[0]
                return
            yield from fn(*strip(args))
    else:
        def wrapper(*args):
            denied = check(args)
            if denied is not None:
                return denied[0]
            return fn(*strip(args))
    functools.update_wrapper(wrapper, fn)
    del wrapper.__wrapped__  # Gradio must see the wrapper's own signature (with the request)
    wrapper.__signature__ = sig.replace(parameters=params)
    wrapper.__annotations__ = {**hints, "ib_request" if not own else params[ridx].name: gr.Request}
    wrapper._ib_guarded = True
    return wrapper
