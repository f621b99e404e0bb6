"""Server-side role checks for the staff studio, read from the role table (ibench_ui.role_table).

Every event function is registered with `Events.on(trigger, fn, inputs, outputs)` inside `events.tab(tab_id)`
(the page header and load outside any): its roles are the table's entry for (tab, function name), and a
function the table lacks fails the build. Before `fn` runs, the caller is resolved on the server (the local
single user, or the account of the sign-in cookie the request carries, ibench_ui.auth_routes) and refused
unless their role is listed (`refusal`, which the Session tab's server functions use too). A handler that lists
`events.token` among its inputs receives the cookie's session id there: the State itself only ever holds a
sign-in counter (it changes on each sign-in and sign-out, so tabs redraw), never a secret.
Handlers still do their own finer checks (the Review and Verify services do); this layer makes a
forgotten check fail closed, and keeps anonymous visitors to a shared studio from calling anything but
the sign-in status, the tabs' "who is this for" lines and the opening tab. `Events.assert_complete` fails the build if any event function was registered around `on`."""
from __future__ import annotations

import contextlib
import functools
import inspect
import typing
from dataclasses import dataclass
from typing import Callable, Iterator, Optional, Sequence

import gradio as gr

from annotation import auth
from ibench_ui import role_table
from ibench_ui.auth_routes import caller_id
from ibench_ui.context import AppContext
from ibench_ui.role_table import ANONYMOUS

PAGE = "page"  # where the header's and the page load's events are registered (outside every tab)
QUIET_EVENTS = {"load", "select", "tick"}  # refused silently (the page shows nothing), not with an error
Roles = tuple[str, ...]


def check_roles(where: str, roles: Roles) -> None:
    """Fail on a table entry that is not a tuple (`("admin")` is a string), names no role or an unknown role,
    or anonymous without every account (anonymous means "anyone": a table cannot let in visitors who did not
    sign in while refusing some who did)."""
    if not isinstance(roles, tuple) or not roles or not set(roles) <= {ANONYMOUS, *auth.ROLES}:
        raise ValueError(f"role table: {where}: roles {roles!r} must be some of {ANONYMOUS!r}, {auth.ROLES}")
    if ANONYMOUS in roles and not set(auth.ROLES) <= set(roles):
        raise ValueError(f"role table: {where}: {ANONYMOUS!r} is allowed only together with every account role")


def refusal(ctx: AppContext, token, roles: Roles) -> Optional[str]:
    """Why the holder of sign-in session id `token` may not act as one of `roles` (None when they may):
    anyone when the roles include anonymous, else the local single user or an account of one of the roles."""
    if ANONYMOUS in roles:
        return None
    try:
        ctx.require(token, roles)  # a token that is not a live id's string is no caller (annotation.auth)
    except PermissionError as exc:
        return str(exc)
    return None


@dataclass
class Event:
    """One registered event function: where (tab id) and who may call it, whether a refusal is silent, the
    function itself, and what Gradio was given: the checked wrapper that calls `fn` and its inputs."""
    where: str
    name: str
    roles: Roles
    quiet: bool
    fn: Callable
    checked: Optional[Callable] = None
    inputs: Sequence = ()
    dependency_id: int = -1


class Events:
    """Registers the studio's event functions, each behind the role check of its role-table entry."""

    def __init__(self, ctx: AppContext, token: gr.State, table: Optional[dict] = None):
        self.ctx, self.token = ctx, token  # token: the sign-in counter State shared by the tabs (see above)
        self.table: dict[tuple[str, str], Roles] = role_table.EVENTS if table is None else table
        for key, roles in self.table.items():
            check_roles("/".join(key), roles)
        self.where = PAGE
        self.registered: list[Event] = []

    @contextlib.contextmanager
    def tab(self, tab_id: str) -> Iterator[None]:
        """Events registered inside are looked up in the table under `tab_id`."""
        outer, self.where = self.where, tab_id
        try:
            yield
        finally:
            self.where = outer

    def on(self, trigger: Callable, fn: Callable, inputs=None, outputs=None, **kw):
        """Register `fn` on `trigger` (`button.click`, `demo.load`, `dep.then`, ...) so that only the roles of
        its table entry (or the local user) may run it; other keywords go to the trigger. A refusal of a page
        load, tick, tab select or State change is silent (gr.skip()); any other is a gr.Error."""
        name = getattr(fn, "__name__", "")
        roles = self.table.get((self.where, name))
        if roles is None:
            raise LookupError(f"{self.where}/{name}: not in the role table (ibench_ui/role_table.py EVENTS); "
                              "add who may call it there")
        if inspect.iscoroutinefunction(fn) or inspect.isgeneratorfunction(fn):
            raise TypeError(f"{name}: the role check wraps plain functions only")
        source = getattr(trigger, "__self__", None)
        quiet = getattr(trigger, "event_name", "then") in QUIET_EVENTS or isinstance(source, gr.State)
        inputs = [] if inputs is None else list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        at = next((i for i, x in enumerate(inputs) if x is self.token), None)  # fn takes the caller's id there
        event = Event(self.where, name, roles, quiet, fn, inputs=inputs)
        event.checked = self._checked(event, at)
        dep = trigger(event.checked, event.inputs, outputs, **kw)
        event.dependency_id = dep["id"]
        self.registered.append(event)
        return dep

    def unregistered(self) -> list[tuple[str, str]]:
        """Table entries no event was registered for (a stale or misplaced entry)."""
        return sorted(set(self.table) - {(e.where, e.name) for e in self.registered})

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
            why = refusal(self.ctx, caller, event.roles)
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
