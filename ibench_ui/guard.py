"""Server-side role checks, declared where each event of the staff studio is defined.

Every event function is registered with `Events.on(trigger, fn, inputs, outputs, roles=...)`: before `fn`
runs, the caller is resolved on the server (the local single user, or the user of the page's sign-in
token, which `on` passes to the check as an explicit input) and refused unless their role is declared.
Handlers still do their own finer checks (the Review and Verify services do); this layer makes a
forgotten check fail closed, and keeps anonymous visitors to a shared studio from calling anything but
sign-in. `Events.assert_complete` fails the build if any event function was registered around `on`."""
from __future__ import annotations

import functools
import inspect
import typing
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Union

import gradio as gr

from annotation import auth
from ibench_ui.context import AppContext

ANONYMOUS_OK = {"do_signin", "do_signout", "_initial_tab"}  # handler names anyone may call
PUBLIC = "anyone, signed in or not"  # roles=PUBLIC: for the functions named in ANONYMOUS_OK only
SIGNED_IN = auth.ANYONE  # every account's role
QUIET_EVENTS = {"load", "select", "tick"}  # refused silently (the page shows nothing), not with an error
Roles = Union[tuple[str, ...], str]


@dataclass
class Event:
    """One registered event function: who may call it, whether a refusal is silent, the function itself,
    and what Gradio was given: the checked wrapper that calls `fn` and its inputs (the token among them)."""
    name: str
    roles: Roles
    quiet: bool
    fn: Callable
    checked: Optional[Callable] = None
    inputs: Sequence = ()
    dependency_id: int = -1


class Events:
    """Registers the studio's event functions, each behind the role check its definition declares."""

    def __init__(self, ctx: AppContext, token: gr.State):
        self.ctx, self.token = ctx, token  # token: the page's sign-in, a gr.State shared by the tabs
        self.registered: list[Event] = []

    def on(self, trigger: Callable, fn: Callable, inputs=None, outputs=None, *, roles: Roles, **kw):
        """Register `fn` on `trigger` (`button.click`, `demo.load`, `dep.then`, ...) so that only `roles`
        (or the local user; anyone for PUBLIC) may run it; other keywords go to the trigger. A refusal of a
        page load, tick, tab select or State change is silent (gr.skip()); any other is a gr.Error."""
        name = getattr(fn, "__name__", "")
        if (roles == PUBLIC) != (name in ANONYMOUS_OK) or roles != PUBLIC and not set(roles) <= set(auth.ROLES):
            raise ValueError(f"{name}: roles must be PUBLIC exactly for {sorted(ANONYMOUS_OK)}, else account roles")
        if inspect.iscoroutinefunction(fn) or inspect.isgeneratorfunction(fn):
            raise TypeError(f"{name}: the role check wraps plain functions only")
        source = getattr(trigger, "__self__", None)
        quiet = getattr(trigger, "event_name", "then") in QUIET_EVENTS or isinstance(source, gr.State)
        inputs = [] if inputs is None else list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        at = next((i for i, x in enumerate(inputs) if x is self.token), None)  # fn takes the token itself
        event = Event(name, roles, quiet, fn, inputs=inputs if at is not None else [self.token, *inputs])
        event.checked = self._checked(event, at)
        dep = trigger(event.checked, event.inputs, outputs, **kw)
        event.dependency_id = dep["id"]
        self.registered.append(event)
        return dep

    def refusal(self, event: Event, token) -> Optional[str]:
        """Why the holder of `token` may not run `event` (None when they may)."""
        if event.roles == PUBLIC:
            return None
        try:
            self.ctx.require(token if isinstance(token, str) else None, event.roles)
        except PermissionError as exc:
            return str(exc)
        return None

    def assert_complete(self, demo: gr.Blocks) -> None:
        """Fail the build when an event function of `demo` was registered without a declared role."""
        ours = {e.dependency_id for e in self.registered}
        stray = [d.get("api_name") or d["id"] for d in demo.config["dependencies"]
                 if d.get("backend_fn") and d["id"] not in ours]
        if stray:
            raise RuntimeError(f"event functions registered without a declared role (use Events.on): {stray}")

    def _checked(self, event: Event, at: Optional[int]) -> Callable:
        """`event.fn` behind the check. With `at`, the token is the fn's own input there; otherwise it is an
        extra first input, stripped before the call. Gradio sees the fn's signature (plus that input)."""
        def checked(*args):
            why = self.refusal(event, args[at if at is not None else 0])
            if why is not None:
                if event.quiet:
                    return gr.skip()
                raise gr.Error(f"Not allowed: {why}")
            return event.fn(*(args if at is not None else args[1:]))

        fn = event.fn
        try:
            hints = typing.get_type_hints(fn)
        except Exception:  # noqa: BLE001 - unresolvable annotations: Gradio then sees none either
            hints = {}
        sig = inspect.signature(fn)
        params: Sequence[inspect.Parameter] = list(sig.parameters.values())
        if at is None:
            params = [inspect.Parameter("ib_token", inspect.Parameter.POSITIONAL_ONLY), *params]
        functools.update_wrapper(checked, fn)
        del checked.__wrapped__  # Gradio must see the signature below (with the token), not fn's own
        checked.__signature__ = sig.replace(parameters=params)
        checked.__annotations__ = hints  # resolved: Gradio finds a gr.Request parameter by its annotation
        return checked
