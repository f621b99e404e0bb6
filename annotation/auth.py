"""Accounts, password hashing (argon2) and server-side sign-in sessions.

A sign-in is a random session id held by the browser in an HttpOnly cookie (ibench_ui.auth_routes); the store
keeps only its sha256 with an idle and an absolute lifetime. Every UI handler and API route calls
`require(store, sid, roles)` with the id from the request's cookie; the page is never trusted to say who the
user is or what they may do. Signing out or changing the password ends every session of the account."""
from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from typing import Iterable, Optional

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from annotation.store import Store

ROLES = ("admin", "reviewer", "annotator")
STAFF = ("admin", "reviewer")  # may see and edit every record
ANYONE = ROLES
TOKEN_TTL = 12 * 3600.0  # absolute lifetime of a sign-in (serve --session-max)
IDLE_TTL = 2 * 3600.0    # a sign-in unused this long ends (serve --session-idle)
TOUCH_EVERY = 60.0       # last use is written at most this often per session (not on every request)
MIN_PASSWORD = 8
_NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
_hasher = PasswordHasher()


@dataclass(frozen=True)
class SignInSettings:
    """Lifetimes of cookie sessions (seconds) and the first lockout after repeated failures (serve flags)."""
    idle: float = IDLE_TTL
    max_age: float = TOKEN_TTL
    link_max_age: float = 30 * 24 * 3600.0  # a study link's cookie: a participant may come back days later
    lockout: Optional[float] = None  # None: annotation.throttle's policies

    def __post_init__(self):
        for name in ("idle", "max_age", "link_max_age"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and 60 <= v <= 366 * 24 * 3600):
                raise ValueError(f"{name} must be from 60 seconds to a year, got {v!r}")
        if self.lockout is not None and not (isinstance(self.lockout, (int, float)) and 1 <= self.lockout <= 86400):
            raise ValueError(f"lockout must be from 1 second to a day, got {self.lockout!r}")


@dataclass(frozen=True)
class User:
    """A signed-in account as the server sees it."""
    name: str
    role: str

    @property
    def is_staff(self) -> bool:
        return self.role in STAFF


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; expected one of: {', '.join(ROLES)}")
    return role


def create_user(store: Store, name: str, role: str, password: str) -> User:
    """Add an account with a hashed password; raises ValueError on a bad name, role or short password."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"bad user name {name!r}: use 1-64 letters, digits, '_', '.', '@' or '-'")
    check_role(role)
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise ValueError(f"password for {name!r} must have at least {MIN_PASSWORD} characters")
    store.add_user(name, role, hash_password(password))
    return User(name, role)


def set_password(store: Store, name: str, password: str) -> None:
    """A new password; every signed-in session of the account ends (a leaked session dies with the old one)."""
    if len(password) < MIN_PASSWORD:
        raise ValueError(f"password for {name!r} must have at least {MIN_PASSWORD} characters")
    store.update_user(name, password_hash=hash_password(password))
    store.revoke_user_tokens(name)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def sign_in(store: Store, name: str, password: str, ttl: float = TOKEN_TTL, idle: float = IDLE_TTL) -> str:
    """Check the password and return a fresh random session id (only its hash is stored), valid for `ttl`
    seconds at most and `idle` seconds after its last use."""
    row = store.get_user(name or "")
    # verify against a dummy hash when the user is unknown so timing does not reveal which names exist
    ok = verify_password(row["password_hash"] if row else _DUMMY_HASH, password or "")
    if not row or not ok or not row.get("active"):
        raise PermissionError("wrong user name or password (or the account is disabled)")
    token = secrets.token_urlsafe(32)
    store.add_token(_token_hash(token), row["name"], time.time() + ttl, idle=idle)
    return token


def sign_out(store: Store, token: Optional[str]) -> None:
    """End every session of the account `token` belongs to (one sign-out signs out every browser)."""
    row = store.get_token(_token_hash(token)) if token and isinstance(token, str) else None
    if row and row.get("user"):
        store.revoke_user_tokens(row["user"])


def live_token(store: Store, token: Optional[str], now: Optional[float] = None) -> Optional[dict]:
    """The stored session row of `token` while it is neither revoked nor past its absolute or idle lifetime;
    its last use is refreshed (at most every TOUCH_EVERY seconds). None otherwise."""
    if not token or not isinstance(token, str) or len(token) > 256:
        return None
    h = _token_hash(token)
    row = store.get_token(h)
    now = time.time() if now is None else now
    if not row or row.get("revoked") or (row.get("expires") or 0) < now:
        return None
    seen, idle = row.get("last_seen") or row.get("created") or 0, row.get("idle")
    if idle and seen + idle < now:
        return None
    if now - seen > TOUCH_EVERY:
        store.touch_token(h, now)
    return row


def user_for(store: Store, token: Optional[str]) -> Optional[User]:
    """The user a token belongs to, or None when it is missing, unknown, expired, revoked or disabled."""
    row = live_token(store, token)
    if not row or not row.get("user"):
        return None
    u = store.get_user(row["user"])
    if not u or not u.get("active"):
        return None
    return User(u["name"], u["role"])


def require(store: Store, token: Optional[str], roles: Iterable[str] = ANYONE) -> User:
    """The signed-in user if their role is one of `roles`; PermissionError otherwise."""
    user = user_for(store, token)
    if user is None:
        raise PermissionError("not signed in (or the session expired): sign in first")
    roles = tuple(roles)
    if user.role not in roles:
        raise PermissionError(f"user {user.name!r} ({user.role}) may not do this; it needs one of: {', '.join(roles)}")
    return user


def require_user_role(user: User, roles: Iterable[str]) -> User:
    """Re-check an already resolved user's role (library functions call this too)."""
    roles = tuple(roles)
    if user.role not in roles:
        raise PermissionError(f"user {user.name!r} ({user.role}) may not do this; it needs one of: {', '.join(roles)}")
    return user


_DUMMY_HASH = _hasher.hash("not-a-real-password-" + secrets.token_hex(8))
