"""The SQLite store (through sqlite-utils): one file, WAL mode, a schema version, append-only responses.

Every write commits before it returns, so a caller that acknowledges after `add_*` never
acknowledges something a crash could lose."""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterable, Optional

import sqlite_utils

from annotation.model import Response, Review, Run, Session, Verification

from annotation.store_check import SCHEMA_VERSION, StoreError, check_store_path  # noqa: F401 (re-exported)
DEFAULT_DB = "ibench.sqlite"

_TABLES: dict[str, dict[str, Any]] = {
    "sessions": dict(columns={"id": str, "participant": str, "benchmark": str, "item_ids": str, "created": float,
                              "settings": str, "current_index": int, "status": str, "data_dir": str,
                              "item_opened": float, "item_opened_index": int},
                     pk="id"),
    "responses": dict(columns={"id": str, "item_id": str, "benchmark": str, "responder": str, "session_id": str,
                               "t": float, "frame_t": float, "kind": str, "text": str, "audio_path": str,
                               "wall_time": float, "page_id": str, "supersedes": str, "meta": str},
                      pk="id"),
    "runs": dict(columns={"id": str, "benchmark": str, "model_spec": str, "protocol": str, "data_dir": str,
                          "config": str, "status": str, "n_total": int, "n_done": int, "created": float,
                          "finished": float, "report": str, "error": str},
                 pk="id"),
    "run_items": dict(columns={"run_id": str, "item_id": str, "result": str, "created": float},
                      pk=("run_id", "item_id")),
    # one row per model call of a run (runners.batch): what was asked, what came back, how it went
    "run_calls": dict(columns={"run_id": str, "item_id": str, "t": float, "status": str, "error_kind": str,
                               "attempts": int, "latency_s": float, "prompt": str, "raw_reply": str,
                               "decision": str, "text": str, "compliant": int, "frame_times": str,
                               "audio_span": str, "endpoints": str, "created": float},
                      pk=("run_id", "item_id", "t")),
    "verdicts": dict(columns={"key": str, "judge": str, "prompt_version": str, "score": float, "raw": str,
                              "created": float},
                     pk="key"),
    "users": dict(columns={"name": str, "role": str, "password_hash": str, "created": float, "active": int},
                  pk="name"),
    "reviews": dict(columns={"id": str, "benchmark": str, "item_id": str, "user": str, "field": str,
                             "old_value": str, "new_value": str, "reason": str, "status": str, "created": float},
                    pk="id"),
    "verifications": dict(columns={"id": str, "benchmark": str, "item_id": str, "target_id": str, "user": str,
                                   "kind": str, "value": str, "created": float},
                          pk="id"),
    # sign-in sessions (cookie ids, hashed): an account's ("user") or a study link's ("link": its token hash)
    "auth_tokens": dict(columns={"token_hash": str, "user": str, "created": float, "expires": float,
                                 "revoked": int, "last_seen": float, "idle": float, "link": str},
                        pk="token_hash"),
    # failed sign-ins and link tokens per account or client (annotation.throttle): kept across restarts
    "auth_failures": dict(columns={"key": str, "failures": int, "last": float, "locked_until": float},
                          pk="key"),
    # annotation.studies: a study for outside participants and one capability link (token hash) each
    "studies": dict(columns={"id": str, "benchmark": str, "name": str, "created": float, "settings": str,
                             "status": str, "data_dir": str},
                    pk="id"),
    "study_links": dict(columns={"token_hash": str, "study_id": str, "participant": str, "session_id": str,
                                 "created": float, "revoked": int},
                        pk="token_hash"),
}

_INDEXES = [("responses", ["session_id", "item_id"]), ("responses", ["benchmark", "item_id"]),
            ("reviews", ["benchmark", "item_id"]), ("verifications", ["benchmark", "item_id", "user"]),
            ("run_items", ["run_id"]), ("study_links", ["study_id"]), ("study_links", ["session_id"]),
            ("auth_tokens", ["user"]),
            ("run_calls", ["run_id", "item_id"])]


def human_responder(participant: str) -> str:
    """A person's responder key: every response they give, in any session, is theirs."""
    return f"human:{participant}"


def model_responder(spec: str, source: str) -> str:
    """A model's responder key in one run or one live session: `model:<spec>@<run or session id>`."""
    return f"model:{spec}@{source}"


def responder_of(r: Response) -> str:
    """The responder key a stored response belongs to. Model rows of a live session written before the
    key carried its session (`model:<spec>`) get it appended, so two sittings of one model stay apart."""
    who = str(r.responder or "")
    if who.startswith("model:") and r.session_id and not who.endswith(f"@{r.session_id}"):
        return model_responder(who[len("model:"):], r.session_id)
    return who


def model_spec_of(r: Response) -> str:
    """The model spec of a model response (its responder key without `model:` and `@<session>`), else ""."""
    who = responder_of(r)
    if not who.startswith("model:"):
        return ""
    spec = who[len("model:"):]
    suffix = f"@{r.session_id}"
    return spec[:-len(suffix)] if r.session_id and spec.endswith(suffix) else spec


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def _dumps(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, sort_keys=True)


class _Pending:
    """A response row waiting for the group commit that will hold it."""
    __slots__ = ("row", "done", "error")

    def __init__(self, row: dict):
        self.row, self.done, self.error = row, False, None


class Store:
    """All durable state of the app. Thread-safe: one connection guarded by a lock, WAL for readers
    in other processes (a batch run in a subprocess, the CLI exporting while the app runs)."""

    def __init__(self, path: str | os.PathLike = DEFAULT_DB):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 30000")
        self.db = sqlite_utils.Database(conn)
        self._lock = threading.RLock()
        self._gc = threading.Condition(threading.Lock())  # group commit of responses (add_response)
        self._gc_queue: list[_Pending] = []
        self._gc_busy = False
        self._readers = threading.local()   # per-thread read connections: reads never wait for a commit
        self._reader_conns: list[sqlite3.Connection] = []
        self._reader_conns_lock = threading.Lock()  # not the write lock: a new thread's first read never waits for a commit
        for attempt in range(100):  # two processes opening a new store at once: switching to WAL and creating
            try:                    # the schema can report "locked" without waiting; retry for up to ~30 s
                self.db.enable_wal()
                conn.execute("PRAGMA synchronous = FULL")
                self._migrate()
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == 99:
                    raise
                time.sleep(min(0.5, 0.02 * (attempt + 1)))

    # -- schema -------------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self._lock:
            meta = self.db["meta"]
            if not meta.exists():  # if_not_exists: two processes may open a new store at once
                meta.create({"key": str, "value": str}, pk="key", if_not_exists=True)
            row = next(iter(meta.rows_where("key = ?", ["schema_version"])), None)
            version = int(row["value"]) if row else 0
            if version > SCHEMA_VERSION:
                raise RuntimeError(f"{self.path}: schema version {version} is newer than this program ({SCHEMA_VERSION});"
                                   " upgrade ibench-ui")
            for name, spec in _TABLES.items():
                table = self.db[name]
                if not table.exists():
                    table.create(spec["columns"], pk=spec["pk"], if_not_exists=True)
                else:  # upgrade in place: add any column a newer schema introduced
                    have = set(table.columns_dict)
                    for col, typ in spec["columns"].items():
                        if col not in have:
                            table.add_column(col, typ)
            for table, cols in _INDEXES:
                self.db[table].create_index(cols, if_not_exists=True)
            meta.upsert({"key": "schema_version", "value": str(SCHEMA_VERSION)}, pk="key")

    def schema_version(self) -> int:
        return int(self.db["meta"].get("schema_version")["value"])

    def close(self) -> None:
        with self._reader_conns_lock:
            for conn in self._reader_conns:
                conn.close()
        self.db.conn.close()

    def _reader(self) -> sqlite_utils.Database:
        """This thread's read connection. In WAL mode a reader sees every committed row and never waits
        for the writer, so the hot reads of a live session (get_session, responses) do not queue behind
        another caller's commit and fsync on the shared connection."""
        db = getattr(self._readers, "db", None)
        if db is None:
            conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30, isolation_level=None)
            conn.execute("PRAGMA busy_timeout = 30000")
            db = self._readers.db = sqlite_utils.Database(conn)
            with self._reader_conns_lock:
                self._reader_conns.append(conn)
        return db

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[dict]:
        """The rows of one read-only statement, as dicts, on this thread's reader: the hot reads of every
        request (who is calling, which session, which study link) never queue behind a commit's fsync."""
        cur = self._reader().conn.execute(sql, list(params))
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row)) for row in cur.fetchall()]

    # -- sessions -----------------------------------------------------------------------------
    def create_session(self, participant: str, benchmark: str, item_ids: Iterable[str], settings: dict | None = None,
                       data_dir: str = "", session_id: Optional[str] = None) -> Session:
        s = Session(id=session_id or new_id("s"), participant=participant, benchmark=benchmark,
                    item_ids=tuple(item_ids), created=time.time(), settings=dict(settings or {}))
        with self._lock:
            self.db["sessions"].insert({"id": s.id, "participant": s.participant, "benchmark": s.benchmark,
                                        "item_ids": _dumps(list(s.item_ids)), "created": s.created,
                                        "settings": _dumps(s.settings), "current_index": 0, "status": "open",
                                        "data_dir": data_dir})
        return s

    def get_session(self, session_id: str) -> Optional[Session]:
        rows = self.query("select * from sessions where id = ?", [session_id])
        return _session(rows[0]) if rows else None

    def session_data_dir(self, session_id: str) -> str:
        with self._lock:
            rows = list(self.db["sessions"].rows_where("id = ?", [session_id], select="data_dir"))
        return rows[0]["data_dir"] if rows else ""

    def sessions(self, participant: Optional[str] = None, benchmark: Optional[str] = None) -> list[Session]:
        where, args = [], []
        if participant:
            where.append("participant = ?"); args.append(participant)
        if benchmark:
            where.append("benchmark = ?"); args.append(benchmark)
        with self._lock:
            rows = list(self.db["sessions"].rows_where(" and ".join(where) or None, args, order_by="created"))
        return [_session(r) for r in rows]

    def set_session_progress(self, session_id: str, current_index: int, status: str = "open") -> None:
        with self._lock:
            self.db["sessions"].update(session_id, {"current_index": current_index, "status": status})

    def update_session_settings(self, session_id: str, **patch: Any) -> dict:
        """Merge `patch` into a session's settings (read and written under the lock); returns the result.
        A participant's progress through the study steps and their calibration live here."""
        with self._lock:
            rows = list(self.db["sessions"].rows_where("id = ?", [session_id], select="settings"))
            if not rows:
                raise KeyError(f"no session {session_id!r} in {self.path}")
            settings = {**json.loads(rows[0]["settings"] or "{}"), **patch}
            self.db["sessions"].update(session_id, {"settings": _dumps(settings)})
        return settings

    def item_opened(self, session_id: str, index: int) -> float:
        """When item `index` of the session was first shown (set now on its first call): the server's own
        start of that item's clock, so a page cannot claim more media time than has passed."""
        # the common case (every response) is a read: off the write lock, on this thread's reader
        row = self._reader().execute("select item_opened, item_opened_index from sessions where id = ?",
                                     [session_id]).fetchone()
        if row is not None and row[0] is not None and row[1] == index:
            return float(row[0])
        with self._lock:
            row = self.db.execute("select item_opened, item_opened_index from sessions where id = ?",
                                  [session_id]).fetchone()
            if row is None:
                raise KeyError(f"no session {session_id}")
            if row[0] is not None and row[1] == index:
                return float(row[0])
            now = time.time()
            self.db.execute("update sessions set item_opened = ?, item_opened_index = ? where id = ?",
                            [now, index, session_id])
            return now

    # -- responses (append-only) --------------------------------------------------------------
    def add_response(self, r: Response) -> Response:
        """Append one response and commit; returns it with its id, only once the commit holding it is done.

        Group commit: responses arriving while another commit is in progress are written together in
        the next transaction (one fsync for all), and each caller still returns only after that commit.
        Under load this turns one fsync per response into one per batch without weakening durability.
        A response whose id is already stored raises sqlite3.IntegrityError, as a plain insert would."""
        rid = r.id or new_id("r")
        row = asdict(r)
        row.update(id=rid, meta=_dumps(r.meta))
        slot = _Pending(row)
        with self._gc:
            self._gc_queue.append(slot)
            while not slot.done:
                if self._gc_busy:
                    self._gc.wait()
                    continue
                self._gc_busy = True   # this caller leads: it commits everything queued so far
                batch, self._gc_queue = self._gc_queue, []
                self._gc.release()
                try:
                    self._commit_responses(batch)
                finally:
                    self._gc.acquire()
                    self._gc_busy = False
                    self._gc.notify_all()
        if slot.error is not None:
            raise slot.error
        return Response(**{**asdict(r), "id": rid})

    def _commit_responses(self, batch: list["_Pending"]) -> None:
        """One transaction for a batch of response rows; every slot is marked done, with its error if any."""
        cols = list(batch[0].row)
        sql = (f"insert or ignore into responses ({', '.join(f'[{c}]' for c in cols)}) "
               f"values ({', '.join('?' for _ in cols)})")
        with self._lock:
            conn = self.db.conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                for p in batch:
                    before = conn.total_changes
                    conn.execute(sql, [p.row[c] for c in cols])
                    if conn.total_changes == before:  # the id is already stored (a retried response)
                        p.error = sqlite3.IntegrityError(f"UNIQUE constraint failed: responses.id ({p.row['id']})")
                conn.execute("COMMIT")
            except BaseException as exc:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                for p in batch:  # nothing of this batch is stored: every caller gets the error
                    p.error = exc
            finally:
                for p in batch:
                    p.done = True

    def responses(self, session_id: Optional[str] = None, item_id: Optional[str] = None,
                  benchmark: Optional[str] = None, responder: Optional[str] = None,
                  resolve_corrections: bool = True) -> list[Response]:
        """Responses in log order; corrections replace the text of what they supersede (never its time)."""
        where, args = [], []
        for col, val in (("session_id", session_id), ("item_id", item_id), ("benchmark", benchmark),
                         ("responder", responder)):
            if val is not None:
                where.append(f"{col} = ?"); args.append(val)
        # rowid is the log order: rows are only ever appended
        rows = list(self._reader()["responses"].rows_where(" and ".join(where) or None, args, order_by="rowid"))
        out = [_response(r) for r in rows]
        if not resolve_corrections:
            return out
        latest: dict[str, Response] = {}
        for r in out:
            if r.supersedes:
                latest[r.supersedes] = r
        return [Response(**{**asdict(r), "text": latest[r.id].text}) if r.id in latest else r
                for r in out if not r.supersedes]

    def count_responses(self, session_id: str, item_id: str) -> tuple[int, int]:
        """(rows of the session, rows of the session on `item_id`), corrections included: what bounds count."""
        row = self._reader().conn.execute("select count(*), coalesce(sum(item_id = ?), 0) from responses "
                                          "where session_id = ?", [item_id, session_id]).fetchone()
        return int(row[0]), int(row[1])

    def correct_response(self, response_id: str, text: str, user: str) -> Response:
        """Record a transcript correction as a new row; the original's time is kept."""
        with self._lock:
            rows = list(self.db["responses"].rows_where("id = ?", [response_id]))
        if not rows:
            raise KeyError(f"no response {response_id}")
        orig = _response(rows[0])
        return self.add_response(Response(id="", item_id=orig.item_id, benchmark=orig.benchmark,
                                          responder=orig.responder, session_id=orig.session_id, t=orig.t,
                                          kind=orig.kind, text=text, frame_t=orig.frame_t, wall_time=time.time(),
                                          page_id=orig.page_id, supersedes=orig.id, meta={"corrected_by": user}))

    # -- runs ---------------------------------------------------------------------------------
    def create_run(self, run: Run) -> Run:
        with self._lock:
            self.db["runs"].insert({**asdict(run), "config": _dumps(run.config),
                                    "report": _dumps(run.report) if run.report is not None else None,
                                    "error": run.error or None})  # NULL: no error, as update_run writes it
        return run

    def get_run(self, run_id: str) -> Optional[Run]:
        with self._lock:
            rows = list(self.db["runs"].rows_where("id = ?", [run_id]))
        return _run(rows[0]) if rows else None

    def runs(self, benchmark: Optional[str] = None) -> list[Run]:
        with self._lock:
            rows = list(self.db["runs"].rows_where("benchmark = ?" if benchmark else None,
                                                   [benchmark] if benchmark else [], order_by="created"))
        return [_run(r) for r in rows]

    def update_run(self, run_id: str, **fields) -> None:
        if "report" in fields and fields["report"] is not None:
            fields["report"] = _dumps(fields["report"])
        if "config" in fields:
            fields["config"] = _dumps(fields["config"])
        with self._lock:
            self.db["runs"].update(run_id, fields)

    def add_run_item(self, run_id: str, item_id: str, result: dict, replace: bool = False) -> bool:
        """Store one finished item of a run; a second write for the same item is ignored (resume) unless
        `replace` (a resumed run that re-drove an item's failed calls)."""
        with self._lock:
            cur = self.db.execute(f"insert or {'replace' if replace else 'ignore'} into run_items (run_id, item_id, result, created) values (?, ?, ?, ?)",
                                  [run_id, item_id, _dumps(result), time.time()])
            done = self.db.execute("select count(*) from run_items where run_id = ?", [run_id]).fetchone()[0]
            self.db["runs"].update(run_id, {"n_done": done})
            return cur.rowcount == 1

    def run_items(self, run_id: str) -> dict[str, dict]:
        with self._lock:
            rows = list(self.db["run_items"].rows_where("run_id = ?", [run_id], order_by="rowid"))
        return {r["item_id"]: json.loads(r["result"]) for r in rows}

    # -- per-call records of a run (status ok | error | skipped) ----------------------------------
    def add_run_call(self, run_id: str, item_id: str, t: float, *, status: str, error_kind: Optional[str] = None,
                     attempts: int = 0, latency_s: Optional[float] = None, prompt: str = "", raw_reply: str = "",
                     decision: Optional[str] = None, text: str = "", compliant: Optional[bool] = None,
                     frame_times: Iterable[float] = (), audio_span: Optional[tuple[float, float]] = None,
                     endpoints: Iterable = ()) -> None:
        """Record one model call (a later record for the same tick replaces it: a resumed run retrying an error)."""
        if status not in ("ok", "error", "skipped"):
            raise ValueError(f"run call status must be ok, error or skipped, got {status!r}")
        row = {"run_id": run_id, "item_id": item_id, "t": round(float(t), 6), "status": status,
               "error_kind": error_kind, "attempts": int(attempts), "latency_s": latency_s, "prompt": prompt or "",
               "raw_reply": raw_reply or "", "decision": decision, "text": text or "",
               "compliant": None if compliant is None else int(bool(compliant)),
               "frame_times": json.dumps([round(float(x), 6) for x in frame_times]),
               "audio_span": json.dumps(list(audio_span)) if audio_span is not None else None,
               "endpoints": json.dumps([list(a) for a in endpoints]) if endpoints else None,  # per attempt, pools
               "created": time.time()}
        with self._lock:
            self.db["run_calls"].insert(row, replace=True)

    def run_calls(self, run_id: str, item_id: Optional[str] = None) -> list[dict]:
        """A run's call records ordered by item then decision time; frame_times and audio_span decoded."""
        where, args = _where(run_id=run_id, item_id=item_id)
        with self._lock:
            rows = list(self.db["run_calls"].rows_where(where, args, order_by="item_id, t"))
        for r in rows:
            r["frame_times"] = json.loads(r["frame_times"] or "[]")
            r["audio_span"] = json.loads(r["audio_span"]) if r["audio_span"] else None
            r["endpoints"] = json.loads(r["endpoints"]) if r.get("endpoints") else []
        return rows

    # -- judge verdict cache (scoring.judges.cache.VerdictCache protocol) ---------------------
    def get(self, key: str) -> Optional[dict]:
        with self._lock:
            rows = list(self.db["verdicts"].rows_where("key = ?", [key]))
        return rows[0] if rows else None

    def put(self, key: str, judge: str, prompt_version: str, score: Optional[float], raw: str) -> None:
        with self._lock:
            self.db["verdicts"].upsert({"key": key, "judge": judge, "prompt_version": prompt_version,
                                        "score": score, "raw": raw, "created": time.time()}, pk="key")


    # -- users and sign-in tokens (annotation.auth hashes; the store only keeps the hashes) -----
    def add_user(self, name: str, role: str, password_hash: str) -> None:
        """Create an account; raises ValueError when the name is taken."""
        with self._lock:
            if list(self.db["users"].rows_where("name = ?", [name])):
                raise ValueError(f"user {name!r} already exists")
            self.db["users"].insert({"name": name, "role": role, "password_hash": password_hash,
                                     "created": time.time(), "active": 1})

    def get_user(self, name: str) -> Optional[dict]:
        rows = self.query("select * from users where name = ?", [name])
        return rows[0] if rows else None

    def users(self) -> list[dict]:
        return self.query("select * from users order by created")

    def has_users(self) -> bool:
        """Whether any account exists (asked on every call: with none, the loopback user is the admin)."""
        return bool(self.query("select 1 as one from users limit 1"))

    def update_user(self, name: str, **fields) -> None:
        """Change role, password_hash or active of an existing account."""
        with self._lock:
            if not list(self.db["users"].rows_where("name = ?", [name])):
                raise KeyError(f"no user {name!r}")
            self.db["users"].update(name, fields)

    def add_token(self, token_hash: str, user: str, expires: float, idle: Optional[float] = None,
                  link: Optional[str] = None) -> None:
        """Store a sign-in session by its hash: an account's (`user`) or a study link's (`link`, the link's hash)."""
        now = time.time()
        with self._lock:
            self.db["auth_tokens"].insert({"token_hash": token_hash, "user": user, "created": now,
                                           "expires": expires, "revoked": 0, "last_seen": now, "idle": idle,
                                           "link": link})

    def touch_token(self, token_hash: str, when: float) -> None:
        with self._lock:
            self.db.execute("update auth_tokens set last_seen = ? where token_hash = ?", [when, token_hash])

    def revoke_user_tokens(self, user: str) -> None:
        """End every sign-in session of an account (sign-out, password change)."""
        with self._lock:
            self.db.execute("update auth_tokens set revoked = 1 where user = ?", [user])

    # -- failure counters (annotation.throttle) -------------------------------------------------
    def failure(self, key: str) -> Optional[dict]:
        rows = self.query("select * from auth_failures where key = ?", [key])
        return rows[0] if rows else None

    def set_failure(self, key: str, failures: int, last: float, locked_until: float) -> None:
        with self._lock:
            self.db["auth_failures"].upsert({"key": key, "failures": failures, "last": last,
                                             "locked_until": locked_until}, pk="key")

    def clear_failure(self, key: str) -> None:
        with self._lock:
            self.db.execute("delete from auth_failures where key = ?", [key])

    def get_token(self, token_hash: str) -> Optional[dict]:
        rows = self.query("select * from auth_tokens where token_hash = ?", [token_hash])
        return rows[0] if rows else None

    def revoke_token(self, token_hash: str) -> None:
        with self._lock:
            self.db.execute("update auth_tokens set revoked = 1 where token_hash = ?", [token_hash])

    # -- review and verification records (append-only; later rows supersede) ---------------
    def add_review(self, r: Review) -> Review:
        rid = r.id or new_id("rv")
        with self._lock:
            self.db["reviews"].insert({**asdict(r), "id": rid, "old_value": _dumps(r.old_value),
                                       "new_value": _dumps(r.new_value)})
        return Review(**{**asdict(r), "id": rid})

    def reviews(self, benchmark: Optional[str] = None, item_id: Optional[str] = None,
                user: Optional[str] = None) -> list[Review]:
        """Review records in the order they were written."""
        where, args = _where(benchmark=benchmark, item_id=item_id, user=user)
        with self._lock:
            rows = list(self.db["reviews"].rows_where(where, args, order_by="rowid"))
        return [Review(id=r["id"], benchmark=r["benchmark"], item_id=r["item_id"], user=r["user"], field=r["field"],
                       old_value=json.loads(r["old_value"]), new_value=json.loads(r["new_value"]),
                       reason=r["reason"] or "", created=r["created"], status=r["status"]) for r in rows]

    def add_verification(self, v: Verification) -> Verification:
        vid = v.id or new_id("vf")
        with self._lock:
            self.db["verifications"].insert({**asdict(v), "id": vid, "value": _dumps(v.value)})
        return Verification(**{**asdict(v), "id": vid})

    def verifications(self, benchmark: Optional[str] = None, item_id: Optional[str] = None,
                      user: Optional[str] = None, kind: Optional[str] = None) -> list[Verification]:
        """Verification records in the order they were written."""
        where, args = _where(benchmark=benchmark, item_id=item_id, user=user, kind=kind)
        with self._lock:
            rows = list(self.db["verifications"].rows_where(where, args, order_by="rowid"))
        return [Verification(id=r["id"], benchmark=r["benchmark"], item_id=r["item_id"], target_id=r["target_id"],
                             user=r["user"], kind=r["kind"], value=json.loads(r["value"]), created=r["created"])
                for r in rows]


def _where(**filters) -> tuple[Optional[str], list]:
    cols = [(k, v) for k, v in filters.items() if v is not None]
    return (" and ".join(f"[{k}] = ?" for k, _ in cols) or None), [v for _, v in cols]


def _session(r: dict) -> Session:
    return Session(id=r["id"], participant=r["participant"], benchmark=r["benchmark"],
                   item_ids=tuple(json.loads(r["item_ids"])), created=r["created"],
                   settings=json.loads(r["settings"] or "{}"), current_index=r["current_index"] or 0,
                   status=r["status"] or "open")


def _response(r: dict) -> Response:
    return Response(id=r["id"], item_id=r["item_id"], benchmark=r["benchmark"], responder=r["responder"],
                    session_id=r["session_id"], t=r["t"], kind=r["kind"], text=r["text"] or "",
                    frame_t=r["frame_t"], audio_path=r["audio_path"], wall_time=r["wall_time"],
                    page_id=r["page_id"] or "", supersedes=r["supersedes"], meta=json.loads(r["meta"] or "{}"))


def _run(r: dict) -> Run:
    return Run(id=r["id"], benchmark=r["benchmark"], model_spec=r["model_spec"], protocol=r["protocol"],
               data_dir=r["data_dir"], config=json.loads(r["config"] or "{}"), status=r["status"],
               n_total=r["n_total"] or 0, n_done=r["n_done"] or 0, created=r["created"] or 0.0,
               finished=r["finished"], report=json.loads(r["report"]) if r["report"] else None,
               error=r.get("error") or "")
