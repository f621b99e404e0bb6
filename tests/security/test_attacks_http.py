"""Issue 10's table, row by row, replayed over HTTP against a real `python app.py` with accounts and a
study: every attack is refused, nothing is written, no marker file appears, and the server keeps serving."""
from __future__ import annotations

import base64
import http.server as http_server
import json
import threading

import numpy as np
import pytest

from annotation.loaders import demo_dir
from annotation.store import Store
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sec_helpers beside this file (importlib mode)
from sec_helpers import IB, ITEMS, component_id, finish_when_due, http, origin, server_fn, signin_cookie


def _client(url, user=None):
    from gradio_client import Client
    headers = {"Origin": origin(url)}  # as the page sends it
    if user:  # the sign-in cookie, set by POST /auth/signin, on every call of this client
        cookie = signin_cookie(url, user, f"{user}-password")
        assert cookie.startswith("ib_session=") and len(cookie) > 30
        headers["Cookie"] = cookie
    return Client(url + "/", verbose=False, headers=headers)


def _predict(c, *args, api_name):
    try:
        return str(c.predict(*args, api_name=api_name))
    except Exception as exc:  # the app's error reply, raised by gradio_client
        return f"ERROR {exc}"


def _store(server) -> Store:
    return Store(server.db)


def _no_marker(server):
    assert list(server.marker_dir.iterdir()) == []


@pytest.mark.parametrize("user", [None, "ann", "root"])
@pytest.mark.parametrize("model", ["plugin:subprocess:Popen", "plugin:os:system"])
def test_runs_start_never_loads_a_plugin(server, user, model):
    marker = server.marker_dir / "marker.txt"
    c = _client(server.url, user)
    out = _predict(c, IB, model, "", 0, 1, "", api_name="/on_start")
    assert out.startswith("ERROR") and "Started run" not in out
    # the old form with backend options (args=..., shell=true) as an extra field, as a raw API call
    status, text = http(f"{server.url}/gradio_api/call/on_start",
                        {"data": [IB, model, "", 0, 1, "", f"args=id > {marker}\nshell=true"]})
    assert status in (200, 422) or status >= 400 and status != 500
    st = _store(server)
    try:
        assert st.runs() == []
    finally:
        st.close()
    _no_marker(server)
    assert server.alive()


def test_participant_cannot_upload_code_or_name_a_model(server):
    tok = server.tokens["alice"]
    for mount in ("", "/study"):
        status, _ = http(f"{server.url}{mount}/gradio_api/upload", raw=b"print(1)",
                         headers={"Content-Type": "application/octet-stream"})
        assert status == 404  # not in the route table (issue 26): no page of ours uploads a file
    plugin = f"plugin:{server.marker_dir / 'evil.py'}:X"
    status, res = server_fn(server.url, "/study", "open_session", {"t": tok, "model": plugin, "who": "model"})
    assert status == 200 and res["ok"] and "model" not in res["session"]["settings"]
    status, res = server_fn(server.url, "/study", "clock", {"t": tok, "item_index": 0, "media_t": 1.0, "page_id": "p"})
    assert status == 200 and res.get("model") is None
    # the studio's session functions need a signed-in caller (accounts exist)
    status, res = server_fn(server.url, "", "open_session", {"participant": "x", "benchmark": IB, "items": ITEMS["bob"],
                                                              "model": plugin, "who": "model"})
    assert status == 200 and not res["ok"] and "Sign in" in res["error"]
    _no_marker(server)


class _Listener(http_server.BaseHTTPRequestHandler):
    seen: list = []

    def do_POST(self):  # noqa: N802 - http.server's name
        _Listener.seen.append(dict(self.headers))
        self.send_response(500)
        self.end_headers()

    do_GET = do_POST

    def log_message(self, *a):
        pass


def test_no_environment_variable_reaches_a_url_from_the_browser(server):
    srv = http_server.ThreadingHTTPServer(("127.0.0.1", 0), _Listener)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        spec = f"openai:m@http://127.0.0.1:{srv.server_address[1]}/v1"
        c = _client(server.url, "root")  # even an admin cannot type a spec into the page
        out = _predict(c, IB, spec, "", 1, 1, "", api_name="/on_start")
        # refused by the Dropdown's own choices check or by the registry (start_run), whichever sees it first
        assert out.startswith("ERROR") and ("not one of the models configured" in out or "not in the list" in out)
        status, _ = http(f"{server.url}/gradio_api/call/on_start",
                         {"data": [IB, spec, "", 1, 1, "", "api_key_env=PATH"]})
        assert status != 500
        out = _predict(c, IB, "baseline:motion", "", 1, 1, f"openai:m@http://127.0.0.1:{srv.server_address[1]}/v1"
                       "?key_env=PATH", api_name="/on_start")
        assert out.startswith("ERROR")  # a judge spec from the page is refused as well
    finally:
        srv.shutdown()
    assert _Listener.seen == []


def test_no_answer_key_file_is_served_and_no_path_is_shown(server):
    root = demo_dir(IB)
    keys = [p for p in root.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl")]
    assert keys, root
    for p in keys[:10]:
        for mount in ("", "/study"):
            status, text = http(f"{server.url}{mount}/gradio_api/file={p}")
            assert status in (403, 404), (p, status)
        status, _ = http(f"{server.url}/media/{p.name}")
        assert status == 404
    status, res = server_fn(server.url, "/study", "open_session", {"t": server.tokens["alice"]})
    assert res["ok"] and res["item"]["video_url"].startswith("/media/")
    texts = [json.dumps(res)] + [http(server.url + p)[1] for p in ("/config", "/study/config", "/gradio_api/info")]
    for text in texts:
        assert str(root) not in text and str(root.parent) not in text


def test_study_sessions_are_not_listed_or_writable_from_outside_their_link(server):
    st = _store(server)
    try:
        sids = {s.participant: s.id for s in st.sessions()}
    finally:
        st.close()
    # anonymous: the studio lists nothing, and refuses a session id it was given
    info = json.loads(http(server.url + "/gradio_api/info")[1])
    c = _client(server.url)
    for name in info["named_endpoints"]:
        n = len(info["named_endpoints"][name]["parameters"])
        out = _predict(c, *([IB] * n), api_name=name)
        assert not any(sid in out for sid in sids.values()), name
    status, res = server_fn(server.url, "", "respond", {"session_id": sids["bob"], "item_index": 0, "kind": "press",
                                                        "media_t": 1.0})
    assert not res["ok"]
    # alice's token with bob's session id: the token decides, bob's session stays empty
    server_fn(server.url, "/study", "respond", {"t": server.tokens["alice"], "session_id": sids["bob"],
                                                "item_index": 0, "kind": "press", "media_t": 0.0})
    st = _store(server)
    try:
        assert st.responses(session_id=sids["bob"]) == []
    finally:
        st.close()


def test_no_answer_before_closing_and_no_answer_after(server):
    tok = server.tokens["bob"]
    status, res = server_fn(server.url, "/study", "open_session", {"t": tok})
    item = res["item"]
    for t in (1e9, item["duration"] + 1, 27.0):  # past the end / ahead of the item's clock
        status, out = server_fn(server.url, "/study", "respond", {"t": tok, "item_index": 0, "kind": "press",
                                                                  "media_t": t})
        assert status == 200 and not out["ok"], t
    status, fin = finish_when_due(server.url, "/study", {"t": tok, "item_index": 0})  # once its clock has run
    assert fin["ok"]
    assert "The ball appeared." not in fin["result_html"] and "00:08.000" not in fin["result_html"]
    status, out = server_fn(server.url, "/study", "respond", {"t": tok, "item_index": 0, "kind": "press", "media_t": 0.5})
    assert not out["ok"] and "not open" in out["error"]
    st = _store(server)
    try:
        assert st.responses(session_id=res["session"]["id"]) == []
    finally:
        st.close()
    status, done = server_fn(server.url, "/study", "open_session", {"t": tok})
    end = done.get("end_html") or done.get("summary_html")  # the study's end screen (issue 14's flow)
    assert done["done"] and "C0DE-42" in end and "score" not in end.lower()


def _pcm(seconds: float, rate: int, loud: bool) -> str:
    n = int(seconds * rate)
    x = (np.sin(np.arange(n) * 2 * np.pi * 220 / rate) * 12000).astype("<i2") if loud else np.zeros(n, "<i2")
    return base64.b64encode(x.tobytes()).decode()


def test_audio_cannot_fill_the_disk(server):
    tok = server.tokens["alice"]
    server_fn(server.url, "/study", "open_session", {"t": tok})
    big = {"t": tok, "item_index": 0, "sample_rate": 192000, "pcm_b64": _pcm(60, 192000, True), "start_media_t": 0.0}
    status, out = server_fn(server.url, "/study", "speak", big)
    assert status in (0, 413) or (status == 200 and not out["ok"])
    silent = {"t": tok, "item_index": 0, "sample_rate": 16000, "pcm_b64": _pcm(2, 16000, False), "start_media_t": 0.0}
    status, out = server_fn(server.url, "/study", "speak", silent)
    assert status == 200 and not out["ok"] and "audio_path" not in out
    audio = server.db.parent / "audio"
    assert not audio.exists() or list(audio.rglob("*.wav")) == []


@pytest.mark.parametrize("fn, req", [
    ("respond", "not an object"), ("respond", [1, 2]), ("respond", None),
    ("speak", {"item_index": 0, "chunk_ends": [["x", 1]], "sample_rate": 16000, "pcm_b64": "AAAA", "start_media_t": 0}),
    ("speak", {"item_index": 0, "sample_rate": "abc", "pcm_b64": "AAAA", "start_media_t": 0}),
    ("respond", {"item_index": "0; drop table", "kind": "press", "media_t": "1"}),
    ("respond", {"item_index": 0, "kind": "press", "media_t": "inf"}),
    ("correct", {"rid": {"$ne": 1}, "text": ["x"]}),
    ("finish_item", {"item_index": 10**30}),
])
def test_malformed_bodies_get_an_error_reply_not_a_500(server, fn, req):
    if isinstance(req, dict):
        req = {**req, "t": server.tokens["alice"]}
    for mount in ("/study", ""):
        status, out = server_fn(server.url, mount, fn, req)
        assert status == 200 and isinstance(out, dict) and out["ok"] is False, (mount, out)
    assert server.alive()


def test_oversized_bodies_are_refused(server):
    cid = component_id(server.url, "/study")
    status, _ = http(f"{server.url}/study/gradio_api/component_server",
                     raw=json.dumps({"data": {"pcm_b64": "A" * (13 * 2**20)}, "component_id": cid, "fn_name": "speak",
                                     "session_hash": "x"}).encode())
    assert status in (0, 413)  # refused: 413, or the connection closed before the body was read
    assert server.alive()
