"""The route table (ibench_ui/routes.py) is the only way in: every route the real web app has, on the host and on
both Gradio mounts, is either served by the table or closed by name in it, so a Gradio upgrade that adds a route
fails here instead of opening it; every row of the table is a real route; docs/security.md shows the table."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest
from starlette.routing import Mount

from annotation.store import Store
from ibench_ui.allowed_hosts import AllowedHosts
from ibench_ui.app import web_app
from ibench_ui.context import AppContext
from ibench_ui.routes import GRADIO_CLOSED, ROUTES, STUDIO, STUDY, RouteTable, deliberate

REPO = Path(__file__).resolve().parents[2]
OTHER_ENGINEER = {"/auth/signin", "/auth/signout"}  # sign-in routes: in the table whether or not they exist yet


@pytest.fixture(scope="module")
def policy(tmp_path_factory):
    d = tmp_path_factory.mktemp("routes")
    return web_app(AppContext(store=Store(d / "s.sqlite"), asr_model=str(d / "none")), AllowedHosts.parse(["x"]))


def _walk(routes, prefix: str, mount: Optional[str]):
    """(mount or "host", method, path relative to the mount) of every route below `routes`, into mounts and included
    routers; a route of a kind it does not know fails the walk (so an upgrade cannot hide one from it)."""
    for r in routes:
        if isinstance(r, Mount):
            yield from _walk(r.routes, prefix + r.path, r.path)
        elif hasattr(r, "original_router"):  # FastAPI's included router (Gradio's /gradio_api routes)
            yield from _walk(r.original_router.routes, prefix + r.include_context.prefix, mount)
        elif hasattr(r, "methods") and hasattr(r, "path"):
            for m in r.methods or ():
                yield (mount if mount is not None else "host"), m, (prefix + r.path)[len(mount or ""):] or "/"
        else:
            raise AssertionError(f"a route the walk does not know: {r!r}")


def real_routes(policy) -> tuple[list, dict]:
    """Every Starlette route of the app, and the plain JSON routes answered ahead of it (FastRoutes)."""
    fast = policy.app  # HttpPolicy -> FastRoutes -> FastAPI app (its middleware stack is built on first call)
    return list(_walk(fast.app.router.routes, "", None)), fast.routes


def test_every_real_route_is_served_or_closed_by_name(policy):
    table = RouteTable()
    routes, fast = real_routes(policy)
    assert {STUDY, STUDIO} <= {m for m, _, _ in routes}  # both Gradio apps were walked
    stray = [(mount, method, path) for mount, method, path in routes
             if not (table.match(method, path) is not None if mount == "host" else
                     deliberate(table, mount, method, path))]
    assert stray == [], f"routes neither served nor closed in ibench_ui/routes.py: {stray}"
    for path in fast:
        assert table.match("POST", path) is not None, path


def test_every_row_of_the_table_is_a_real_route(policy):
    routes, fast = real_routes(policy)
    real = {(m, p if mount in ("host", STUDIO) else mount + p) for mount, m, p in routes} | {("POST", p) for p in fast}
    stale = [(r.method, r.path) for r in ROUTES if (r.method, r.path) not in real and r.path not in OTHER_ENGINEER]
    assert stale == [], f"rows of the table that no route answers: {stale}"
    gradio = {(m, p) for mount, m, p in routes if mount != "host"}
    assert [c for c in GRADIO_CLOSED if c not in gradio] == [], "closed routes Gradio no longer has"


def test_the_table_is_in_docs_security_md():
    doc = (REPO / "docs" / "security.md").read_text(encoding="utf-8")
    for row in ROUTES:
        assert f"| {row.method} | `{row.path}` | {row.audience} |" in doc, row
    for method, path in GRADIO_CLOSED:
        assert f"`{path}`" in doc, (method, path)
