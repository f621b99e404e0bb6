"""Issue 26, accounts and bounds, replayed over HTTP against a real `python app.py`: sign-in is an HttpOnly
cookie that sign-out and a password change end everywhere, guessing is locked out (and stays locked over a
restart), an annotator never receives a target, a study link's bounds hold (responses, early finish, a media
time far behind the page's position, a clip id used twice), and CSV cells cannot become formulas."""
from __future__ import annotations

import base64
import csv
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from annotation import auth
from annotation.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sec_helpers beside this file (importlib mode)
from sec_helpers import IB, REPO, http, http_full, link_cookie, server_fn, signin_cookie, start_app  # noqa: E402

TARGET_TEXT, TARGET_TIME = "The ball appeared.", "00:08.000"  # ball_counter#0's target, as the result shows it
NOT_SIGNED_IN = "Sign in"


def _set_cookies(headers) -> list[str]:
    return headers.get_all("Set-Cookie") or []


def _route(server, mount: str, body: dict, cookie: str):
    import json
    status, text = http(f"{server.url}{mount}/api/respond", body, headers={"Cookie": cookie, "Origin": server.url})
    return status, json.loads(text)


def _wait(cond, what: str, deadline: float = 90.0):
    end = time.time() + deadline
    while time.time() < end:
        out = cond()
        if out:
            return out
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_sign_in_cookie_is_httponly_strict_and_never_in_the_page(server):
    status, headers, text = http_full(f"{server.url}/auth/signin", {"name": "root", "password": "root-password"},
                                      headers={"Origin": server.url})
    assert status == 200 and '"role":"admin"' in text.replace(" ", "")
    [set_cookie] = [c for c in _set_cookies(headers) if c.startswith("ib_session=")]
    flags = [f.strip().lower() for f in set_cookie.split(";")]
    sid = set_cookie.split(";")[0].split("=", 1)[1]
    assert len(sid) >= 40 and "httponly" in flags and "samesite=strict" in flags and "path=/" in flags
    assert "secure" not in flags  # plain http here; an https --base-url makes it Secure
    for path in ("/", "/config", "/gradio_api/info"):
        _, page = http(server.url + path, headers={"Cookie": f"ib_session={sid}"})
        assert sid not in page and "data-token" not in page, path


def test_a_study_link_becomes_a_cookie_and_the_url_drops_the_token(server):
    token = server.tokens["alice"]
    status, headers, _ = http_full(f"{server.url}/study/?t={token}")
    assert status == 303 and headers["Location"] == "/study/"
    [set_cookie] = [c for c in _set_cookies(headers) if c.startswith("ib_study=")]
    flags = [f.strip().lower() for f in set_cookie.split(";")]
    assert "httponly" in flags and "samesite=strict" in flags and "path=/study" in flags
    assert token not in set_cookie
    # the cookie alone opens the session; the token in a body opens nothing any more
    status, res = server_fn(server.url, "/study", "open_session", {}, cookie=set_cookie.split(";")[0])
    assert res["ok"] and res["session"]["participant"] == "alice"
    status, res = server_fn(server.url, "/study", "open_session", {"x": 1}, cookie="ib_study=made-up-" + "x" * 40)
    assert not res["ok"]
    # a wrong token: any earlier study cookie is cleared (the page then says the link is not valid)
    status, headers, _ = http_full(f"{server.url}/study/?t={'y' * 43}")
    [cleared] = [c for c in _set_cookies(headers) if c.startswith("ib_study=")]
    assert status == 303 and cleared.startswith(('ib_study=""', "ib_study=;")) and "max-age=0" in cleared.lower()


def _item_sets(server, cookie: str) -> dict:
    return server_fn(server.url, "", "item_sets", {"benchmark": IB}, cookie=cookie)[1]


def test_sign_out_and_a_password_change_end_every_session_of_the_account(server):
    with closing(Store(server.db)) as st:
        auth.create_user(st, "pat", "reviewer", "pat-password")
    a, b = signin_cookie(server.url, "pat", "pat-password"), signin_cookie(server.url, "pat", "pat-password")
    assert _item_sets(server, a)["ok"] and _item_sets(server, b)["ok"]
    status, _ = http(f"{server.url}/auth/signout", {}, headers={"Cookie": a, "Origin": server.url})
    assert status == 200
    for c in (a, b):  # one sign-out ends both browsers' sessions
        res = _item_sets(server, c)
        assert not res["ok"] and NOT_SIGNED_IN in res["error"]
    c, d = signin_cookie(server.url, "pat", "pat-password"), signin_cookie(server.url, "pat", "pat-password")
    assert _item_sets(server, c)["ok"]
    out = subprocess.run([sys.executable, "app.py", "users", "passwd", "pat", "--db", str(server.db),
                          "--password-stdin"], input="pat-password-2\n", text=True, capture_output=True, cwd=REPO,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    for cookie in (c, d):
        res = _item_sets(server, cookie)
        assert not res["ok"] and NOT_SIGNED_IN in res["error"]
    assert signin_cookie(server.url, "pat", "pat-password") == ""
    assert _item_sets(server, signin_cookie(server.url, "pat", "pat-password-2"))["ok"]


def test_an_annotator_never_receives_a_target(server):
    """Every server function and route that returns item content, called as an annotator."""
    import json
    from gradio_client import Client
    ann = signin_cookie(server.url, "ann", "ann-password")
    seen = []

    def fn(name, req):
        status, res = server_fn(server.url, "", name, req, cookie=ann)
        seen.append((name, json.dumps(res)))
        return res

    opened = fn("open_session", {"participant": "ann", "benchmark": IB, "items": "ball_counter#0"})
    assert opened["ok"], opened
    sid = opened["session"]["id"]
    base = {"session_id": sid, "item_index": 0, "item_id": "ball_counter#0"}
    status, res = _route(server, "", {**base, "kind": "press", "media_t": 0.0}, ann)
    seen.append(("/api/respond", json.dumps(res)))
    assert res["ok"], res
    for name, req in (("respond", {**base, "kind": "text", "text": "a ball", "media_t": 0.0}),
                      ("clock", {**base, "media_t": 0.0, "page_id": "p"}), ("asr_status", {"session_id": sid}),
                      ("item_sets", {"benchmark": IB}), ("model_check", {"session_id": sid}),
                      ("study_step", {"session_id": sid, "step": "consent", "agree": True}),
                      ("calibrate", {"session_id": sid, "trials": []}),
                      ("correct", {"session_id": sid, "rid": "r_" + "0" * 16, "text": "x"}),
                      ("hear", {**base, "media_t": 0.0, "sample_rate": 16000, "pcm_b64": ""}),
                      ("finish_item", base), ("open_session", {"session_id": sid})):
        fn(name, req)
    assert json.loads(seen[-2][1])["ok"] and json.loads(seen[-1][1])["done"]  # finished, and the summary shown
    # every Gradio endpoint of the studio, with the item's benchmark and id as arguments
    info = json.loads(http(server.url + "/gradio_api/info")[1])["named_endpoints"]
    c = Client(server.url + "/", verbose=False, headers={"Origin": server.url, "Cookie": ann})
    for name, spec in info.items():
        n = len(spec["parameters"])
        for args in ([IB] * n, [IB, "ball_counter#0", *[""] * (n - 2)][:n]):
            try:
                out = str(c.predict(*args, api_name=name))
            except Exception as exc:  # an error reply
                out = str(exc)
            seen.append((name, out))
    for name, text in seen:
        assert TARGET_TEXT not in text and TARGET_TIME not in text, (name, text[:400])


def test_a_studio_session_belongs_to_whoever_opened_it(server):
    root, ann = signin_cookie(server.url, "root", "root-password"), signin_cookie(server.url, "ann", "ann-password")
    _, res = server_fn(server.url, "", "open_session", {"participant": "r", "benchmark": IB,
                                                        "items": "moving_square#0"}, cookie=root)
    sid = res["session"]["id"]
    for name, req in (("open_session", {"session_id": sid}), ("finish_item", {"session_id": sid, "item_index": 0})):
        _, out = server_fn(server.url, "", name, req, cookie=ann)
        assert not out["ok"] and "No session" in out["error"], name
    status, out = _route(server, "", {"session_id": sid, "item_index": 0, "kind": "press", "media_t": 0.0}, ann)
    assert not out["ok"]
    with closing(Store(server.db)) as st:
        assert st.responses(session_id=sid) == [] and st.get_session(sid).current_index == 0


def test_1500_responses_on_one_item_stop_at_the_bound(server):
    root = signin_cookie(server.url, "root", "root-password")
    _, res = server_fn(server.url, "", "open_session", {"participant": "flood", "benchmark": IB,
                                                        "items": "moving_square#0"}, cookie=root)
    sid = res["session"]["id"]
    body = {"session_id": sid, "item_index": 0, "kind": "text", "media_t": 0.0}
    _, long = _route(server, "", {**body, "text": "x" * 1500}, root)
    assert not long["ok"] and "at most 500 characters" in long["error"]
    ok = refused = 0
    for i in range(1500):
        _, out = _route(server, "", {**body, "text": f"answer {i}", "rid": f"r_{i:016x}"}, root)
        if out["ok"]:
            ok += 1
        else:
            refused += 1
            assert "already has 200 responses" in out["error"], out
    assert (ok, refused) == (200, 1300)
    _, again = _route(server, "", {**body, "text": "answer 7", "rid": f"r_{7:016x}"}, root)  # a retry: still ok
    assert again["ok"] and again["duplicate"]
    with closing(Store(server.db)) as st:
        rows = st.responses(session_id=sid)
    assert len(rows) == 200 and max(len(r.text) for r in rows) <= 500


def test_a_study_item_cannot_be_finished_before_its_clock_ran(server):
    tok = server.tokens["bob"]
    _, opened = server_fn(server.url, "/study", "open_session", {"t": tok})
    assert opened["ok"] and opened["item"]["index"] == 0
    _, fin = server_fn(server.url, "/study", "finish_item", {"t": tok, "item_index": 0})
    assert not fin["ok"] and fin["retry_in"] > 0 and "still to play" in fin["error"]
    with closing(Store(server.db)) as st:
        assert st.get_session(opened["session"]["id"]).current_index == 0


def _pcm(seconds: float, rate: int, loud: bool) -> str:
    n = int(seconds * rate)
    x = (np.sin(np.arange(n) * 2 * np.pi * 220 / rate) * 12000).astype("<i2") if loud else np.zeros(n, "<i2")
    return base64.b64encode(x.tobytes()).decode()


def test_a_media_time_far_behind_the_page_and_a_reused_clip_id_are_refused(server):
    tok = server.tokens["alice"]
    _, opened = server_fn(server.url, "/study", "open_session", {"t": tok})
    sid, dur = opened["session"]["id"], opened["item"]["duration"]
    at = min(8.0, dur - 1.0)
    rep = {"t": tok, "item_index": 0, "media_t": at, "page_id": "p", "event": "beat"}
    _wait(lambda: server_fn(server.url, "/study", "clock", rep)[1]["ok"], "the item's clock to reach the report")
    _, late = server_fn(server.url, "/study", "respond", {"t": tok, "item_index": 0, "kind": "press", "media_t": 0.1})
    assert not late["ok"] and "far behind" in late["error"]
    _, near = server_fn(server.url, "/study", "respond", {"t": tok, "item_index": 0, "kind": "press",
                                                          "media_t": at - 1.0})
    assert near["ok"], near
    rid = "r_" + "c1" * 8
    clip = {"t": tok, "item_index": 0, "sample_rate": 16000, "start_media_t": at - 2.0, "rid": rid}
    _, first = server_fn(server.url, "/study", "speak", {**clip, "pcm_b64": _pcm(1.0, 16000, True)})
    assert first["ok"], first
    wav = server.db.parent / "audio" / sid / f"{rid}.wav"
    kept = wav.read_bytes()
    for loud in (False, True):  # silence (used to delete the clip) and another clip (used to overwrite it)
        _, again = server_fn(server.url, "/study", "speak", {**clip, "pcm_b64": _pcm(2.0, 16000, loud)})
        assert again["ok"] and again["duplicate"], again
        assert wav.read_bytes() == kept
    with closing(Store(server.db)) as st:
        assert [r.id for r in st.responses(session_id=sid) if r.kind == "speech"] == [rid]


def test_25_wrong_passwords_lock_the_account_even_for_the_right_one_and_over_a_restart(tmp_path):
    db = tmp_path / "lock.sqlite"
    with closing(Store(db)) as st:
        auth.create_user(st, "victim", "admin", "victim-password")
    proc, url = start_app(db, tmp_path / "app.log", ["--signin-lockout", "600"])
    try:
        answers = [http_full(f"{url}/auth/signin", {"name": "victim", "password": f"guess-{i}"},
                             headers={"Origin": url}) for i in range(25)]
        codes = [a[0] for a in answers]
        assert codes == [401] * 4 + [429] * 21, codes  # the 5th failure starts a lockout of 600 s
        for _, headers, _ in answers[4:]:
            assert 0 < int(headers["Retry-After"]) <= 600
        status, headers, _ = http_full(f"{url}/auth/signin", {"name": "victim", "password": "victim-password"},
                                       headers={"Origin": url})
        assert status == 429 and int(headers["Retry-After"]) > 0 and not _set_cookies(headers)
    finally:
        proc.terminate()
        proc.wait(30)
    proc, url = start_app(db, tmp_path / "app.log", ["--signin-lockout", "600"])
    try:
        status, headers, _ = http_full(f"{url}/auth/signin", {"name": "victim", "password": "victim-password"},
                                       headers={"Origin": url})
        assert status == 429 and 0 < int(headers["Retry-After"]) <= 600
    finally:
        proc.terminate()
        proc.wait(30)


def test_wrong_link_tokens_are_locked_out_per_client(tmp_path):
    db = tmp_path / "links.sqlite"
    Store(db).close()
    proc, url = start_app(db, tmp_path / "app.log", ["--signin-lockout", "600"])
    try:
        codes = [http_full(f"{url}/study/?t={'z' * 40}{i:03d}")[0] for i in range(12)]
        assert codes == [303] * 9 + [429] * 3, codes  # the 10th wrong token starts the lockout
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.mark.parametrize("pid", ["+41", "-x", "@SUM", "ok"])
def test_links_csv_cells_cannot_become_formulas(tmp_path, pid):
    (tmp_path / "people.txt").write_text(f"{pid}\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "app.py", "study", "create", "--db", str(tmp_path / "s.sqlite"),
                          "--benchmark", IB, "--participants", str(tmp_path / "people.txt"), "--n", "1",
                          "--out", str(tmp_path / "links.csv")], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr
    with open(tmp_path / "links.csv", newline="", encoding="utf-8") as fh:
        [row] = list(csv.DictReader(fh))
    assert row["participant"] == (pid if pid == "ok" else "'" + pid)
