"""The host's route table: every (method, path) it answers and who for; any other request is 404 before Gradio
sees it (ibench_ui.http_policy). Gradio serves far more than our pages use (file processing, deep links,
run history, vibe editing, ...); each of its routes is either served below or named in GRADIO_CLOSED, and a
test walks the real routes of both mounts, so a Gradio upgrade that adds a route fails CI instead of opening it.

Paths use Starlette's pattern syntax (`{name}`, `{name:path}`); HEAD is answered wherever GET is."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from starlette.routing import compile_path

STUDIO = ""         # the staff studio's Gradio mount (ibench_ui.app)
STUDY = "/study"    # the participant app's Gradio mount (ibench_ui.participant)

# who a route is for (docs/security.md explains each); the handler behind it checks
ANYONE = "anyone"             # holds nothing private
HOLDER = "id holder"          # whoever holds an unguessable id: /media ids, the names of files Gradio wrote
LINK = "study link"           # every call carries the link's token, and the token decides the session
CHECKED = "role-checked"        # each function checks the caller's role (ibench_ui.guard); anonymous: sign-in only
AUDIENCES = (ANYONE, LINK, HOLDER, CHECKED)

PAGES = ("/", "/study/")  # the two HTML pages
REFUSED_QUERY = ("deep_link",)  # a query key Gradio acts on that no page of ours sends: 404 on any route


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    audience: str
    what: str


ROUTES: tuple[Route, ...] = (
    # the host's own routes (ibench_ui.host)
    Route("GET", "/media/{mid}", HOLDER, "an item's video or audio by opaque id, with HTTP Range"),
    Route("GET", "/ib-static/{name:path}", ANYONE, "the pages' own JS and CSS, a fixed list of files"),
    Route("POST", "/api/respond", CHECKED, "the studio session's response path as a plain JSON route"),
    Route("POST", "/study/api/respond", LINK, "a study session's response path as a plain JSON route"),
    Route("POST", "/auth/signin", ANYONE, "sign in (a cookie)"),
    Route("POST", "/auth/signout", ANYONE, "sign out"),
    # the studio page and the Gradio routes it uses
    Route("GET", "/", ANYONE, "the studio page (signs in first once accounts exist)"),
    Route("GET", "/config", ANYONE, "the studio's Gradio config: layout, no run data, targets or paths"),
    Route("GET", "/gradio_api/info", ANYONE, "the studio's API description (the page's \"Use via API\")"),
    Route("GET", "/theme.css", ANYONE, "Gradio's theme"),
    Route("GET", "/assets/{path:path}", ANYONE, "Gradio's front end"),
    Route("GET", "/static/{path:path}", ANYONE, "Gradio's fonts and helper scripts"),
    Route("GET", "/favicon.ico", ANYONE, "the icon"),
    Route("GET", "/manifest.json", ANYONE, "the web-app manifest the page links"),
    Route("POST", "/gradio_api/queue/join", CHECKED, "run one of the studio's event functions"),
    Route("GET", "/gradio_api/queue/data", CHECKED, "the event results stream of one page"),
    Route("GET", "/gradio_api/heartbeat/{session_hash}", ANYONE, "the page's keep-alive"),
    Route("POST", "/gradio_api/component_server", CHECKED, "the Session tab's server functions"),
    Route("POST", "/gradio_api/component_server/", CHECKED, "the same (the page's spelling)"),
    Route("POST", "/gradio_api/call/{api_name}", CHECKED, "an event function by name (the API page)"),
    Route("GET", "/gradio_api/call/{api_name}/{event_id}", CHECKED, "that call's result"),
    Route("GET", "/gradio_api/file={path_or_url:path}", HOLDER,
          "files Gradio wrote for the studio (Verify's frames), never a dataset or export"),
    # the study page and the Gradio routes it uses
    Route("GET", "/study/", LINK, "the study page"),
    Route("GET", "/study/config", LINK, "the study page's Gradio config: one component"),
    Route("GET", "/study/theme.css", ANYONE, "Gradio's theme"),
    Route("GET", "/study/assets/{path:path}", ANYONE, "Gradio's front end"),
    Route("GET", "/study/static/{path:path}", ANYONE, "Gradio's fonts and helper scripts"),
    Route("POST", "/study/gradio_api/component_server", LINK, "the session player's server functions"),
    Route("POST", "/study/gradio_api/component_server/", LINK, "the same (the page's spelling)"),
)

# Every other route of Gradio's app (relative to its mount), closed on both mounts: not one is used by our
# pages. Named so the route-table test can tell a route Gradio adds in an upgrade from one we closed. (On the
# study mount, the routes only the studio serves are closed too: see `deliberate`.)
GRADIO_CLOSED: tuple[tuple[str, str], ...] = tuple((m, p) for m, ps in {
    "GET": ("/openapi.json", "/logout", "/svelte/{path:path}", "/gradio_api/deep_link", "/config/", "/robots.txt",
            "/pwa_icon/{size}", "/pwa_icon", "/monitoring", "/monitoring/summary", "/monitoring/{key}",
            "/gradio_api/user/", "/gradio_api/user", "/gradio_api/login_check/", "/gradio_api/login_check",
            "/gradio_api/token/", "/gradio_api/token", "/gradio_api/app_id/", "/gradio_api/app_id",
            "/gradio_api/dev/reload", "/gradio_api/runs/", "/gradio_api/runs", "/gradio_api/run-history/buckets",
            "/gradio_api/run-history/records",
            "/gradio_api/run-history/records/{endpoint}/{record_id}/assets/{asset_id}", "/gradio_api/info/",
            "/gradio_api/openapi.json", "/gradio_api/custom_component/{id}/{environment}/{type}/{file_name}",
            "/gradio_api/proxy={url_path:path}", "/gradio_api/stream/{session_hash}/{run}/{component_id}/playlist.m3u8",
            "/gradio_api/stream/{session_hash}/{run}/{component_id}/{segment_id}.{ext}",
            "/gradio_api/stream/{session_hash}/{run}/{component_id}/playlist-file", "/gradio_api/file/{path:path}",
            "/gradio_api/call/v2/{api_name}/{event_id}", "/gradio_api/queue/status", "/gradio_api/upload_progress",
            "/gradio_api/startup-events", "/gradio_api/theme.css", "/gradio_api/vibe-code", "/gradio_api/vibe-code/"),
    "HEAD": ("/openapi.json", "/gradio_api/proxy={url_path:path}"),
    "POST": ("/login/", "/login", "/gradio_api/run-history/connect", "/gradio_api/stream/{event_id}",
             "/gradio_api/stream/{event_id}/close", "/gradio_api/reset", "/gradio_api/reset/",
             "/gradio_api/api/{api_name}/", "/gradio_api/api/{api_name}", "/gradio_api/run/{api_name}/",
             "/gradio_api/run/{api_name}", "/gradio_api/call/v2/{api_name}/", "/gradio_api/call/v2/{api_name}",
             "/gradio_api/call/{api_name}/", "/gradio_api/cancel", "/gradio_api/upload",
             "/gradio_api/process_recording", "/gradio_api/vibe-edit", "/gradio_api/vibe-edit/",
             "/gradio_api/undo-vibe-edit", "/gradio_api/undo-vibe-edit/", "/gradio_api/vibe-code",
             "/gradio_api/vibe-code/", "/gradio_api/vibe-starter-queries", "/gradio_api/vibe-starter-queries/"),
}.items() for p in ps)


class RouteTable:
    """Looks a request up in the table: exact paths by dict, patterns by regex, per method."""

    def __init__(self, routes: tuple[Route, ...] = ROUTES):
        for r in routes:
            if r.audience not in AUDIENCES or r.method not in ("GET", "POST"):
                raise ValueError(f"route {r.method} {r.path}: unknown method or audience")
        self.exact: dict[tuple[str, str], Route] = {}
        self.patterns: list[tuple[str, re.Pattern, Route]] = []
        for r in routes:
            if "{" in r.path:
                self.patterns.append((r.method, compile_path(r.path)[0], r))
            else:
                self.exact[(r.method, r.path)] = r

    def match(self, method: str, path: str) -> Optional[Route]:
        """The route serving `method path` (HEAD as GET), or None."""
        method = "GET" if method == "HEAD" else method
        hit = self.exact.get((method, path))
        if hit is not None:
            return hit
        for m, rx, r in self.patterns:
            if m == method and rx.match(path):
                return r
        return None

    def methods(self, path: str) -> list[str]:
        """The methods served at `path` (for a 405's Allow header)."""
        return sorted({m for m, p in self.exact if p == path} | {m for m, rx, _ in self.patterns if rx.match(path)})


def deliberate(table: RouteTable, mount: str, method: str, path: str) -> bool:
    """Whether a route Gradio's app has at `path` (relative to `mount`) is decided in this module: served on
    that mount, closed on both, or (on the study mount) one the studio alone serves."""
    full = mount + path if mount else path
    return (table.match(method, full) is not None or (method, path) in GRADIO_CLOSED
            or (mount == STUDY and table.match(method, path) is not None))


def is_gradio(path: str) -> bool:
    """Whether a served path is answered by one of the Gradio apps (not by the host's own routes)."""
    return not path.startswith(("/media/", "/ib-static/", "/api/", "/study/api/", "/auth/"))
