"""Server-side role checks, declared where each event of the staff studio is defined.

Every event function is registered with `Events.on(trigger, fn, inputs, outputs, roles=...)`: before `fn`
runs, the caller is resolved on the server (the local single user, or the account of the sign-in cookie the
request carries, ibench_ui.auth_routes) and refused unless their role is declared. A handler that lists
`events.token` among its inputs receives the cookie's session id there: the State itself only ever holds a
sign-in counter (it changes on each sign-in and sign-out, so tabs redraw), never a secret.
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
from ibench_ui.auth_routes import caller_id
from ibench_ui.context import AppContext

ANONYMOUS_OK = {"signed_in", "signin_status", "_initial_tab"}  # handler names anyone may call
PUBLIC = "anyone, signed in or not"  # roles=PUBLIC: for the functions named in ANONYMOUS_OK only
SIGNED_IN = auth.ANYONE  # every account's role
QUIET_EVENTS = {"load", "select", "tick"}  # refused silently (the page shows nothing), not with an error
Roles = Union[tuple[str, ...], str]


@dataclass
class Event:
    """One registered event function: who may call it, whether a refusal is silent, the function itself,
    and what Gradio was given: the checked wrapper that calls `fn` and its inputs."""
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
        self.ctx, self.token = ctx, token  # token: the sign-in counter State shared by the tabs (see above)
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
        at = next((i for i, x in enumerate(inputs) if x is self.token), None)  # fn takes the caller's id there
        event = Event(name, roles, quiet, fn, inputs=inputs)
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
        """`event.fn` behind the check. Gradio hands the wrapper the request first (by its annotation); the
        caller is the request's sign-in cookie, put in place of the `events.token` input at `at` if fn takes
        one. Gradio sees the fn's signature plus that request parameter."""
        def checked(ib_request, *args):
            caller = caller_id(ib_request)
            why = self.refusal(event, caller)
            if why is not None:
                if event.quiet:
                    return gr.skip()
                raise gr.Error(f"Not allowed: {why}")
            if at is not None:
                args = (*args[:at], caller, *args[at + 1:])
            return event.fn(*args)

        fn = event.fn
        try:
            hints = typing.get_type_hints(fn)
        except Exception:  # noqa: BLE001 - unresolvable annotations: Gradio then sees none either
            hints = {}
        sig = inspect.signature(fn)
        params: Sequence[inspect.Parameter] = [inspect.Parameter("ib_request", inspect.Parameter.POSITIONAL_ONLY),
                                               *sig.parameters.values()]
        functools.update_wrapper(checked, fn)
        del checked.__wrapped__  # Gradio must see the signature below (with the request), not fn's own
        checked.__signature__ = sig.replace(parameters=params)
        checked.__annotations__ = {**hints, "ib_request": gr.Request}  # Gradio finds gr.Request params by hint
        return checked
