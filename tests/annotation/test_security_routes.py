"""Security through the app's API routes, called directly with gradio_client (not through the page):
annotator A cannot read or change annotator B's blind marks, non-reviewers cannot edit targets or manage
accounts, a signed-out caller gets nothing, and annotation text with HTML/JS comes back escaped."""
import socket

import pytest

from annotation import auth, verification
from annotation.loaders import load
from annotation.store import Store

B_MARK = 11.72  # a frame time at 25 fps: distinctive enough to spot in any output
ITEM = ("interactscope", "is-t2-blue")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from ibench_ui.app import build_app
    from ibench_ui.context import AppContext
    store = Store(tmp_path_factory.mktemp("sec") / "s.sqlite")
    for name, role in [("ann", "annotator"), ("bob", "annotator"), ("rev", "reviewer"), ("root", "admin")]:
        auth.create_user(store, name, role, f"{name}-password")
    it = load("interactscope").get(ITEM[1])
    bob = auth.User("bob", "annotator")
    verification.submit_mark(store, bob, it, 0, B_MARK, "frame")
    verification.mark_interval(store, bob, it, 1.0, True)
    ctx = AppContext(store=store)
    demo = build_app(ctx)
    demo.queue()
    port = _port()
    demo.launch(prevent_thread_lock=True, server_port=port, quiet=True, allowed_paths=ctx.media_roots())
    for name in ("ann", "bob", "rev", "root"):
        _SIDS[name] = auth.sign_in(store, name, f"{name}-password")
    yield store, f"http://127.0.0.1:{port}/"
    demo.close()


_SIDS: dict = {}


def _client(url, user=None):
    """A gradio_client carrying `user`'s sign-in cookie (a session made as POST /auth/signin makes it; this app is
    the studio alone, without the host's sign-in route)."""
    from gradio_client import Client
    from ibench_ui.auth_routes import STUDIO_COOKIE
    headers = {}
    if user:
        headers["Cookie"] = f"{STUDIO_COOKIE}={_SIDS[user]}"
    return Client(url, verbose=False, headers=headers)


# every route of the Annotation tab with arguments aimed at B's item
CALLS = [("/verify_item", ITEM), ("/verify_reveal", (*ITEM, 0)), ("/prefix_start", ITEM), ("/prefix_clear", ITEM),
         ("/prefix_hit", ITEM), ("/agreement", ("all",)), ("/review_queue", (ITEM[0], "all", "bob")),
         ("/review_item", ITEM), ("/review_field", (*ITEM, "target.g1.anchor")),
         ("/review_edit", (*ITEM, "target.g1.anchor", "3", "takeover")),
         ("/review_status", (*ITEM, "rejected", "x")), ("/review_export", (ITEM[0], "jsonl", "leak.jsonl", False)),
         ("/users_list", ()), ("/users_add", ("mallory", "admin", "mallory-pass")),
         ("/verify_withdraw", (*ITEM, 0)), ("/verify_next", ITEM), ("/verify_prev", ITEM), ("/prefix_back", ITEM),
         ("/review_undo", (*ITEM, None, "undo")), ("/review_adjudicate", (ITEM[0], None, "3", "x")),
         ("/review_reopen", (ITEM[0], None, "x")), ("/review_next", (ITEM[0], "all", "", ITEM[1])),
         ("/verify_submit", (*ITEM, 0, "12.0", "second", ""))]


def _snapshot(store):
    return (store.verifications(user="bob"), store.reviews(), [u["name"] for u in store.users()])


def _answer(client, route: str, *args) -> str:
    """What a call returns, or the app's error reply: the guard refuses a role outside a function's tab before
    the handler runs (ibench_ui.role_table), a service's own check answers in the tab."""
    try:
        return str(client.predict(*args, api_name=route))
    except Exception as exc:  # gradio_client raises the app's error reply
        return str(exc)


def test_annotator_cannot_read_or_change_another_annotators_marks(app):
    store, url = app
    before = _snapshot(store)
    c = _client(url, "ann")
    outputs = {route: _answer(c, route, *args) for route, args in CALLS}
    for route, text in outputs.items():
        assert "bob" not in text, route
        assert f"{B_MARK:.3f}" not in text and str(B_MARK) not in text, route
    for route in ("/review_queue", "/review_item", "/review_field", "/review_edit", "/review_status",
                  "/review_export", "/users_list", "/users_add", "/review_undo", "/review_adjudicate", "/review_reopen",
                  "/review_next"):
        assert "Not allowed" in outputs[route], route
    assert "blind mark" in outputs["/prefix_start"]  # the walk (which shows the window) waits for A's own mark
    after = _snapshot(store)
    assert after[0] == before[0]  # B's records untouched
    assert after[1] == before[1] and after[2] == before[2]  # no review record, no new account
    mine = store.verifications(user="ann")
    assert len(mine) == 1 and mine[0].value["t"] == 12.0  # A's submit wrote A's own mark only
    # A's agreement view now lists A against the proposals and nobody else
    text = str(c.predict("all", api_name="/agreement"))
    assert "ann" in text and "bob" not in text


def test_signed_out_caller_gets_nothing(app):
    store, url = app
    before = _snapshot(store)
    c = _client(url)
    for route, args in CALLS:
        # since issue 10 the studio refuses an anonymous caller before the handler runs: an error reply
        try:
            text = str(c.predict(*args, api_name=route))
        except Exception as exc:  # gradio_client raises the app's error reply
            text = str(exc)
        assert "not signed in" in text, route
        assert "bob" not in text and str(B_MARK) not in text
    assert _snapshot(store) == before


def test_reviewer_edits_and_markup_comes_back_inert(app):
    store, url = app
    c = _client(url, "rev")
    evil = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    out = str(c.predict(*ITEM, "target.g1.reference", evil, "xss check", api_name="/review_edit"))
    assert "Not allowed" not in out and "Error" not in out, out
    text = str(c.predict(*ITEM, api_name="/review_item"))
    assert "<script>" not in text and "<img src=x" not in text
    assert "&lt;script&gt;" in text
    rec = store.reviews(*ITEM)[-1]
    assert (rec.user, rec.field, rec.new_value, rec.reason) == ("rev", "target.g1.reference", evil, "xss check")
    # the reviewer sees both annotators' marks
    assert "bob" in str(c.predict("interactscope", api_name="/agreement"))


def test_admin_creates_accounts_reviewer_cannot(app):
    store, url = app
    rev = _client(url, "rev")
    assert "Not allowed" in _answer(rev, "/users_add", "eve", "admin", "eve-password")
    root = _client(url, "root")
    out = str(root.predict("carol", "annotator", "carol-password", api_name="/users_add"))
    assert "created carol" in out
    assert store.get_user("carol")["role"] == "annotator"
