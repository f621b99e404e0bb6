"""Rules of annotation.auth that a user or an attacker would notice, with hand-worked boundary values: who may
still act after sign-out, a password change, an idle or absolute expiry or a disabled account; every role
refused where it must be; the limits on names, passwords and lifetimes on both sides.

Session rows are pinned to created = last_seen = T0 = 1000 s (an SQL update of the stored row), so every time
below is T0 plus a hand-picked offset, never the wall clock."""
from __future__ import annotations

import hashlib

import pytest

from annotation import auth
from annotation.store import Store

T0 = 1000.0


pytestmark = pytest.mark.usefixtures("fast_argon2")  # tests/conftest.py: argon2 at its cheapest parameters


@pytest.fixture
def store(tmp_path, fast_argon2):
    st = Store(tmp_path / "a.sqlite")
    for name, role in [("ann", "annotator"), ("bob", "annotator"), ("rev", "reviewer"), ("root", "admin")]:
        auth.create_user(st, name, role, f"{name}-password")
    yield st
    st.close()


class _Clock:
    """A stand-in for the time module: time() is whatever the test set."""

    def __init__(self, t: float):
        self.t = t

    def time(self) -> float:
        return self.t


def _pin(st: Store, sid: str, *, expires: float, idle, seen: float = T0) -> str:
    """Give a stored session exact times (created = last_seen = `seen`); returns its stored hash."""
    h = hashlib.sha256(sid.encode()).hexdigest()
    st.db.execute("update auth_tokens set created = ?, last_seen = ?, expires = ?, idle = ? where token_hash = ?",
                  [seen, seen, expires, idle, h])
    return h


def _session(st, name="ann", *, ttl=3600.0, idle=600.0) -> str:
    sid = auth.sign_in(st, name, f"{name}-password")
    _pin(st, sid, expires=T0 + ttl, idle=idle)
    return sid


# -- idle and absolute lifetimes ------------------------------------------------------------------

def test_idle_limit_one_second_either_side(store):
    """idle 600 s from last use T0: at T0 + 599 and T0 + 600 (seen + idle = now, not past) it lives; a second
    session idle 601 s is over."""
    a = _session(store)
    assert auth.live_token(store, a, now=T0 + 599.0)["user"] == "ann"
    b = _session(store)
    assert auth.live_token(store, b, now=T0 + 600.0)["user"] == "ann"
    c = _session(store)
    assert auth.live_token(store, c, now=T0 + 601.0) is None


def test_absolute_lifetime_one_second_either_side(store):
    """ttl 3600 s, idle not limited: expires = T0 + 3600; alive at that very second and one before, over one
    after, however recently it was used."""
    a = _session(store, idle=None)
    assert auth.live_token(store, a, now=T0 + 3599.0) is not None
    assert auth.live_token(store, a, now=T0 + 3600.0) is not None
    assert auth.live_token(store, a, now=T0 + 3601.0) is None


def test_use_is_written_only_after_a_minute_and_idle_then_counts_from_it(store):
    """TOUCH_EVERY = 60 s: a use at T0 + 60 is not written (60 is not > 60); one at T0 + 61 is, so the 600 s idle
    limit then runs to T0 + 661: alive at T0 + 661, over at T0 + 662 (two sessions: each use is written)."""
    a = _session(store)
    h = hashlib.sha256(a.encode()).hexdigest()
    assert auth.live_token(store, a, now=T0 + 60.0) is not None
    assert store.get_token(h)["last_seen"] == T0
    assert auth.live_token(store, a, now=T0 + 61.0) is not None
    assert store.get_token(h)["last_seen"] == T0 + 61.0
    assert auth.live_token(store, a, now=T0 + 662.0) is None
    b = _session(store)
    assert auth.live_token(store, b, now=T0 + 61.0) is not None
    assert auth.live_token(store, b, now=T0 + 661.0) is not None  # 600 s after the written use


def test_idle_counts_from_creation_when_no_use_was_written(store):
    """A row without last_seen: idle counts from `created` T0, so T0 + 600 lives and T0 + 601 does not."""
    a, b = _session(store), _session(store)
    for sid in (a, b):
        store.db.execute("update auth_tokens set last_seen = null where token_hash = ?",
                         [hashlib.sha256(sid.encode()).hexdigest()])
    assert auth.live_token(store, a, now=T0 + 600.0) is not None
    assert auth.live_token(store, b, now=T0 + 601.0) is None


def test_a_session_without_an_expiry_is_over(store):
    """expires NULL reads as 0: over at any positive time, even with no idle limit."""
    a = _session(store, idle=None)
    store.db.execute("update auth_tokens set expires = null where token_hash = ?",
                     [hashlib.sha256(a.encode()).hexdigest()])
    assert auth.live_token(store, a, now=1.0) is None


def test_sign_in_stores_only_the_hash_with_the_given_lifetimes(store):
    """The row's key is sha256(session id), the id itself is nowhere; expires = sign-in time + ttl, idle as given."""
    import time as wall
    before = wall.time()
    sid = auth.sign_in(store, "ann", "ann-password", ttl=7200.0, idle=900.0)
    after = wall.time()
    assert len(sid) == 43  # token_urlsafe(32): 32 random bytes
    row = store.get_token(hashlib.sha256(sid.encode()).hexdigest())
    assert row["user"] == "ann" and row["idle"] == 900.0 and not row["revoked"]
    assert before + 7200.0 <= row["expires"] <= after + 7200.0
    assert store.get_token(sid) is None
    assert sid != auth.sign_in(store, "ann", "ann-password")


def test_default_lifetimes_are_twelve_hours_and_two_idle(store):
    """sign_in's defaults: ttl 12 h = 43200 s, idle 2 h = 7200 s."""
    import time as wall
    before = wall.time()
    sid = auth.sign_in(store, "ann", "ann-password")
    after = wall.time()
    row = store.get_token(hashlib.sha256(sid.encode()).hexdigest())
    assert row["idle"] == 7200.0 and before + 43200.0 <= row["expires"] <= after + 43200.0


# -- who may still act ------------------------------------------------------------------------------

def test_sign_out_ends_every_session_of_that_account_only(store):
    a1, a2, b = _session(store, "ann"), _session(store, "ann"), _session(store, "bob")
    auth.sign_out(store, a2)
    assert auth.live_token(store, a1, now=T0 + 1.0) is None
    assert auth.live_token(store, a2, now=T0 + 1.0) is None
    assert auth.live_token(store, b, now=T0 + 1.0)["user"] == "bob"


@pytest.mark.parametrize("token", [None, "", 12, "not-a-session"])
def test_sign_out_without_a_session_ends_nothing(store, token):
    a = _session(store, "ann")
    auth.sign_out(store, token)
    assert auth.live_token(store, a, now=T0 + 1.0)["user"] == "ann"


def test_sign_out_of_a_session_without_an_account_ends_no_account(store):
    """A study link's cookie session has user "": signing it out must not end sessions stored with user ""."""
    a = _session(store, "ann")
    store.add_token("h-of-a-link-session", "", T0 + 3600.0, link="h-link")
    store.add_token(hashlib.sha256(b"link-session-id").hexdigest(), "", T0 + 3600.0, link="h-link")
    auth.sign_out(store, "link-session-id")
    assert store.get_token("h-of-a-link-session")["revoked"] == 0
    assert auth.live_token(store, a, now=T0 + 1.0) is not None


def test_a_password_change_ends_sessions_and_the_old_password(store):
    a, b = _session(store, "ann"), _session(store, "bob")
    auth.set_password(store, "ann", "12345678")  # 8 characters: the shortest allowed
    assert auth.live_token(store, a, now=T0 + 1.0) is None
    assert auth.live_token(store, b, now=T0 + 1.0) is not None
    with pytest.raises(PermissionError):
        auth.sign_in(store, "ann", "ann-password")
    assert auth.user_for(store, auth.sign_in(store, "ann", "12345678")) == auth.User("ann", "annotator")


def test_a_too_short_new_password_changes_nothing(store):
    a = _session(store, "ann")
    with pytest.raises(ValueError, match="at least 8 characters"):
        auth.set_password(store, "ann", "1234567")
    assert auth.live_token(store, a, now=T0 + 1.0) is not None
    assert auth.sign_in(store, "ann", "ann-password")


def test_a_disabled_account_cannot_sign_in_or_act(store, monkeypatch):
    a = _session(store, "ann")
    store.update_user("ann", active=0)
    monkeypatch.setattr(auth, "time", _Clock(T0 + 1.0))
    assert auth.user_for(store, a) is None
    with pytest.raises(PermissionError, match="not signed in"):
        auth.require(store, a)
    with pytest.raises(PermissionError, match=r"^wrong user name or password \(or the account is disabled\)$"):
        auth.sign_in(store, "ann", "ann-password")


@pytest.mark.parametrize("name, password", [("ann", "bob-password"), ("nobody", "ann-password"), ("", "ann-password"),
                                            (None, "ann-password"), ("ann", None), ("ann", ""), ("ANN", "ann-password")])
def test_a_wrong_name_or_password_signs_nobody_in(store, name, password):
    with pytest.raises(PermissionError, match=r"^wrong user name or password \(or the account is disabled\)$"):
        auth.sign_in(store, name, password)
    assert store.query("select count(*) as n from auth_tokens")[0]["n"] == 0


def test_user_for_reads_the_role_now_not_at_sign_in(store, monkeypatch):
    """A reviewer demoted to annotator after signing in is an annotator on the next call."""
    r = _session(store, "rev")
    monkeypatch.setattr(auth, "time", _Clock(T0 + 1.0))
    assert auth.user_for(store, r) == auth.User("rev", "reviewer")
    store.update_user("rev", role="annotator")
    assert auth.user_for(store, r) == auth.User("rev", "annotator")
    with pytest.raises(PermissionError, match="may not do this"):
        auth.require(store, r, auth.STAFF)


def test_a_session_whose_account_is_gone_or_has_none_is_nobody(store, monkeypatch):
    a = _session(store, "ann")
    store.add_token(hashlib.sha256(b"link-sid").hexdigest(), "", T0 + 3600.0, link="h-link")
    _pin(store, "link-sid", expires=T0 + 3600.0, idle=None)
    monkeypatch.setattr(auth, "time", _Clock(T0 + 1.0))
    assert auth.live_token(store, "link-sid") is not None and auth.user_for(store, "link-sid") is None
    store.db.execute("delete from users where name = 'ann'")
    assert auth.user_for(store, a) is None


def test_require_follows_the_clock_at_the_idle_limit(store, monkeypatch):
    """require with no explicit time: idle 600 s from T0 lets T0 + 600 act and refuses T0 + 601."""
    a, b = _session(store, "root"), _session(store, "root")
    monkeypatch.setattr(auth, "time", _Clock(T0 + 600.0))
    assert auth.require(store, a, ("admin",)) == auth.User("root", "admin")
    monkeypatch.setattr(auth, "time", _Clock(T0 + 601.0))
    with pytest.raises(PermissionError, match=r"^not signed in \(or the session expired\): sign in first$"):
        auth.require(store, b, ("admin",))


@pytest.mark.parametrize("token", [None, "", 5, "x" * 257])
def test_malformed_session_ids_are_nobody(store, token):
    assert auth.live_token(store, token, now=T0) is None and auth.user_for(store, token) is None


def test_a_256_character_session_id_is_read_and_257_is_not(store):
    for n in (256, 257):
        store.add_token(hashlib.sha256(("s" * n).encode()).hexdigest(), "ann", T0 + 3600.0)
        _pin(store, "s" * n, expires=T0 + 3600.0, idle=None)
    assert auth.live_token(store, "s" * 256, now=T0 + 1.0)["user"] == "ann"
    assert auth.live_token(store, "s" * 257, now=T0 + 1.0) is None


def test_a_revoked_session_is_nobody(store):
    a = _session(store)
    store.revoke_token(hashlib.sha256(a.encode()).hexdigest())
    assert auth.live_token(store, a, now=T0 + 1.0) is None


# -- roles -------------------------------------------------------------------------------------------

ROLE_SETS = {"anyone": auth.ANYONE, "staff": auth.STAFF, "admin": ("admin",), "annotator": ("annotator",)}
# who passes each set, worked out from ROLES = admin, reviewer, annotator and STAFF = admin, reviewer
ALLOWED = {"anyone": {"root", "rev", "ann"}, "staff": {"root", "rev"}, "admin": {"root"}, "annotator": {"ann"}}


@pytest.mark.parametrize("which", sorted(ROLE_SETS))
def test_every_role_against_every_role_set(store, monkeypatch, which):
    sids = {n: _session(store, n) for n in ("root", "rev", "ann")}
    monkeypatch.setattr(auth, "time", _Clock(T0 + 1.0))
    roles = ROLE_SETS[which]
    for name, sid in sids.items():
        user = auth.user_for(store, sid)
        if name in ALLOWED[which]:
            assert auth.require(store, sid, roles) == user
            assert auth.require_user_role(user, roles) is user
        else:
            msg = f"user {name!r} ({user.role}) may not do this; it needs one of: {', '.join(roles)}"
            with pytest.raises(PermissionError) as e1:
                auth.require(store, sid, roles)
            with pytest.raises(PermissionError) as e2:
                auth.require_user_role(user, roles)
            assert str(e1.value) == str(e2.value) == msg
    with pytest.raises(PermissionError, match="not signed in"):
        auth.require(store, None, roles)


def test_roles_may_be_given_once_as_an_iterator(store, monkeypatch):
    """A generator is read once: the message still names every allowed role."""
    a = _session(store, "ann")
    monkeypatch.setattr(auth, "time", _Clock(T0 + 1.0))
    with pytest.raises(PermissionError) as e1:
        auth.require(store, a, (r for r in auth.STAFF))
    with pytest.raises(PermissionError) as e2:
        auth.require_user_role(auth.User("ann", "annotator"), iter(auth.STAFF))
    want = "user 'ann' (annotator) may not do this; it needs one of: admin, reviewer"
    assert str(e1.value) == str(e2.value) == want
    assert auth.require(store, a, iter(["reviewer", "annotator"])).name == "ann"


def test_the_default_role_set_lets_every_role_act(store, monkeypatch):
    sids = [_session(store, n) for n in ("root", "rev", "ann")]
    monkeypatch.setattr(auth, "time", _Clock(T0 + 1.0))
    assert [auth.require(store, s).role for s in sids] == ["admin", "reviewer", "annotator"]


def test_staff_are_admins_and_reviewers():
    assert [auth.User("x", r).is_staff for r in ("admin", "reviewer", "annotator")] == [True, True, False]


@pytest.mark.parametrize("role", ["admin", "reviewer", "annotator"])
def test_check_role_keeps_a_known_role(role):
    assert auth.check_role(role) == role


@pytest.mark.parametrize("role", ["Admin", "", "root", "staff", None])
def test_check_role_refuses_anything_else(role):
    with pytest.raises(ValueError, match=r"expected one of: admin, reviewer, annotator"):
        auth.check_role(role)


# -- accounts ---------------------------------------------------------------------------------------

def test_create_user_at_the_limits(tmp_path):
    """Names: 1-64 of letters, digits, _ . @ -; passwords: 8 characters or more."""
    st = Store(tmp_path / "u.sqlite")
    long_name = "a" * 64
    assert auth.create_user(st, long_name, "reviewer", "12345678") == auth.User(long_name, "reviewer")
    assert auth.create_user(st, "x", "admin", "abcdefgh") == auth.User("x", "admin")
    assert auth.create_user(st, "A.b_c@d-9", "annotator", "abcdefgh").name == "A.b_c@d-9"
    row = st.get_user(long_name)
    assert row["role"] == "reviewer" and row["password_hash"] != "12345678"
    assert auth.verify_password(row["password_hash"], "12345678")
    assert not auth.verify_password(row["password_hash"], "12345679")
    assert auth.sign_in(st, long_name, "12345678")
    st.close()


@pytest.mark.parametrize("name, role, password, why", [
    ("a" * 65, "annotator", "abcdefgh", "bad user name"),
    ("", "annotator", "abcdefgh", "bad user name"),
    ("a b", "annotator", "abcdefgh", "bad user name"),
    ("a/b", "annotator", "abcdefgh", "bad user name"),
    ("ann\n", "annotator", "abcdefgh", "bad user name"),
    (None, "annotator", "abcdefgh", "bad user name"),
    ("ann", "superuser", "abcdefgh", "unknown role"),
    ("ann", "annotator", "abcdefg", "at least 8 characters"),
    ("ann", "annotator", None, "at least 8 characters"),
    ("ann", "annotator", 12345678, "at least 8 characters"),
])
def test_create_user_refuses_and_writes_nothing(tmp_path, name, role, password, why):
    st = Store(tmp_path / "u.sqlite")
    with pytest.raises(ValueError, match=why):
        auth.create_user(st, name, role, password)
    assert st.users() == []
    st.close()


def test_verify_password_says_false_for_a_broken_hash():
    assert auth.verify_password("not-an-argon2-hash", "whatever1") is False


# -- lifetimes a server may be given --------------------------------------------------------------

YEAR = 366 * 24 * 3600  # 31622400 s


@pytest.mark.parametrize("field", ["idle", "max_age", "link_max_age"])
def test_lifetime_settings_from_a_minute_to_a_year(field):
    assert getattr(auth.SignInSettings(**{field: 60}), field) == 60
    assert getattr(auth.SignInSettings(**{field: YEAR}), field) == YEAR
    for bad in (59, 59.9, YEAR + 1, "600", None):
        with pytest.raises(ValueError, match=f"^{field} must be from 60 seconds to a year"):
            auth.SignInSettings(**{field: bad})


def test_lockout_setting_from_a_second_to_a_day():
    assert auth.SignInSettings().lockout is None
    assert auth.SignInSettings(lockout=1).lockout == 1 and auth.SignInSettings(lockout=86400).lockout == 86400
    for bad in (0, 0.5, 86401, "30"):
        with pytest.raises(ValueError, match="^lockout must be from 1 second to a day"):
            auth.SignInSettings(lockout=bad)


def test_default_settings():
    s = auth.SignInSettings()
    assert (s.idle, s.max_age, s.link_max_age) == (7200.0, 43200.0, 2592000.0)  # 2 h, 12 h, 30 days
