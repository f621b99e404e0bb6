"""Sign-in sessions (annotation.auth): idle and absolute lifetimes, sign-out and a password change ending every
session of the account, a study link's cookie session standing for its link (annotation.studies)."""
from __future__ import annotations

import time

from annotation import auth, studies
from annotation.store import Store


def test_idle_and_absolute_lifetimes(tmp_path):
    st = Store(tmp_path / "a.sqlite")
    auth.create_user(st, "ann", "annotator", "ann-password")
    sid = auth.sign_in(st, "ann", "ann-password", ttl=3600.0, idle=600.0)
    t0 = st.get_token(auth._token_hash(sid))["created"]
    assert auth.live_token(st, sid, now=t0 + 599.0) is not None     # used at 599 s: idle counts from here
    assert auth.live_token(st, sid, now=t0 + 1100.0) is not None    # 501 s after that use
    assert auth.live_token(st, sid, now=t0 + 1800.0) is None        # 700 s idle
    sid2 = auth.sign_in(st, "ann", "ann-password", ttl=3600.0, idle=600.0)
    t1 = st.get_token(auth._token_hash(sid2))["created"]
    for k in range(1, 8):                                           # used every 500 s: never idle ...
        assert auth.live_token(st, sid2, now=t1 + 500.0 * k) is not None
    assert auth.live_token(st, sid2, now=t1 + 3601.0) is None       # ... but over after an hour
    st.close()


def test_sign_out_and_a_new_password_end_every_session(tmp_path):
    st = Store(tmp_path / "a.sqlite")
    auth.create_user(st, "ann", "annotator", "ann-password")
    auth.create_user(st, "bob", "annotator", "bob-password")
    a, b, c = (auth.sign_in(st, n, f"{n}-password") for n in ("ann", "ann", "bob"))
    auth.sign_out(st, a)
    assert (auth.user_for(st, a), auth.user_for(st, b), auth.user_for(st, c).name) == (None, None, "bob")
    d = auth.sign_in(st, "bob", "bob-password")
    auth.set_password(st, "bob", "bob-password-2")
    assert auth.user_for(st, c) is None and auth.user_for(st, d) is None
    st.close()


def test_a_link_cookie_stands_for_its_link_and_no_account(tmp_path):
    st = Store(tmp_path / "a.sqlite")
    _, tokens = studies.create_study(st, "interactionbench", ["p1"], ["moving_square#0"])
    sid = studies.open_link_session(st, tokens["p1"], ttl=60.0)
    assert studies.link_of_session(st, sid).participant == "p1" and auth.user_for(st, sid) is None
    auth.sign_out(st, sid)  # a link session has no account: nothing else ends
    assert studies.link_of_session(st, sid) is not None
    assert studies.open_link_session(st, "x" * 43, ttl=60.0) is None
    assert studies.link_of_session(st, sid) is not None and studies.link_of_session(st, "nope") is None
    assert studies.link_of_session(st, sid) and auth.live_token(st, sid, now=time.time() + 61.0) is None
    st.close()
