"""What an anonymous visitor and a participant can read and call on a real server with accounts:
no demo target time or reference text anywhere, participant URLs resolve to their own item media only,
and a fuzz of every listed function with hostile arguments gives no HTTP 500 and writes no file."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sec_helpers beside this file (importlib mode)
from sec_helpers import IB, ITEMS, REPO, finish_when_due, http, origin, server_fn, signin_cookie  # noqa: E402

from annotation.loaders import demo_dir, load  # noqa: E402
from annotation import registry  # noqa: E402

HOSTILE = ["plugin:os:system", "plugin:subprocess:Popen", "; id > MARKER", "$(id)", "../../../../etc/passwd",
           "/etc/passwd", "openai:m@http://127.0.0.1:9/v1", "hf:/etc", "x" * 100_000, "", None, -1e308, 1e308,
           {"$gt": ""}, [["x", 1]], True, "s_000000000000", "<script>alert(1)</script>"]
SERVER_FNS = ["open_session", "item_sets", "respond", "speak", "correct", "finish_item", "asr_status", "clock",
              "wait_model", "model_stop", "hear"]
GRADIO_EXAMPLES = ("example_input", "example_inputs", "code_snippets")  # Gradio's own sample values ("Hello!!")


def _demo_secrets() -> tuple[set[str], set[str]]:
    """Reference texts (6+ characters) and window strings of every demo item, from the demo's annotation files."""
    from ibench_ui.render import fmt_time
    refs, windows = set(), set()
    for b in registry.names():
        for it in load(b, demo_dir(b)).items:
            for t in it.targets:
                vals = t.reference.values() if isinstance(t.reference, dict) else [t.reference]
                refs |= {v for v in vals if isinstance(v, str) and len(v) >= 6}
                if t.window is not None and t.window[0] is not None:
                    windows.add(f"[{fmt_time(t.window[0])}, ")
    return refs, windows


def _strip_examples(value):
    if isinstance(value, dict):
        return {k: _strip_examples(v) for k, v in value.items() if k not in GRADIO_EXAMPLES}
    if isinstance(value, list):
        return [_strip_examples(v) for v in value]
    return value


def _assert_clean(name: str, text: str, refs, windows) -> None:
    try:
        text = json.dumps(_strip_examples(json.loads(text)), ensure_ascii=False)
    except ValueError:  # an HTML page with the config inside: drop Gradio's sample values the same way
        text = re.sub(r'"example_inputs?"\s*:\s*"(?:[^"\\]|\\.)*"', "", text)
    # Gradio's sample strings in its API snippets; one demo reference ("Hello!") is a prefix of them
    text = text.replace("Hello!!", "").replace("# Hello!", "")
    leaked = [r for r in refs if r in text] + [w for w in windows if w in text]
    assert not leaked, (name, leaked[:5])
    assert str(demo_dir(IB).parent) not in text, name  # no absolute dataset path


def api_call(url: str, name: str, data: list) -> tuple[int, int, str]:
    """A named endpoint through Gradio's REST route: (POST status, result status, result text)."""
    s1, text = http(f"{url}/gradio_api/call/{name.lstrip('/')}", {"data": data})
    if s1 != 200:
        return s1, 0, text
    event_id = json.loads(text)["event_id"]
    s2, result = http(f"{url}/gradio_api/call/{name.lstrip('/')}/{event_id}")
    return s1, s2, result


def test_anonymous_config_api_info_and_replies_hold_no_targets(server):
    refs, windows = _demo_secrets()
    assert "The ball appeared." in refs and "[00:08.000, " in windows  # the check knows what it looks for
    for path in ("/", "/config", "/gradio_api/info", "/study/", "/study/config"):
        status, text = http(server.url + path)
        assert status == 200, path
        _assert_clean(path, text, refs, windows)
    assert http(server.url + "/study/gradio_api/info")[0] == 404  # the study page has no API page (issue 26)
    info = json.loads(http(server.url + "/gradio_api/info")[1])["named_endpoints"]
    assert info, "the studio lists its functions"
    for name, spec in info.items():
        args = [p.get("example_input") for p in spec["parameters"]]
        for data in (args, [IB, "ball_counter#0", ["human:alice"]][: len(args)] + args[3:]):
            s1, s2, text = api_call(server.url, name, data)
            assert 500 not in (s1, s2), name
            _assert_clean(name, text, refs, windows)
    for mount in ("", "/study"):
        for fn in SERVER_FNS:
            status, out = server_fn(server.url, mount, fn, {"benchmark": IB, "item_index": 0, "session_id": ""})
            assert status == 200, (mount, fn)
            _assert_clean(f"{mount} {fn}", json.dumps(out), refs, windows)


def test_participant_urls_resolve_only_to_their_own_item_media(server):
    tok = server.tokens["alice"]
    ds = load(IB, demo_dir(IB))
    own = {Path(ds.get(i).stream.video_path).resolve().read_bytes() for i in ITEMS["alice"]}
    texts = [http(server.url + "/study/?t=" + tok)[1], http(server.url + "/study/config")[1]]
    status, first = server_fn(server.url, "/study", "open_session", {"t": tok})
    texts.append(json.dumps(first))
    status, fin = finish_when_due(server.url, "/study", {"t": tok, "item_index": 0})  # once its clock has run
    texts.append(json.dumps(fin))
    status, second = server_fn(server.url, "/study", "open_session", {"t": tok})
    texts.append(json.dumps(second))
    media = set()
    for text in texts:
        media |= set(re.findall(r"/media/[0-9a-f]{32}", text))
        for f in re.findall(r"gradio_api/file=([^\"'\s)]+)", text):  # anything Gradio would serve from disk
            s, body = http(f"{server.url}/study/gradio_api/file={f}")
            assert s in (403, 404) or not Path(f).is_relative_to(demo_dir(IB).parent), f
    assert len(media) == 2, media  # the two items of alice, one after the other
    for m in media:
        status, body = 0, b""
        import urllib.request
        with urllib.request.urlopen(server.url + m, timeout=60) as r:
            status, body = r.status, r.read()
        assert status == 200 and body in own
        req = urllib.request.Request(server.url + m, headers={"Range": "bytes=10-109"})
        with urllib.request.urlopen(req, timeout=60) as r:  # HTTP Range: the player seeks without a full download
            assert r.status == 206 and r.headers["Content-Range"].startswith("bytes 10-109/")
            assert len(r.read()) == 100
    assert ds.get(ITEMS["bob"][0]).stream.video_path not in " ".join(texts)


def _tree(root: Path, skip: tuple[str, ...] = ()) -> set[str]:
    out = set()
    for p in root.rglob("*"):
        rel = p.relative_to(root).as_posix()
        if any(part in (".git", "__pycache__", ".pytest_cache") for part in p.parts) or rel.startswith(skip):
            continue
        out.add(rel)
    return out


def test_fuzz_every_function_anonymously_no_500_no_file(server):
    store_dir = server.db.parent
    watched = {"repo": (REPO, ()), "tmp": (store_dir.parent, (store_dir.name, "app.log"))}
    before = {k: _tree(root, skip) for k, (root, skip) in watched.items()}
    info = json.loads(http(server.url + "/gradio_api/info")[1])["named_endpoints"]
    for name, spec in info.items():
        n = len(spec["parameters"])
        for k in range(0, len(HOSTILE), max(1, n)):
            data = [HOSTILE[(k + i) % len(HOSTILE)] for i in range(n)]
            s1, s2, _ = api_call(server.url, name, data)
            assert 500 not in (s1, s2), (name, data)
        s1, s2, _ = api_call(server.url, name, ["too few"] if n > 1 else [1, 2, 3])
        assert 500 not in (s1, s2), name
    for mount in ("", "/study"):
        for fn in SERVER_FNS:
            for value in HOSTILE:
                for req in (value, {"session_id": value, "t": value, "item_index": value, "media_t": value,
                                    "text": value, "kind": "text", "rid": value, "model": value, "who": "model",
                                    "participant": value, "benchmark": value, "items": value,
                                    "sample_rate": value, "pcm_b64": value, "chunk_ends": value}):
                    status, out = server_fn(server.url, mount, fn, req)
                    assert status == 200 and isinstance(out, dict) and out.get("ok") is not True or fn in (
                        "asr_status", "item_sets", "wait_model", "clock", "model_stop") and status == 200, (mount, fn, out)
    after = {k: _tree(root, skip) for k, (root, skip) in watched.items()}
    for k in watched:
        assert after[k] == before[k], (k, sorted(after[k] - before[k])[:10])
    assert list(server.marker_dir.iterdir()) == []
    assert server.alive()


def test_fuzz_every_function_as_a_signed_in_admin_no_crash_no_file_no_path(server):
    """The handlers themselves (past the role check) with hostile arguments: each answers (a result or an
    error reply), the server keeps serving, nothing is written outside the store, no path is shown."""
    from gradio_client import Client
    store_dir = server.db.parent
    watched = {"repo": (REPO, ()), "tmp": (store_dir.parent, (store_dir.name, "app.log"))}
    before = {k: _tree(root, skip) for k, (root, skip) in watched.items()}
    c = Client(server.url + "/", verbose=False,
               headers={"Origin": origin(server.url), "Cookie": signin_cookie(server.url, "root", "root-password")})
    info = json.loads(http(server.url + "/gradio_api/info")[1])["named_endpoints"]
    for name, spec in info.items():
        if name in ("/sign_out", "/users_add"):
            continue  # keep the admin signed in; account creation is validated in tests/annotation
        n = len(spec["parameters"])
        for k in (0, 5):
            data = [HOSTILE[(k + i) % len(HOSTILE)] for i in range(n)]
            try:
                text = str(c.predict(*data, api_name=name))
            except Exception as exc:  # an error reply
                text = str(exc)
            assert str(REPO) not in text and str(demo_dir(IB).parent) not in text, (name, text[:300])
    after = {k: _tree(root, skip) for k, (root, skip) in watched.items()}
    for k in watched:
        assert after[k] == before[k], (k, sorted(after[k] - before[k])[:10])
    assert list(server.marker_dir.iterdir()) == []
    assert server.alive()
