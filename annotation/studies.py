"""Studies for outside participants: one study, one link (a capability) per participant.

A link is an unguessable token (`secrets.token_urlsafe(32)`) scoped to one participant, one item
set and one session; only its sha256 is stored, so the database alone cannot open a session. The
session behind each link is created with the study, so a link is all a participant's page holds."""
from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Optional, Union
from urllib.parse import urlencode

from annotation.store import Store, new_id

PARTICIPANT = re.compile(r"^[\w.@+-]{1,64}$")
# what one session may store (ibench_ui.session enforces them; studio sessions use these defaults): a press every
# 0.3 s through a minute-long item is 200; typed answers are a sentence or two; a clock that has not run to the
# item's end refuses finish_item unless the study allows skipping
BOUNDS: dict[str, Any] = {"max_responses_per_item": 200, "max_responses_per_session": 2000, "max_text": 500,
                          "allow_skip": False}
STUDY_PATH = "/study"  # where the host mounts the participant app (participant_url is the only builder)
DEFAULT_SETTINGS: dict[str, Any] = {
    "show_results": False,   # participants see targets and scores after an item only if True
    "practice_item": None,   # an item id played first and never scored, or None
    "consent": "",           # markdown shown before the first item
    "completion_code": "",   # shown when the session is done (e.g. for a crowd-work platform)
    "completion_url": "",    # the end screen's link back to the crowd platform (http/https), beside the code
    "participant_param": "PROLIFIC_PID",  # the study link's URL parameter carrying the platform's participant id
    "pause_allowed": False,
    "respond_key": "Space",
    **BOUNDS,
}
_TYPES: dict[str, tuple] = {"show_results": (bool,), "practice_item": (str, type(None)), "consent": (str,),
                            "completion_code": (str,), "completion_url": (str,), "participant_param": (str,),
                            "pause_allowed": (bool,), "respond_key": (str,),
                            "max_responses_per_item": (int,), "max_responses_per_session": (int,),
                            "max_text": (int,), "allow_skip": (bool,)}
_RANGES = {"max_responses_per_item": (1, 10000), "max_responses_per_session": (1, 100000), "max_text": (1, 20000)}
# a study is watched by people, never by a model chosen here: live models are an admin action in the studio
_FORBIDDEN = ("model", "responders", "protocol")
MAX_PARTICIPANTS = 10000
MAX_TEXT = 20000
MAX_URL = 2000


@dataclass(frozen=True)
class Study:
    id: str
    benchmark: str
    name: str
    created: float
    settings: dict = field(default_factory=dict)
    status: str = "open"


@dataclass(frozen=True)
class StudyLink:
    """What a valid token opens: exactly one participant's session of one study."""
    study_id: str
    participant: str
    benchmark: str
    item_ids: tuple[str, ...]
    settings: dict
    session_id: str
    revoked: bool = False


@dataclass(frozen=True)
class ParticipantProgress:
    participant: str
    session_id: str
    n_items: int
    index: int
    status: str
    n_responses: int
    revoked: bool


@dataclass(frozen=True)
class StudyStatus:
    study: Study
    participants: list[ParticipantProgress]

    @property
    def n_done(self) -> int:
        return sum(1 for p in self.participants if p.status == "done")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def participant_url(base_url: str, token: str) -> str:
    """The link a participant is given: the host's participant app with the token as query parameter."""
    return f"{base_url.rstrip('/')}{STUDY_PATH}/?{urlencode({'t': token})}"


def check_settings(settings: Optional[dict], item_pool: Optional[set[str]] = None) -> dict:
    """The study settings with defaults filled in; ValueError naming the field when one is wrong."""
    settings = dict(settings or {})
    for key in settings:
        if not isinstance(key, str):
            raise ValueError(f"study setting names must be strings, got {key!r}")
        if key in _FORBIDDEN:
            raise ValueError(f"study setting {key!r} is not allowed: a study link never runs a model")
    out = {**DEFAULT_SETTINGS, **settings}
    for key, types in _TYPES.items():
        if not isinstance(out[key], types):
            raise ValueError(f"study setting {key!r} must be {' or '.join(t.__name__ for t in types)}, "
                             f"got {out[key]!r}")
    for key, (lo, hi) in _RANGES.items():
        if isinstance(out[key], bool) or not lo <= out[key] <= hi:
            raise ValueError(f"study setting {key!r} must be a whole number from {lo} to {hi}, got {out[key]!r}")
    for key in ("consent", "completion_code"):
        if len(out[key]) > MAX_TEXT:
            raise ValueError(f"study setting {key!r} is longer than {MAX_TEXT} characters")
    if not re.fullmatch(r"[A-Za-z0-9]{1,20}", out["respond_key"]):
        raise ValueError(f"study setting 'respond_key' must be a KeyboardEvent.code such as Space, "
                         f"got {out['respond_key']!r}")
    url = out["completion_url"]
    if url and (not re.fullmatch(r"https?://[^\s<>\"']{1,2000}", url) or len(url) > MAX_URL):
        raise ValueError(f"study setting 'completion_url' must be an http:// or https:// URL, got {url[:80]!r}")
    if out["participant_param"] and not re.fullmatch(r"[A-Za-z0-9_]{1,40}", out["participant_param"]):
        raise ValueError("study setting 'participant_param' must be a URL parameter name (letters, digits, _), "
                         f"got {out['participant_param'][:80]!r}")
    if out["practice_item"] is not None and item_pool is not None and out["practice_item"] not in item_pool:
        raise ValueError(f"study setting 'practice_item': unknown item {out['practice_item']!r}")
    try:
        json.dumps(out)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"study settings must be plain JSON values: {exc}") from None
    return out


def _items_per_participant(participants: list[str], item_ids: Union[dict, list, tuple],
                           known: Optional[set[str]]) -> dict[str, list[str]]:
    if isinstance(item_ids, dict):
        missing = [p for p in participants if p not in item_ids]
        extra = [p for p in item_ids if p not in participants]
        if missing or extra:
            raise ValueError(f"item ids per participant must name exactly the participants; "
                             f"missing: {missing or '-'}, not a participant: {extra or '-'}")
        per = {p: list(item_ids[p]) for p in participants}
    elif isinstance(item_ids, (list, tuple)):
        per = {p: list(item_ids) for p in participants}
    else:
        raise ValueError(f"item ids must be a list or a dict participant -> list, got {type(item_ids).__name__}")
    for p, ids in per.items():
        if not ids:
            raise ValueError(f"participant {p!r} has no items")
        bad = [i for i in ids if not isinstance(i, str) or not i]
        if bad:
            raise ValueError(f"participant {p!r}: item ids must be non-empty strings, got {bad[:3]!r}")
        if len(set(ids)) != len(ids):
            raise ValueError(f"participant {p!r}: an item id is listed twice")
        if known is not None:
            unknown = [i for i in ids if i not in known]
            if unknown:
                raise ValueError(f"participant {p!r}: unknown item id(s) {', '.join(unknown[:5])}")
    return per


def create_study(store: Store, benchmark: str, participants: list[str],
                 item_ids: Union[dict[str, list[str]], list[str]], settings: Optional[dict] = None, *,
                 name: str = "", data_dir: str = "", known_items: Optional[set[str]] = None
                 ) -> tuple[Study, dict[str, str]]:
    """Create a study, one session and one link per participant, all in one transaction.

    Returns the study and {participant: token}; the tokens are shown once (only hashes are stored).
    Everything is checked before anything is written; `known_items` (the dataset's ids) lets the
    caller have item ids checked too. Raises ValueError naming the field that is wrong."""
    if not isinstance(benchmark, str) or not benchmark:
        raise ValueError("benchmark must be a benchmark name")
    if not isinstance(participants, (list, tuple)) or not participants:
        raise ValueError("a study needs at least one participant")
    if len(participants) > MAX_PARTICIPANTS:
        raise ValueError(f"at most {MAX_PARTICIPANTS} participants per study")
    for p in participants:
        if not isinstance(p, str) or not PARTICIPANT.fullmatch(p):
            raise ValueError(f"bad participant id {p!r}: use 1-64 letters, digits or . _ @ + -")
    if len(set(participants)) != len(participants):
        raise ValueError("a participant id is listed twice")
    per = _items_per_participant(list(participants), item_ids, known_items)
    pool = set(known_items) if known_items is not None else None
    conf = check_settings(settings, pool)
    if not isinstance(name, str) or len(name) > 200:
        raise ValueError("study name must be a string of at most 200 characters")

    now = time.time()
    study = Study(id=new_id("st"), benchmark=benchmark, name=name, created=now, settings=conf)
    tokens = {p: secrets.token_urlsafe(32) for p in participants}
    rows = []
    for p in participants:
        sid = new_id("s")
        s_settings = {**{k: conf[k] for k in ("pause_allowed", "respond_key")}, "study_id": study.id,
                      "show_results": conf["show_results"]}
        if conf["practice_item"]:
            s_settings["practice_item"] = conf["practice_item"]
        rows.append((p, sid, s_settings))
    with store._lock:  # one transaction: a study is written whole or not at all
        conn = store.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("insert into studies (id, benchmark, name, created, settings, status, data_dir) "
                         "values (?, ?, ?, ?, ?, ?, ?)",
                         [study.id, benchmark, name, now, json.dumps(conf, sort_keys=True), "open", data_dir])
            for p, sid, s_settings in rows:
                conn.execute("insert into sessions (id, participant, benchmark, item_ids, created, settings, "
                             "current_index, status, data_dir) values (?, ?, ?, ?, ?, ?, 0, 'open', ?)",
                             [sid, p, benchmark, json.dumps(per[p]), now,
                              json.dumps(s_settings, sort_keys=True), data_dir])
                conn.execute("insert into study_links (token_hash, study_id, participant, session_id, created, "
                             "revoked) values (?, ?, ?, ?, ?, 0)", [token_hash(tokens[p]), study.id, p, sid, now])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return study, tokens


def _study(r: dict) -> Study:
    return Study(id=r["id"], benchmark=r["benchmark"], name=r["name"] or "", created=r["created"] or 0.0,
                 settings=json.loads(r["settings"] or "{}"), status=r["status"] or "open")


def get_study(store: Store, study_id: str) -> Optional[Study]:
    rows = store.query("select * from studies where id = ?", [str(study_id)])
    return _study(rows[0]) if rows else None


def find_study(store: Store, id_or_name: str) -> Study:
    """The study with this id, else the one study with this name; KeyError naming the choices otherwise."""
    study = get_study(store, id_or_name)
    if study is not None:
        return study
    named = [s for s in list_studies(store) if s.name == id_or_name]
    if len(named) == 1:
        return named[0]
    known = ", ".join(f"{s.id} ({s.name})" if s.name else s.id for s in list_studies(store)) or "none"
    why = "several studies are named" if named else "no study with id or name"
    raise KeyError(f"{why} {id_or_name!r}; studies: {known}")


def list_studies(store: Store) -> list[Study]:
    with store._lock:
        rows = list(store.db["studies"].rows_where(order_by="created"))
    return [_study(r) for r in rows]


def resolve_token(store: Store, token: Any) -> Optional[StudyLink]:
    """The link a token opens, or None when it is malformed, unknown or revoked (the caller says why not)."""
    if not isinstance(token, str) or not 20 <= len(token) <= 128 or not re.fullmatch(r"[A-Za-z0-9_-]+", token):
        return None
    return _resolve_hash(store, token_hash(token))


def open_link_session(store: Store, token: Any, ttl: float) -> Optional[str]:
    """A fresh cookie session id standing for a valid link token (only its hash is stored), or None when the
    token opens nothing. The page then carries the cookie, not the token."""
    if resolve_token(store, token) is None:
        return None
    sid = secrets.token_urlsafe(32)
    store.add_token(token_hash(sid), "", time.time() + ttl, link=token_hash(token))
    return sid


def link_of_session(store: Store, sid: Any) -> Optional[StudyLink]:
    """The link a cookie session id stands for, while the session lives and the link is open."""
    from annotation.auth import live_token

    row = live_token(store, sid)
    return _resolve_hash(store, row["link"]) if row and row.get("link") else None


def _resolve_hash(store: Store, link_hash: str) -> Optional[StudyLink]:
    rows = store.query("select * from study_links where token_hash = ?", [link_hash])
    if not rows or rows[0]["revoked"]:
        return None
    link = rows[0]
    study = get_study(store, link["study_id"])
    s = store.get_session(link["session_id"])
    if study is None or s is None or study.status != "open":
        return None
    return StudyLink(study_id=study.id, participant=link["participant"], benchmark=s.benchmark,
                     item_ids=s.item_ids, settings=dict(s.settings), session_id=s.id)


def revoke_link(store: Store, study_id: str, participant: str) -> None:
    """Close one participant's link (their responses stay); KeyError when there is no such link."""
    with store._lock:
        rows = list(store.db["study_links"].rows_where("study_id = ? and participant = ?", [study_id, participant]))
        if not rows:
            raise KeyError(f"study {study_id!r} has no participant {participant!r}")
        store.db.execute("update study_links set revoked = 1 where study_id = ? and participant = ?",
                         [study_id, participant])


def study_status(store: Store, study_id: str) -> StudyStatus:
    """Each participant's progress (items done of items, responses logged); KeyError for an unknown study."""
    study = get_study(store, study_id)
    if study is None:
        raise KeyError(f"no study {study_id!r}")
    with store._lock:
        links = list(store.db["study_links"].rows_where("study_id = ?", [study.id], order_by="rowid"))
        counts = dict(store.db.execute(
            "select session_id, count(*) from responses where session_id in "
            "(select session_id from study_links where study_id = ?) group by session_id", [study.id]).fetchall())
    out = []
    for link in links:
        s = store.get_session(link["session_id"])
        out.append(ParticipantProgress(participant=link["participant"], session_id=link["session_id"],
                                       n_items=len(s.item_ids) if s else 0, index=s.current_index if s else 0,
                                       status=s.status if s else "missing",
                                       n_responses=int(counts.get(link["session_id"], 0)),
                                       revoked=bool(link["revoked"])))
    return StudyStatus(study=study, participants=out)


def study_of_session(store: Store, session_id: str) -> Optional[str]:
    """The study a session belongs to (None for a session opened in the studio)."""
    with store._lock:
        rows = list(store.db["study_links"].rows_where("session_id = ?", [str(session_id)], select="study_id"))
    return rows[0]["study_id"] if rows else None
