"""The studio's role check beyond the role table's matrix (tests/ui/test_role_table.py): the local single user
reaches everything, an event function the role table lacks (or registered around it) fails the build, a
refusal of a page load, tick, tab select or sign-in change is silent, and the API shows no credential."""
from __future__ import annotations

import inspect

import gradio as gr
import pytest

from annotation import auth
from annotation.store import Store
from ibench_ui.app import build_studio
from ibench_ui.auth_routes import STUDIO_COOKIE
from ibench_ui.context import AppContext
from ibench_ui.guard import Events

ROLES = (None, "annotator", "reviewer", "admin")


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("roles") / "s.sqlite")
    tokens = {None: ""}
    for role in ROLES[1:]:
        auth.create_user(store, role, role, f"{role}-password")
        tokens[role] = auth.sign_in(store, role, f"{role}-password")
    demo, events = build_studio(AppContext(store=store), {})
    return demo, events, tokens


class _Request:
    """What the guard reads of Gradio's request: its cookies."""

    def __init__(self, token: str):
        self.cookies = {STUDIO_COOKIE: token} if token else {}


def _call(events: Events, event, token: str):
    """Run the checked function Gradio runs with a request whose sign-in cookie is `token` (the sign-in State
    holding no secret, None elsewhere), the event's own function replaced by a probe: 'ran' when the check let
    it through, else the refusal. A function that takes the caller gets the cookie's id in the State's place."""
    ran = []

    def probe(*args):
        ran.append(args)
        return "ran"

    real, event.fn = event.fn, probe
    try:
        n = len(inspect.signature(event.checked).parameters) - 1
        args = ["1" if x is events.token else None for x in event.inputs]
        out = event.checked(_Request(token), *args, *[None] * (n - len(args)))
    except gr.Error as exc:
        out = f"error: {exc.message}"
    finally:
        event.fn = real
    assert (out == "ran") == bool(ran), out
    for got in ran:
        assert [a for a, x in zip(got, event.inputs) if x is events.token] == [
            token or None for x in event.inputs if x is events.token], event.name
    return out


def test_the_local_single_user_reaches_everything(tmp_path):
    demo, events = build_studio(AppContext(store=Store(tmp_path / "s.sqlite")), {})  # no accounts, loopback
    for event in events.registered:
        assert _call(events, event, "") == "ran", event.name


def _quiet_by_config(demo: gr.Blocks) -> dict[int, bool]:
    """Per dependency id, whether Gradio's own config names a page load, tick, select or State change."""
    states = {c["id"] for c in demo.config["components"] if c.get("type") == "state"}
    return {d["id"]: any(ev in ("load", "tick", "select") or bid in states for bid, ev in d["targets"])
            for d in demo.config["dependencies"]}


def test_a_refusal_is_silent_exactly_for_loads_ticks_selects_and_sign_in_changes(studio):
    demo, events, tokens = studio
    quiet = _quiet_by_config(demo)
    refused = 0
    for event in events.registered:
        assert event.quiet == quiet[event.dependency_id], (event.where, event.name)
        out = _call(events, event, "")  # signed out: refused unless open to anyone
        if out != "ran":
            refused += 1
            assert out == gr.skip() if event.quiet else out.startswith("error: Not allowed:"), event.name
    assert refused >= 50  # every tab's functions, not a few


def test_an_event_the_role_table_lacks_fails_the_build(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"))
    table = {("page", "ok"): auth.STAFF, ("browse", "elsewhere"): auth.STAFF}
    with gr.Blocks() as demo:
        events = Events(ctx, gr.State(""), table)
        button, box = gr.Button("x"), gr.Textbox()

        def ok():
            return "x"

        def elsewhere():
            return "x"

        with pytest.raises(LookupError, match="not in the role table"):
            events.on(button.click, lambda: "x", None, box)  # no entry: refused at once
        with pytest.raises(LookupError, match="page/elsewhere"):
            events.on(button.click, elsewhere, None, box)  # an entry, but for another tab
        events.on(button.click, ok, None, box)
        assert events.unregistered() == [("browse", "elsewhere")]
        with events.tab("browse"):
            events.on(button.click, elsewhere, None, box)
        assert events.unregistered() == [] and events.where == "page"
        button.click(lambda: "y", None, box)  # around Events.on
    with pytest.raises(RuntimeError, match="without a declared role"):
        events.assert_complete(demo)


@pytest.mark.parametrize("roles", [(), ("anonymous", "admin"), ("root",), "admin"])
def test_a_role_table_entry_names_known_roles_and_anonymous_only_with_every_account(tmp_path, roles):
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"))
    with gr.Blocks():
        with pytest.raises(ValueError, match="role table: page/x"):
            Events(ctx, gr.State(""), {("page", "x"): roles})


def test_every_checked_function_reads_the_request_and_the_api_shows_no_credential(studio):
    demo, events, _tokens = studio
    for event in events.registered:
        first = next(iter(inspect.signature(event.checked).parameters.values()))
        assert event.checked.__annotations__[first.name] is gr.Request, event.name
    info = demo.get_api_info()["named_endpoints"]
    assert [p["parameter_name"] for p in info["/review_edit"]["parameters"]] == ["b", "iid", "f", "v", "why"]
    assert [p["parameter_name"] for p in info["/on_start"]["parameters"]] == ["b", "m", "p", "lim", "c", "j"]
