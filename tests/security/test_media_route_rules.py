"""Rule tests of the media route (ibench_ui/media_route.py), as an attacker would probe it: an id is the HMAC of
the file's resolved path under the server's key (a hand-checked value, `openssl dgst -sha256 -hmac`), so it
changes with the key and cannot be made from the path alone; only a loaded item's video or audio is served,
whatever id is asked; and HTTP Range answers at the first byte, the last byte, one past the end and as a suffix,
with 416 where nothing is left. The route runs in a bare FastAPI app over a stand-in context (no Gradio)."""
from __future__ import annotations

import hashlib
import math
from pathlib import Path
from types import SimpleNamespace

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from annotation.store import Store
from ibench_ui import media_route
from ibench_ui.context import AppContext
from ibench_ui.media_route import MediaIndex, add_media_route, media_id, media_url
from ibench_ui.session import SessionService

KEY_K = b"k" * 32
# printf '%s' /srv/media/a.mp4 | openssl dgst -sha256 -hmac kkkk...k (32 k), first 32 hex digits
ID_K = "050d7aeec121055f9b9905340803ff6d"
# the same path under a key of 32 "j"
ID_J = "2525f89b532c88f5a44ce744e38b1d20"
# /srv/média/ä.mp4 (its UTF-8 bytes) under the key of 32 "k"
ID_K_ACCENTS = "0c8d0a6bc24c2936f82b47218935c3b6"
BODY = bytes(range(100))  # byte i holds the value i, so a slice tells which bytes came back


class Ctx:
    """Stand-in for AppContext: benchmarks by name, each a list of (video, audio) paths or an exception."""

    def __init__(self, data: dict):
        self.data = data
        self.loads: list[str] = []

    def benchmarks(self) -> list[str]:
        return list(self.data)

    def dataset(self, b: str):
        self.loads.append(b)
        if isinstance(self.data[b], Exception):
            raise self.data[b]
        return SimpleNamespace(items=[SimpleNamespace(stream=SimpleNamespace(video_path=v, audio_path=a))
                                      for v, a in self.data[b]])


@pytest.fixture
def files(tmp_path):
    """Two items' media and a file beside them that no item names (an answer key, say)."""
    d = tmp_path / "data"
    d.mkdir()
    (d / "a.mp4").write_bytes(BODY)
    (d / "a.wav").write_bytes(b"RIFF-audio")
    (d / "b.mp4").write_bytes(b"video b")
    (d / "answers.json").write_text('{"secret": 1}')
    return d


def _client(ctx) -> TestClient:
    app = FastAPI()
    add_media_route(app, ctx)
    return TestClient(app)


# -- ids: the key's, never the path's ---------------------------------------------------------------------------

def test_an_id_is_the_keyed_hmac_of_the_resolved_path(monkeypatch):
    monkeypatch.setattr(media_route, "_KEY", KEY_K)
    assert media_id("/srv/media/a.mp4") == ID_K
    assert media_id(Path("/srv/media/a.mp4")) == ID_K
    assert media_id("/srv/media/x/../a.mp4") == ID_K  # the resolved path: one file, one id
    assert media_url("/srv/media/a.mp4") == "/media/" + ID_K
    assert media_id("/srv/média/ä.mp4") == ID_K_ACCENTS  # the path's UTF-8 bytes


def test_an_id_changes_with_the_key_and_cannot_be_made_without_it(monkeypatch):
    path = "/srv/media/a.mp4"
    monkeypatch.setattr(media_route, "_KEY", b"j" * 32)
    assert media_id(path) == ID_J
    monkeypatch.setattr(media_route, "_KEY", KEY_K)
    assert media_id(path) == ID_K != ID_J
    guesses = {hashlib.sha256(path.encode()).hexdigest()[:32], hashlib.md5(path.encode()).hexdigest(),
               hashlib.sha256(b"").hexdigest()[:32]}
    assert ID_K not in guesses


def test_a_relative_path_gets_the_id_of_its_absolute_path(files, monkeypatch):
    monkeypatch.chdir(files)
    assert media_id("a.mp4") == media_id(files / "a.mp4") == media_id(str(files / "a.mp4"))
    assert media_id("a.mp4") != media_id("b.mp4")


def test_the_process_key_is_32_random_bytes():
    assert isinstance(media_route._KEY, bytes) and len(media_route._KEY) == 32


# -- the index: only loaded items' media ------------------------------------------------------------------------

def test_the_index_resolves_each_items_video_and_audio_and_nothing_else(files):
    ctx = Ctx({"bench1": [(str(files / "a.mp4"), str(files / "a.wav"))], "bench2": [(str(files / "b.mp4"), None)]})
    index = MediaIndex(ctx)
    assert index.resolve(media_id(files / "a.mp4")) == files / "a.mp4"
    assert index.resolve(media_id(files / "a.wav")) == files / "a.wav"
    assert index.resolve(media_id(files / "b.mp4")) == files / "b.mp4"
    assert index.resolve(media_id(files / "answers.json")) is None  # a right-key id of a file no item names
    assert index.resolve(media_id(files)) is None


def test_a_benchmark_that_cannot_load_does_not_hide_the_next_ones(files):
    ctx = Ctx({"broken": RuntimeError("no data"), "missing-file": [(str(files / "gone.mp4"), None)],
               "ok": [(str(files / "a.mp4"), None)]})
    index = MediaIndex(ctx)
    assert index.resolve(media_id(files / "a.mp4")) == files / "a.mp4"
    assert index.resolve(media_id(files / "gone.mp4")) is None  # named by an item, but not on disk
    assert ctx.loads == ["broken", "missing-file", "ok"]


def test_each_benchmark_is_loaded_once_and_a_later_one_on_the_next_miss(files):
    data = {"bench1": [(str(files / "a.mp4"), None)]}
    ctx = Ctx(data)
    index = MediaIndex(ctx)
    assert index.resolve(media_id(files / "b.mp4")) is None
    assert index.resolve("0" * 32) is None
    assert index.resolve(media_id(files / "a.mp4")) == files / "a.mp4"
    assert ctx.loads == ["bench1"]  # three look-ups, one load
    data["bench2"] = [(str(files / "b.mp4"), str(files / "a.wav"))]  # a benchmark loaded later
    assert index.resolve(media_id(files / "b.mp4")) == files / "b.mp4"
    assert index.resolve(media_id(files / "a.wav")) == files / "a.wav"
    assert ctx.loads == ["bench1", "bench2"]


def test_a_known_id_is_answered_without_loading_again(files):
    ctx = Ctx({"bench1": [(str(files / "a.mp4"), None)]})
    index = MediaIndex(ctx)
    assert index.resolve(media_id(files / "a.mp4")) == files / "a.mp4"
    ctx.data["bench2"] = RuntimeError("must not be loaded for a known id")
    assert index.resolve(media_id(files / "a.mp4")) == files / "a.mp4"
    assert ctx.loads == ["bench1"]


def test_a_file_removed_after_indexing_is_gone(files):
    index = MediaIndex(Ctx({"bench1": [(str(files / "a.mp4"), None)]}))
    mid = media_id(files / "a.mp4")
    assert index.resolve(mid) == files / "a.mp4"
    (files / "a.mp4").unlink()
    assert index.resolve(mid) is None


@pytest.mark.parametrize("mid", ["", "0" * 31, "0" * 33, "A" * 32, "g" * 32, "0" * 32 + "\n", " " + "0" * 31,
                                 "../answers.json", None, 7, b"0" * 32])
def test_malformed_ids_never_load_anything(files, mid):
    ctx = Ctx({"bench1": [(str(files / "a.mp4"), None)]})
    assert MediaIndex(ctx).resolve(mid) is None
    assert ctx.loads == []


def test_an_id_in_capitals_is_not_the_id(files):
    ctx = Ctx({"bench1": [(str(files / "a.mp4"), None)]})
    assert MediaIndex(ctx).resolve(media_id(files / "a.mp4").upper()) is None


# -- the route: 404 alike for everything not served, Range at the edges -----------------------------------------

def test_the_route_serves_the_whole_file_privately(files):
    c = _client(Ctx({"bench1": [(str(files / "a.mp4"), str(files / "a.wav"))]}))
    r = c.get(media_url(files / "a.mp4"))
    assert r.status_code == 200 and r.content == BODY
    assert r.headers["cache-control"] == "private, max-age=3600"
    assert r.headers["content-type"] == "video/mp4" and r.headers["accept-ranges"] == "bytes"
    assert c.get(media_url(files / "a.wav")).content == b"RIFF-audio"


@pytest.mark.parametrize("name", ["answers.json", "a.mp4", "0" * 32, "0" * 33, "a" * 31, "0" * 32 + "%0A"])
def test_anything_but_a_served_id_is_the_same_404(files, name):
    c = _client(Ctx({"bench1": [(str(files / "a.mp4"), None)]}))
    r = c.get("/media/" + name)
    assert (r.status_code, r.text) == (404, "Not found.")
    r = c.get(media_url(files / "answers.json"))  # the right key, a file beside the items
    assert (r.status_code, r.text) == (404, "Not found.")


@pytest.mark.parametrize("rng,status,content_range,body", [
    ("bytes=0-0", 206, "bytes 0-0/100", BODY[:1]),        # the first byte
    ("bytes=0-99", 206, "bytes 0-99/100", BODY),          # first to last
    ("bytes=99-99", 206, "bytes 99-99/100", BODY[99:]),   # the last byte
    ("bytes=99-", 206, "bytes 99-99/100", BODY[99:]),     # from the last byte on
    ("bytes=10-109", 206, "bytes 10-99/100", BODY[10:]),  # an end past the file is cut at its last byte
    ("bytes=0-100", 206, "bytes 0-99/100", BODY),         # one past the end
    ("bytes=-10", 206, "bytes 90-99/100", BODY[90:]),     # a suffix: the last 10 bytes
    ("bytes=-1", 206, "bytes 99-99/100", BODY[99:]),
    ("bytes=-150", 206, "bytes 0-99/100", BODY),          # a suffix longer than the file: all of it
    ("bytes=100-", 416, "bytes */100", b""),              # starts one past the last byte: nothing to send
    ("bytes=100-200", 416, "bytes */100", b""),
    ("bytes=-0", 416, "bytes */100", b""),                # an empty suffix
])
def test_range_at_the_edges_of_a_100_byte_file(files, rng, status, content_range, body):
    c = _client(Ctx({"bench1": [(str(files / "a.mp4"), None)]}))
    r = c.get(media_url(files / "a.mp4"), headers={"Range": rng})
    assert (r.status_code, r.headers.get("content-range")) == (status, content_range)
    if status == 206:
        assert r.content == body and r.headers["content-length"] == str(len(body))


def test_range_on_an_unknown_id_is_the_plain_404(files):
    c = _client(Ctx({"bench1": [(str(files / "a.mp4"), None)]}))
    r = c.get("/media/" + "0" * 32, headers={"Range": "bytes=0-0"})
    assert (r.status_code, r.text, r.headers.get("content-range")) == (404, "Not found.", None)


# -- a participant's session names its own items' media, which the route serves --------------------------------

def test_a_session_links_its_own_items_media_and_the_route_serves_that_file(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"), asr_model=str(tmp_path / "none"))
    svc = SessionService(ctx, clock_slack=math.inf)
    try:
        res = svc.open_session({"participant": "P01", "benchmark": "interactionbench", "items": "color_scene#0"})
    finally:
        for w in svc.hub.workers():
            w.stop("test over")
    url = res["item"]["video_url"]
    own = Path(ctx.item("interactionbench", "color_scene#0").stream.video_path).resolve()
    other = Path(ctx.item("interactionbench", "ball_counter#0").stream.video_path).resolve()
    assert url == "/media/" + media_id(own) and own != other and str(own.parent) not in url
    r = _client(ctx).get(url, headers={"Range": "bytes=0-15"})
    assert r.status_code == 206 and r.content == own.read_bytes()[:16]
