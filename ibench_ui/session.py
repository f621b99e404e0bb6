"""Session tab: a participant watches a benchmark stream in real time and responds by button, key,
text or voice; every response is committed to the store, with the media time captured in the
browser, before the page shows it as logged.

The page (static/session.js) talks to `SessionService` through `gr.HTML` server functions, which
skip Gradio's queue (about half the latency of a queued event, see notes/ui_timing.md). The
service holds no per-user state: everything a page needs comes from the store, so a reload or a
server restart resumes where the participant left off.

A session may name a model (settings "model", "responders" human|model|both, "protocol"): the page
then reports its media clock (`clock`) and long-polls `wait_model`; `LiveModelHub` drives the model on
that clock and pushes its responses, drawn in their own lane and scored apart from the human's."""
from __future__ import annotations

import base64
import dataclasses
import math
import random
import re
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from annotation.dataset import Dataset
from annotation.model import Item, Response, Session
from ibench_ui.auth_routes import caller_id
from ibench_ui.context import AppContext
from ibench_ui.render import esc, figure_cells, fmt_time, media_url, table_html
from ibench_ui.static_route import script_tags
from ibench_ui.live_model import LiveModelError, LiveModelHub, LiveTarget, validate_protocol
from ibench_ui import study_flow
from ibench_ui.plain_words import THE_MODEL, YOU, counted
from annotation.calibration import CalibrationError, summarize as summarize_calibration
from annotation.studies import BOUNDS, get_study
from ibench_ui.timeline import HUMAN_LANE, is_model, lane_of, model_mark_html, row_html, timeline_html
from scoring.live import score_responses

RESPONSE_KINDS = ("press", "text")
MAX_TEXT = 2000
MAX_CLIP_S = 30.0
MAX_RATE = 48000            # Hz: a browser microphone; more only fills the disk
MAX_CLIPS = 300             # per session
MAX_AUDIO_BYTES = 200 * 2**20  # per session, WAV bytes on disk
CLOCK_SLACK_S = 2.0         # a page may be this far ahead of the wall time since the item opened
MAX_BEHIND_S = 5.0          # a response this far behind the page's last reported position is refused
LOCK_STRIPES = 1024         # per-session locks (by hash) so a session's count-then-store is one step
MAX_CHUNKS = 10000
DEFAULT_N = 5
WHO = ("human", "model", "both")
_RID = re.compile(r"^r_[0-9a-f]{12,32}$")
PLATFORM_ID = re.compile(r"[\w.@+-]{1,64}")  # a crowd platform's participant id (Prolific's is 24 hex digits)
MAX_QUERY = 4096  # characters of a study link's query string read for the platform id
ASR_HELP = ("Voice responses are off: no speech model. Start the app with --asr-model PATH "
            "(a local faster-whisper/CTranslate2 Whisper folder) or set $IBENCH_WHISPER_MODEL.")
# what a study participant's page gets instead of the operator's instruction above: voice is off, with no words
# (the page shows no microphone control at all)
ASR_OFF = {"status": "off", "message": "", "detail": ""}


class SessionInputError(ValueError):
    """A request the participant can fix (unknown item, empty text...); its message is shown as is."""


class ItemNotOver(SessionInputError):
    """finish_item before the item's clock has run to its end: `left` seconds to go."""

    def __init__(self, left: float):
        super().__init__(f"This video has {left:.1f} s still to play; it finishes at its end.")
        self.left = left


# -- item sets --------------------------------------------------------------------------------

def playable(item: Item) -> bool:
    return bool(item.stream.video_path) and Path(item.stream.video_path).is_file()


def item_sets(ds: Dataset) -> dict[str, list[str]]:
    """Named item sets of a dataset: "all", each `splits/<name>.txt` file, and "kind:<kind>"."""
    eligible = [it.id for it in ds.items if it.kind != "invalid" and playable(it)]
    sets = {"all": eligible}
    split_dir = Path(ds.root) / "splits"
    if split_dir.is_dir():
        ok = set(eligible)
        for f in sorted(split_dir.glob("*.txt")):
            ids = [ln.strip() for ln in f.read_text(encoding="utf-8").splitlines() if ln.strip()]
            sets[f.stem] = [i for i in ids if i in ok]  # the listed ids that exist and are valid
    for kind in sorted({it.kind for it in ds.items if it.id in set(eligible)}):
        sets[f"kind:{kind}"] = [it.id for it in ds.items if it.kind == kind and it.id in set(eligible)]
    return sets


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = value.replace("\n", ",").split(",")
    return [str(v).strip() for v in value if str(v).strip()]


def select_items(ds: Dataset, items: Any = None, n: Any = None, split: Optional[str] = None,
                 seed: Any = None) -> list[str]:
    """The item ids of a new session: an explicit list, N at random (from `split` or all), or a split."""
    ids = _as_list(items)
    if ids:
        unknown = [i for i in ids if i not in ds]
        if unknown:
            raise SessionInputError(f"Unknown item id(s) in {ds.benchmark}: {', '.join(unknown)}. "
                                    f"`python app.py list {ds.benchmark}` prints the valid ids.")
        silent = [i for i in ids if not playable(ds.get(i))]
        if silent:
            raise SessionInputError(f"No playable video for item(s) {', '.join(silent)} in {ds.root}.")
        return list(dict.fromkeys(ids))
    sets = item_sets(ds)
    name = (split or "all").strip() or "all"
    if name not in sets:
        raise SessionInputError(f"Unknown item set {name!r} for {ds.benchmark}; choose one of: {', '.join(sets)}.")
    pool = sets[name]
    if not pool:
        raise SessionInputError(f"{ds.benchmark} has no playable items in set {name!r} ({ds.root}).")
    if n in (None, ""):
        return list(pool)
    try:
        k = int(n)
    except (TypeError, ValueError):
        raise SessionInputError(f"n must be a whole number of items, got {n!r}.") from None
    if not 1 <= k <= len(pool):
        raise SessionInputError(f"n must be between 1 and {len(pool)} (items in set {name!r}), got {k}.")
    rng = random.Random(None if seed in (None, "") else str(seed))
    return rng.sample(pool, k)


# -- small validators -------------------------------------------------------------------------

def _float(req: dict, key: str, required: bool = True) -> Optional[float]:
    v = req.get(key)
    if v is None and not required:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise SessionInputError(f"{key} must be a number of seconds, got {v!r}.") from None
    if not math.isfinite(f) or f < 0:
        raise SessionInputError(f"{key} must be a finite time >= 0, got {v!r}.")
    return f


def _settings(req: dict, models=None) -> dict:
    """Session settings from the setup form; a live model is a NAME from the server's registry (`models`,
    ctx.models), stored as its spec (the responder label) — never a spec, module, path or URL from the page."""
    key = str(req.get("key") or "Space").strip()
    if not re.fullmatch(r"[A-Za-z0-9]{1,20}", key):
        raise SessionInputError(f"respond key must be a KeyboardEvent.code such as Space or KeyJ, got {key!r}.")
    pause = str(req.get("pause", "")).lower() in ("1", "true", "yes", "on")
    out = {"pause_allowed": pause, "respond_key": key}
    model = str(req.get("model") or "").strip()
    who = str(req.get("who") or "").strip().lower() or ("both" if model else "human")
    if who not in WHO:
        raise SessionInputError(f"Who responds must be one of {', '.join(WHO)}, got {who!r}.")
    if who == "human":
        if model:
            raise SessionInputError(f"Who responds is 'human' but model {model!r} is set: choose 'model' or "
                                    "'both', or clear the model.")
        return out
    if not model:
        raise SessionInputError(f"Who responds is {who!r}: choose a model such as baseline:motion.")
    from ibench_ui.models import ModelRegistry
    try:
        entry = (models or ModelRegistry.default()).resolve(model)
        out.update(model=entry.spec, model_name=entry.name, responders=who,
                   protocol=validate_protocol(req.get("protocol")))
    except ValueError as exc:
        raise SessionInputError(str(exc)) from None
    return out


def model_of(s: Session) -> str:
    """The session's live model spec ("" for a human-only session)."""
    return str((s.settings or {}).get("model") or "")


def reveals(s: Optional[Session]) -> bool:
    """Whether the session shows targets and scores once an item is closed: study sessions only when the
    study says so (off by default); sessions opened in the studio by staff always do."""
    return s is None or bool((s.settings or {}).get("show_results", True))


def humans_respond(s: Session) -> bool:
    return not model_of(s) or (s.settings or {}).get("responders") != "model"


def lanes(s: Session) -> list[str]:
    """Timeline lanes of a session: the human's (when humans respond) and the model's."""
    spec = model_of(s)
    if not spec:
        return []
    return ([HUMAN_LANE] if humans_respond(s) else []) + [f"model:{spec}"]


def media_at(sample: int, rate: int, start_media: float, chunk_ends: list) -> float:
    """Media time of audio sample `sample` of a clip, from the page's chunk map [[end_sample, media_t]...]
    (media time when the chunk ending at that sample arrived); linear within a chunk, flat while paused."""
    prev_s, prev_t = 0, start_media
    for end_s, end_t in chunk_ends:
        end_s, end_t = int(end_s), float(end_t)
        if end_s >= sample and end_s > prev_s:
            frac = (sample - prev_s) / (end_s - prev_s)
            return prev_t + max(0.0, min(1.0, frac)) * max(0.0, end_t - prev_t)
        prev_s, prev_t = end_s, end_t
    return prev_t + max(0, sample - prev_s) / rate


def clip_onset(samples: np.ndarray, rate: int) -> Optional[float]:
    """Speech onset (s) in a clip by frame energy, with a threshold 12 dB over the clip's own noise floor
    (bounded to -45..-25 dBFS) so a noisy microphone does not trigger at 0."""
    from runners.asr import energy_onset

    x = np.asarray(samples, dtype=np.float32)
    n = max(1, int(rate * 0.02))
    frames = len(x) // n
    if frames == 0:
        return None
    rms_db = 20 * np.log10(np.sqrt(np.mean(x[: frames * n].reshape(frames, n) ** 2, axis=1) + 1e-12))
    floor = float(np.percentile(rms_db, 10))
    return energy_onset(x, rate, threshold_db=max(-45.0, min(-25.0, floor + 12.0)))


def _scalars(req: dict, keys) -> dict:
    """The page's diagnostic fields kept with a response: plain short values only."""
    out = {}
    for k in keys:
        v = req.get(k)
        if isinstance(v, bool) or (isinstance(v, (int, float)) and math.isfinite(v)):
            out[k] = v
        elif isinstance(v, str):
            out[k] = v[:64]
    return out


def _page_id(req: dict) -> str:
    v = req.get("page_id")
    return v[:64] if isinstance(v, str) else ""


def _chunk_ends(value: Any) -> list[tuple[int, float]]:
    """The clip's chunk map [[end_sample, media_t], ...]: whole sample counts and finite times >= 0."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_CHUNKS:
        raise SessionInputError("chunk_ends must be a list of [end_sample, media_t] pairs.")
    out = []
    for pair in value:
        ok = isinstance(pair, (list, tuple)) and len(pair) == 2 and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0 for x in pair)
        if not ok:
            raise SessionInputError("chunk_ends must be a list of [end_sample, media_t] pairs of numbers >= 0.")
        out.append((int(pair[0]), float(pair[1])))
    return out


# -- the service ------------------------------------------------------------------------------

@dataclass
class AsrGate:
    """Loads the speech model once in the background and says whether voice responses are possible."""
    model: Optional[str]
    status: str = "idle"  # idle | loading | ready | error
    message: str = ""
    detail: str = ""  # the loader's own error, shown as the status tooltip
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def state(self) -> dict:
        with self._lock:
            if self.status == "idle":
                self.status, self.message = "loading", "Loading the speech model…"
                threading.Thread(target=self._load, daemon=True, name="asr-load").start()
            return {"status": self.status, "message": self.message, "detail": self.detail}

    def _load(self) -> None:
        try:
            from runners.asr import AsrUnavailable, load_model, resolve_model
            try:
                name = resolve_model(self.model)
                load_model(name)
                status, msg = "ready", f"Voice ready ({Path(name).name or name})."
                detail = ""
            except AsrUnavailable as exc:
                status, msg, detail = "error", ASR_HELP, str(exc)
        except Exception as exc:  # faster-whisper or ctranslate2 broken: say so instead of failing later
            status, msg, detail = "error", ASR_HELP, f"{type(exc).__name__}: {exc}"
        with self._lock:
            self.status, self.message, self.detail = status, msg, detail


def _guarded(fn):
    """A server function answers every request with a reply: a body that is not a JSON object, a field of
    the wrong type or any other refusal becomes {"ok": false, "error": ...}, never an HTTP 500."""
    import functools
    import logging

    @functools.wraps(fn)
    def wrapper(self, req=None, *args, **kw):
        if not isinstance(req, dict):
            return {"ok": False, "error": "The request must be a JSON object."}
        try:
            return fn(self, req, *args, **kw)
        except (SessionInputError, LiveModelError, KeyError, ValueError, TypeError, OverflowError) as exc:
            return self._fail(exc)
        except Exception:  # noqa: BLE001 - logged for the operator; the page gets a reply, not a 500
            logging.getLogger(__name__).exception("session function %s failed", fn.__name__)
            return {"ok": False, "error": "The server could not handle this request; nothing was logged."}
    return wrapper


class SessionService:
    """The Session tab's server side: each public method takes the page's JSON dict and returns one."""

    def __init__(self, ctx: AppContext, scorer: Optional[Callable[[Item, list], dict]] = None,
                 hub: Optional[LiveModelHub] = None, clock_slack: float = CLOCK_SLACK_S, links: bool = False):
        self.ctx = ctx
        self.clock_slack = clock_slack  # tests of other rules may lift the media clock bound (math.inf)
        self.links = links  # True: the participant app's service (study sessions only, reached by token)
        self.asr = AsrGate(ctx.asr_model)
        self._scorer = scorer
        self.hub = hub or LiveModelHub(ctx.store, options_for=ctx.models.options_for_spec)
        self._positions: dict[tuple[str, int], float] = {}  # (session, item index) -> last reported media time
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]

    # ---- helpers
    @property
    def audio_dir(self) -> Path:
        return Path(self.ctx.store.path).resolve().parent / "audio"

    def scorer(self) -> Callable[[Item, list], dict]:
        """The benchmark's own scorer on one item (scoring.live, the same code path as a batch run)."""
        return self._scorer or score_responses

    def _dataset(self, benchmark: str) -> Dataset:
        if benchmark not in self.ctx.benchmarks():
            raise SessionInputError(f"Benchmark {benchmark!r} is not loaded in this app; loaded: "
                                    f"{', '.join(self.ctx.benchmarks())}.")
        ds = self.ctx.dataset(benchmark)
        if not len(ds):
            why = "; ".join(str(p) for p in ds.errors[:3]) or "no items"
            raise SessionInputError(f"Benchmark {benchmark!r} has no items loaded from {ds.root} ({why}).")
        return ds

    def _session(self, session_id: Any) -> Session:
        s = self.ctx.store.get_session(session_id) if isinstance(session_id, str) and len(session_id) <= 64 else None
        if s is None:
            raise SessionInputError("No session with that id; open a new one.")
        if bool((s.settings or {}).get("study_id")) != self.links:
            # a study session is reached through its link only; the participant app reaches nothing else
            raise SessionInputError("No session with that id; open a new one." if self.links else
                                    "This session belongs to a study: it opens only through its participant's link.")
        return s

    def _item_of(self, s: Session, req: dict, open_only: bool = True) -> tuple[int, Item]:
        """The session item a request is for. Input is accepted for the open item only: once an item is
        finished (its targets may have been shown) nothing more is logged for it."""
        v = req.get("item_index")
        if isinstance(v, bool) or not isinstance(v, (int, str)) or not str(v).strip().lstrip("-").isdigit():
            raise SessionInputError("item_index is missing or not a whole number.")
        idx = int(v)
        if not 0 <= idx < len(s.item_ids) or idx > s.current_index or (open_only and idx != s.current_index):
            raise SessionInputError(f"Item {idx + 1} is not open for input in this session; nothing was logged.")
        iid = s.item_ids[idx]
        if req.get("item_id") not in (None, iid):
            raise SessionInputError(f"That item is not item {idx + 1} of this session; nothing was logged.")
        return idx, self._dataset(s.benchmark).get(iid)

    def _check_media_t(self, s: Session, idx: int, item: Item, t: float, what: str = "media_t",
                       behind: float = MAX_BEHIND_S) -> None:
        """A response time must be playable (`_check_played`) and no more than `behind` seconds behind the
        position the page last reported (`clock`): a page cannot answer at a time long past either."""
        self._check_played(s, idx, item, t, what)
        seen = self._positions.get((s.id, idx))
        if seen is not None and t < seen - behind:
            raise SessionInputError(f"{what} {t:.3f} s is far behind the playback position {seen:.3f} s the page "
                                    "reported; nothing was logged.")

    def _check_played(self, s: Session, idx: int, item: Item, t: float, what: str = "media_t") -> None:
        """A media time must lie in [0, duration] and no further ahead than the wall time since the item was
        opened (plus CLOCK_SLACK_S): a page cannot answer at a time it has not yet played."""
        dur = float(item.stream.duration or 0.0)
        if dur > 0 and t > dur:
            raise SessionInputError(f"{what} {t:.3f} s is past the end of the item ({dur:.3f} s); nothing was logged.")
        elapsed = time.time() - self.ctx.store.item_opened(s.id, idx)
        if t > elapsed + self.clock_slack:
            raise SessionInputError(f"{what} {t:.3f} s is ahead of the item's clock ({elapsed:.1f} s since it "
                                    "opened); nothing was logged.")

    @staticmethod
    def _rid(req: dict) -> str:
        rid = str(req.get("rid") or "")
        return rid if _RID.match(rid) else f"r_{uuid.uuid4().hex[:16]}"

    def _bounds(self, s: Session) -> dict:
        """The session's bounds (annotation.studies.BOUNDS), its study's where it has one."""
        flow = self._flow(s) if (s.settings or {}).get("study_id") else (s.settings or {})
        return {k: flow.get(k, v) for k, v in BOUNDS.items()}

    def _lock(self, s: Session) -> threading.Lock:
        return self._locks[hash(s.id) % LOCK_STRIPES]

    def _stored(self, s: Session, rid: str, item_id: str) -> Optional[Response]:
        """The response `rid` if this session already stored it on this item (a retry); SessionInputError if
        another session or item did."""
        rows = self.ctx.store.query("select session_id, item_id from responses where id = ?", [rid])
        if not rows:
            return None
        if (rows[0]["session_id"], rows[0]["item_id"]) != (s.id, item_id):
            raise SessionInputError("That response id is already used; nothing was logged.")
        return next((r for r in self.ctx.store.responses(session_id=s.id, item_id=rows[0]["item_id"])
                     if r.id == rid), None)

    def _add(self, s: Session, r: Response) -> tuple[Response, bool]:
        """Commit a response within the session's bounds; a retried id that is already stored counts as logged
        (no duplicate row); past a bound nothing is stored and the reply says which bound."""
        b = self._bounds(s)
        with self._lock(s):
            n_session, n_item = self.ctx.store.count_responses(s.id, r.item_id)
            if n_item >= b["max_responses_per_item"] or n_session >= b["max_responses_per_session"]:
                old = self._stored(s, r.id, r.item_id)
                if old is not None:
                    return old, True
                which = ("this item", b["max_responses_per_item"]) if n_item >= b["max_responses_per_item"] \
                    else ("this session", b["max_responses_per_session"])
                raise SessionInputError(f"{which[0].capitalize()} already has {which[1]} responses, the most it "
                                        "takes; nothing was logged.")
            try:
                return self.ctx.store.add_response(r), False
            except sqlite3.IntegrityError:
                old = self._stored(s, r.id, r.item_id)
                if old is not None:
                    return old, True
                raise

    def _ack_row(self, s: Session, idx: int, item: Item, r: Response) -> dict:
        """The acknowledged row as the live timeline draws it, for the page to insert: the cost of an
        acknowledgement stays the same however many rows the item already has (no re-read, no re-render).
        Without a known duration the track's span depends on every row, so the whole timeline is sent."""
        span = float(item.stream.duration or 0.0)
        if span <= 0:
            return self._live(s, item)
        return {"row": {"rid": r.id, "item_index": idx, "t": r.t, "lane": lane_of(r),
                        "mark_html": model_mark_html(r, span), "row_html": row_html(r)}}

    def _live(self, s: Session, item: Item) -> dict:
        rows = self.ctx.store.responses(session_id=s.id, item_id=item.id)
        return {"timeline_html": timeline_html(rows, item.stream.duration, elem_id="", lanes=lanes(s)),
                "n_rows": len(rows), "last_t": max((r.t for r in rows), default=0.0)}

    def _asr_for(self, s: Optional[Session]) -> dict:
        """The speech-model state as this page may see it: a study participant never gets operator advice."""
        st = self.asr.state()
        participant = self.links or (s is not None and study_flow.is_study(self._flow(s)))
        if participant and st["status"] != "ready":
            return dict(ASR_OFF, status="loading" if st["status"] == "loading" else "off")
        return st

    def _flow(self, s: Session) -> dict:
        """The session's settings with its study's (consent, completion code...) underneath."""
        sid = (s.settings or {}).get("study_id")
        study = get_study(self.ctx.store, sid) if sid else None
        return study_flow.flow_settings(s, study.settings if study else None)

    def _state(self, s: Session, notice: str = "") -> dict:
        flow = self._flow(s)
        study = study_flow.is_study(flow)
        view = {k: v for k, v in (s.settings or {}).items() if k not in ("calibration", "session_code")}
        if study:
            view["countdown"] = flow.get("countdown", 0)
        base = {"ok": True, "notice": notice, "asr": self._asr_for(s),
                "session": {"id": s.id, "participant": s.participant, "benchmark": s.benchmark,
                            "n_items": len(s.item_ids), "index": s.current_index, "settings": view,
                            "study": study, "max_text": self._bounds(s)["max_text"]}}
        if s.current_index >= len(s.item_ids):
            if study:
                if not study_flow.completion_code(flow):
                    s = self._with_settings(s, session_code=study_flow.new_session_code())
                    flow = self._flow(s)
                end = study_flow.end_html(s, flow, self._recap(s, flow))
                return {**base, "done": True, "end_html": end, "summary_html": end,
                        "completion_code": study_flow.completion_code(flow)}
            return {**base, "done": True, "summary_html": self._summary_html(s)}
        step = study_flow.pending_step(s, flow)
        if step:
            return {**base, "done": False, "step": step, **self._step_payload(s, flow, step)}
        item = self._dataset(s.benchmark).get(s.item_ids[s.current_index])
        if not playable(item):
            raise SessionInputError(f"No playable video for item {item.id} ({item.stream.video_path}).")
        self.ctx.store.item_opened(s.id, s.current_index)  # the item's clock starts when it is first shown
        live = self._live(s, item)
        req = item.request
        return {**base, "done": False, "resume_t": live.pop("last_t"), **live,
                "item": {"id": item.id, "index": s.current_index, "video_url": media_url(item.stream.video_path),
                         "duration": item.stream.duration, "kind": item.kind,
                         "request": {"text": req.text, "time": req.time, "modality": req.modality}}}

    @staticmethod
    def _fail(exc: Exception) -> dict:
        return {"ok": False, "error": str(exc)}

    # ---- study steps (consent, practice, calibration)
    def _with_settings(self, s: Session, **patch) -> Session:
        return dataclasses.replace(s, settings=self.ctx.store.update_session_settings(s.id, **patch))

    def _step_payload(self, s: Session, flow: dict, step: str) -> dict:
        if step == "consent":
            return {"consent_html": study_flow.consent_html(flow, len(s.item_ids))}
        if step == "practice":
            item = self._dataset(s.benchmark).get(flow["practice_item"])
            req = item.request
            return {"practice": {"id": item.id, "index": -1, "video_url": media_url(item.stream.video_path),
                                 "duration": item.stream.duration, "kind": item.kind,
                                 "request": {"text": req.text, "time": req.time, "modality": req.modality}}}
        return {"calibration": {"n_visual": 4, "n_audio": 4}}

    @_guarded
    def study_step(self, req: dict) -> dict:
        """The participant agreed to the consent text, or finished the practice item: record it, go on."""
        try:
            req = req if isinstance(req, dict) else {}
            s = self._session(req.get("session_id"))
            step = study_flow.pending_step(s, self._flow(s))
            what = req.get("step")
            if what not in ("consent", "practice") or what != step:
                raise SessionInputError(f"This session is not at the {what!r} step.")
            if what == "consent":
                if req.get("agree") is not True:
                    raise SessionInputError("Tick that you agree before continuing.")
                s = self._with_settings(s, consented_at=time.time())
            else:
                s = self._with_settings(s, practice_done_at=time.time())
            return self._state(s, notice=f"{what} done")
        except (SessionInputError, KeyError) as exc:
            return self._fail(exc)

    @_guarded
    def calibrate(self, req: dict) -> dict:
        """Store the participant's reaction-time calibration (median over valid cue trials) with the session."""
        try:
            req = req if isinstance(req, dict) else {}
            s = self._session(req.get("session_id"))
            if study_flow.pending_step(s, self._flow(s)) != "calibration":
                raise SessionInputError("This session is not at the reaction test.")
            cal = summarize_calibration(req.get("trials"))
            s = self._with_settings(s, calibration=cal)
            return {**self._state(s, notice="calibrated"), "calibration_median_s": cal["median_s"]}
        except CalibrationError as exc:
            return {"ok": False, "error": str(exc), "retry": True}
        except (SessionInputError, KeyError) as exc:
            return self._fail(exc)

    # ---- server functions
    @_guarded
    def open_session(self, req: dict, owner: Optional[Any] = None) -> dict:
        """Resume `session_id`, or create a session from participant, benchmark and an item set. A studio
        session records its `owner` (an annotation.auth.User); one opened by an annotator never shows targets
        or scores (show_results off), so blind verification holds."""
        req = req if isinstance(req, dict) else {}
        try:
            if req.get("session_id"):
                s = self._session(req["session_id"])
                self._dataset(s.benchmark)
                return self._state(self._record_platform_id(s, req.get("query")), notice="resumed")
            participant = str(req.get("participant") or "").strip()
            if not participant:
                raise SessionInputError("Enter a participant id.")
            if len(participant) > 64 or not re.fullmatch(r"[\w.@+-]+", participant):
                raise SessionInputError("A participant id is 1-64 letters, digits or . _ @ + - (no spaces).")
            benchmark = str(req.get("benchmark") or "").strip()
            ds = self._dataset(benchmark)
            ids = select_items(ds, req.get("items"), req.get("n"), req.get("split"), req.get("seed"))
            settings = _settings(req, self.ctx.models)
            if owner is not None:
                settings.update(owner=owner.name, show_results=owner.is_staff)
            s = self.ctx.store.create_session(participant, benchmark, ids, settings=settings,
                                              data_dir=str(Path(ds.root).resolve()))
            return self._state(s, notice="created")
        except (SessionInputError, KeyError) as exc:
            return self._fail(exc)

    def _record_platform_id(self, s: Session, query: Any) -> Session:
        """A study link opened from a crowd platform carries the participant's platform id in a URL parameter
        (the study's `participant_param`, e.g. PROLIFIC_PID): kept with the sitting the first time it comes."""
        flow = self._flow(s)
        name = flow.get("participant_param")
        if not study_flow.is_study(flow) or not name or flow.get("platform_id") or not isinstance(query, str):
            return s
        from urllib.parse import parse_qs
        got = parse_qs(query[:MAX_QUERY]).get(name) or [""]
        pid = got[0].strip()
        if not PLATFORM_ID.fullmatch(pid):
            return s  # absent, or not an id (a platform's ids are short letters and digits): nothing recorded
        return self._with_settings(s, platform_id=pid, platform_param=name)

    @_guarded
    def item_sets(self, req: dict) -> dict:
        try:
            ds = self._dataset(str((req or {}).get("benchmark") or ""))
            return {"ok": True, "sets": {k: len(v) for k, v in item_sets(ds).items()}}
        except (SessionInputError, KeyError) as exc:
            return self._fail(exc)

    @_guarded
    def respond(self, req: dict) -> dict:
        """Log a press or a typed response at the media time the page captured at the input event."""
        t_recv = time.time()
        try:
            s = self._session(req.get("session_id"))
            idx, item = self._item_of(s, req)
            if not humans_respond(s):
                raise SessionInputError("In this session only the model responds; nothing was logged.")
            kind = req.get("kind")
            if kind not in RESPONSE_KINDS:
                raise SessionInputError(f"kind must be one of {', '.join(RESPONSE_KINDS)}, got {kind!r}.")
            raw_text = req.get("text")
            if raw_text is not None and not isinstance(raw_text, str):
                raise SessionInputError("text must be a string.")
            text = (raw_text or "").strip() if kind == "text" else ""
            if kind == "text" and not text:
                raise SessionInputError("Type a response before sending; nothing was logged.")
            max_text = self._bounds(s)["max_text"]
            if len(text) > max_text:
                raise SessionInputError(f"A text response is at most {max_text} characters; nothing was logged.")
            t = _float(req, "media_t")
            self._check_media_t(s, idx, item, t)
            frame_t = _float(req, "frame_t", required=False)
            if frame_t is not None and frame_t > t + CLOCK_SLACK_S:
                raise SessionInputError("frame_t is ahead of media_t; nothing was logged.")
            meta = _scalars(req, ("source", "paused", "rate", "ready_state", "client_wall_ms",
                                  "input_ts_wall_ms", "typing_started_t"))
            meta.update(item_index=idx, server_recv=t_recv)
            r, dup = self._add(s, Response(id=self._rid(req), item_id=item.id, benchmark=s.benchmark,
                                        responder=f"human:{s.participant}", session_id=s.id, t=t, kind=kind,
                                        text=text, frame_t=frame_t, wall_time=t_recv,
                                        page_id=_page_id(req), meta=meta))
            return {"ok": True, "rid": r.id, "t": r.t, "kind": r.kind, "text": r.text, "duplicate": dup,
                    **self._ack_row(s, idx, item, r)}
        except (SessionInputError, KeyError) as exc:
            return self._fail(exc)

    @_guarded
    def speak(self, req: dict) -> dict:
        """Log a voice response: save the clip, find the speech onset, transcribe it (word times),
        and log it at the media time of the onset sample."""
        t_recv = time.time()
        try:
            s = self._session(req.get("session_id"))
            idx, item = self._item_of(s, req)
            rate = req.get("sample_rate")
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or rate != int(rate) \
                    or not 8000 <= rate <= MAX_RATE:
                raise SessionInputError(f"sample_rate must be a whole number of Hz from 8000 to {MAX_RATE}, "
                                        f"got {str(rate)[:40]!r}.")
            rate = int(rate)
            b64 = req.get("pcm_b64")
            if not isinstance(b64, str) or len(b64) > (rate * MAX_CLIP_S * 2) * 4 // 3 + 8:
                raise SessionInputError(f"The audio clip is missing or longer than {MAX_CLIP_S:.0f} s; nothing was logged.")
            try:
                pcm = np.frombuffer(base64.b64decode(b64, validate=True), dtype="<i2")
            except (ValueError, TypeError):
                raise SessionInputError("The audio clip is not valid base64 16-bit PCM.") from None
            if len(pcm) < rate * 0.1:
                raise SessionInputError("The recording is too short (under 0.1 s); nothing was logged.")
            if len(pcm) > rate * MAX_CLIP_S:
                raise SessionInputError(f"The recording is longer than {MAX_CLIP_S:.0f} s; nothing was logged.")
            start_media = _float(req, "start_media_t")
            self._check_played(s, idx, item, start_media, "start_media_t")  # its onset is checked below
            chunks = _chunk_ends(req.get("chunk_ends"))
            rid = self._rid(req)
            old = self._stored(s, rid, item.id)
            if old is not None:  # a retry of a stored clip: answered as logged, its file never touched
                return {"ok": True, "rid": old.id, "t": old.t, "kind": old.kind, "text": old.text, "duplicate": True,
                        **self._live(s, item)}
            self._audio_quota(s, len(pcm) * 2 + 44)
            samples = pcm.astype(np.float32) / 32768.0
            path = self.audio_dir / s.id / f"{rid}.wav"
            path.parent.mkdir(parents=True, exist_ok=True)
            import soundfile as sf
            try:
                with open(path, "xb") as fh:  # never over another clip's file (a rid is used once)
                    sf.write(fh, samples, rate, subtype="PCM_16", format="WAV")
            except FileExistsError:
                raise SessionInputError("That response id is already used; nothing was logged.") from None
            logged = False
            try:
                onset = clip_onset(samples, rate)
                asr_error, tr = None, None
                try:
                    from runners.asr import transcribe
                    tr = transcribe(str(path), self.ctx.asr_model)
                except Exception as exc:  # the clip and its time are kept; the transcript can be typed in later
                    asr_error = f"{type(exc).__name__}: {exc}"
                onset_asr = tr.words[0][1] if tr and tr.words else None
                if onset is None and onset_asr is None:
                    return {"ok": False, "error": "No speech heard in the recording; nothing was logged."}
                out = self._log_speech(s, idx, item, req, rid, path, rate, pcm, start_media, chunks, onset,
                                       onset_asr, tr, asr_error, t_recv)
                logged = True
                return out
            finally:
                if not logged:  # a clip that logs nothing is not kept
                    path.unlink(missing_ok=True)
        except (SessionInputError, KeyError) as exc:
            return self._fail(exc)

    def _log_speech(self, s, idx, item, req, rid, path, rate, pcm, start_media, chunks, onset, onset_asr, tr,
                    asr_error, t_recv) -> dict:
        """Log a kept clip at the media time of its speech onset (refused when that time is not playable yet)."""
        onset_s = onset if onset is not None else onset_asr
        t = media_at(int(round(onset_s * rate)), rate, start_media, chunks)
        # a clip is sent when it ends: its onset may lie its whole length behind the page's position
        self._check_media_t(s, idx, item, t, "the speech onset", behind=MAX_BEHIND_S + len(pcm) / rate)
        meta = {"source": str(req.get("source") or "ptt")[:32], "onset_s": onset_s, "onset_energy_s": onset,
                "onset_asr_s": onset_asr, "clip_start_media_t": start_media, "clip_s": len(pcm) / rate,
                "press_media_t": _scalars(req, ("press_media_t",)).get("press_media_t"), "item_index": idx,
                "server_recv": t_recv,
                "language": tr.language if tr else None,
                "words": [list(w) for w in tr.words] if tr else [], "asr_error": asr_error}
        r, dup = self._add(s, Response(id=rid, item_id=item.id, benchmark=s.benchmark,
                                    responder=f"human:{s.participant}", session_id=s.id, t=round(t, 4),
                                    kind="speech", text=tr.text if tr else "", frame_t=None,
                                    audio_path=str(path), wall_time=t_recv,
                                    page_id=_page_id(req), meta=meta))
        out = {"ok": True, "rid": r.id, "t": r.t, "kind": "speech", "text": r.text, "onset_s": onset_s,
               "duplicate": dup, **self._live(s, item)}
        if asr_error:
            out["warning"] = f"Logged at {fmt_time(r.t)} without a transcript ({asr_error}); correct it below."
        return out

    def _audio_quota(self, s: Session, nbytes: int) -> None:
        """Per-session bounds on stored clips: count and total bytes."""
        d = self.audio_dir / s.id
        have = [p.stat().st_size for p in d.glob("*.wav")] if d.is_dir() else []
        if len(have) >= MAX_CLIPS:
            raise SessionInputError(f"This session already has {MAX_CLIPS} voice clips; type your response instead.")
        if sum(have) + nbytes > MAX_AUDIO_BYTES:
            raise SessionInputError("This session's voice clips reached their size limit; type your response instead.")

    @_guarded
    def correct(self, req: dict) -> dict:
        """Replace a speech transcript; the response keeps its time (a new row supersedes the old text)."""
        try:
            s = self._session(req.get("session_id"))
            text = req.get("text")
            text = text.strip() if isinstance(text, str) else ""
            if not text:
                raise SessionInputError("A corrected transcript cannot be empty.")
            rid = req.get("rid") if isinstance(req.get("rid"), str) else ""
            open_id = s.item_ids[s.current_index] if s.current_index < len(s.item_ids) else None
            mine = [r for r in self.ctx.store.responses(session_id=s.id, item_id=open_id) if r.id == rid] \
                if open_id else []
            if not mine:
                raise SessionInputError("That response is not one of this session's responses to the open item; "
                                        "nothing was changed.")
            self.ctx.store.correct_response(rid, text[:self._bounds(s)["max_text"]], user=s.participant)
            item = self._dataset(s.benchmark).get(mine[0].item_id)
            return {"ok": True, **self._live(s, item)}
        except (SessionInputError, KeyError) as exc:
            return self._fail(exc)

    @_guarded
    def finish_item(self, req: dict) -> dict:
        """The stream ended: score the item with the benchmark's scorer, show responses vs targets, advance."""
        try:
            s = self._session(req.get("session_id"))
            idx, item = self._item_of(s, req, open_only=False)
            if idx == s.current_index:
                self._check_finish(s, idx, item)
                self._positions.pop((s.id, idx), None)
                nxt = idx + 1
                self.ctx.store.set_session_progress(s.id, nxt, "done" if nxt >= len(s.item_ids) else "open")
            if model_of(s):  # the model's last tick (at the stream's end) still counts; then it stops
                self.hub.finish(s.id, idx, grace=1.5)
            rows = self.ctx.store.responses(session_id=s.id, item_id=item.id)
            return {"ok": True, "result_html": self._result_html(item, rows, idx, len(s.item_ids), s),
                    "has_next": idx + 1 < len(s.item_ids)}
        except ItemNotOver as exc:
            return {"ok": False, "error": str(exc), "retry_in": round(exc.left, 3)}
        except (SessionInputError, KeyError) as exc:
            return self._fail(exc)

    def _check_finish(self, s: Session, idx: int, item: Item) -> None:
        """A study item is finished only once its clock (wall time since it opened) has run to its end, less the
        clock slack (CLOCK_SLACK_S), unless the study allows skipping; the refusal says when to ask again."""
        if not study_flow.is_study(self._flow(s)) or self._bounds(s)["allow_skip"]:
            return
        left = float(item.stream.duration or 0.0) - self.clock_slack - (time.time() - self.ctx.store.item_opened(s.id, idx))
        if left > 0:
            raise ItemNotOver(left)

    @_guarded
    def asr_status(self, req: dict) -> dict:
        sid = (req or {}).get("session_id") if isinstance(req, dict) else None
        s = self.ctx.store.get_session(sid) if isinstance(sid, str) and sid else None
        return {"ok": True, "asr": self._asr_for(s)}

    # ---- live model
    def clock(self, req: dict) -> dict:
        """A media clock report from the page (play/pause/seek/rate/ended/waiting and a 1 Hz heartbeat);
        with a model in the session it drives that page's live model worker for the item. The answer
        carries the server's wall clock, so a page (or a test) can relate emit times to its own."""
        return {**self._clock(req), "server_wall_ms": time.time() * 1000.0}

    @_guarded
    def _clock(self, req: dict) -> dict:
        try:
            req = req if isinstance(req, dict) else {}
            s = self._session(req.get("session_id"))
            spec = model_of(s)
            idx, item = self._item_of(s, req, open_only=False)
            if idx != s.current_index:  # a late report from an item that has already ended
                return {"ok": True, "model": spec or None, "state": "item closed"}
            media_t = _float(req, "media_t")
            try:  # the page's playback position (MAX_BEHIND_S), kept when it is one the item could have reached
                self._check_played(s, idx, item, media_t)
                self._positions[(s.id, idx)] = media_t
            except SessionInputError:
                if not spec:
                    raise
            if not spec:
                return {"ok": True, "model": None}
            paused = bool(req.get("paused"))
            if req.get("event") == "ended":  # the stream is over: every tick up to the item's end is due
                media_t, paused = max(media_t, float(item.stream.duration or 0.0)), True
            rate = req.get("rate")
            try:
                rate = float(rate) if rate is not None else 1.0
            except (TypeError, ValueError):
                rate = 1.0
            rate = rate if math.isfinite(rate) and 0.0 <= rate <= 64.0 else 1.0  # tests fast-forward at 20x
            wall = req.get("wall")
            wall = float(wall) if isinstance(wall, (int, float)) and math.isfinite(wall) else None
            from runners.protocols import DEFAULT_FOR_BENCHMARK
            target = LiveTarget(session_id=s.id, item_index=idx, item=item, spec=spec,
                                protocol=s.settings.get("protocol") or DEFAULT_FOR_BENCHMARK[s.benchmark],
                                benchmark=s.benchmark, span=float(item.stream.duration or 0.0))
            st = self.hub.report(str(req.get("page_id") or ""), target, media_t, paused, rate, wall)
            return {"ok": True, "model": spec, **st}
        except (SessionInputError, LiveModelError, KeyError) as exc:
            return self._fail(exc)

    async def wait_model(self, req: dict) -> dict:
        """Long-poll: the page's model events after `cursor`, as soon as there is one (or none after 20 s)."""
        req = req if isinstance(req, dict) else {}
        try:
            cursor = int(req.get("cursor") or 0)
            timeout = min(20.0, max(0.0, float(req.get("timeout") or 20.0)))
            res = await self.hub.wait(str(req.get("page_id") or ""), cursor, timeout)
            return {"ok": True, **res}
        except (LiveModelError, TypeError, ValueError, OverflowError) as exc:
            return self._fail(exc)

    @_guarded
    def model_check(self, req: dict) -> dict:
        """Before the stream starts: can the session's model be built and does its server answer?"""
        try:
            s = self._session((req if isinstance(req, dict) else {}).get("session_id"))
            spec = model_of(s)
            if not spec:
                return {"ok": True, "ready": True, "reason": ""}
            from ibench_ui.model_check import reach
            try:
                why = reach(self.hub.backend(spec))
            except Exception as exc:  # a model that cannot load: said before Start, not 11 s after it
                why = f"{type(exc).__name__}: {exc}"
            return {"ok": True, "ready": not why, "reason": why}
        except (SessionInputError, KeyError) as exc:
            return self._fail(exc)

    @_guarded
    def hear(self, req: dict) -> dict:
        """Duplex live: a piece of the participant's microphone (pcm16, <= 2 s) at media time `media_t`, mixed
        into what the session's realtime model hears on this page's open item. Nothing is stored (the person's
        responses are logged by `speak`); a page without a realtime worker on the item gets heard=False."""
        from ibench_ui.live_model import MIC_MAX_S
        try:
            req = req if isinstance(req, dict) else {}
            s = self._session(req.get("session_id"))
            if not model_of(s) or not humans_respond(s):
                return {"ok": True, "heard": False}
            idx, item = self._item_of(s, req)
            rate = req.get("sample_rate")
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or rate != int(rate) \
                    or not 8000 <= rate <= MAX_RATE:
                raise SessionInputError(f"sample_rate must be a whole number of Hz from 8000 to {MAX_RATE}.")
            rate = int(rate)
            b64 = req.get("pcm_b64")
            if not isinstance(b64, str) or len(b64) > int(rate * MIC_MAX_S * 2) * 4 // 3 + 8:
                raise SessionInputError(f"A microphone piece is at most {MIC_MAX_S:g} s of base64 16-bit PCM.")
            try:
                pcm = np.frombuffer(base64.b64decode(b64, validate=True), dtype="<i2")
            except (ValueError, TypeError):
                raise SessionInputError("The microphone piece is not valid base64 16-bit PCM.") from None
            media_t = _float(req, "media_t")
            self._check_media_t(s, idx, item, media_t, "media_t")
            heard = bool(len(pcm)) and self.hub.hear(str(req.get("page_id") or ""), (s.id, idx), media_t, rate,
                                                     pcm.astype(np.float32) / 32768.0)
            return {"ok": True, "heard": heard}
        except (SessionInputError, LiveModelError, KeyError) as exc:
            return self._fail(exc)

    @_guarded
    def model_stop(self, req: dict) -> dict:
        """The page is unloading: stop its model now rather than after the 3 s staleness rule."""
        return {"ok": True, "stopped": self.hub.stop(str((req or {}).get("page_id") or ""), "unload")}

    # ---- rendering
    def _score(self, item: Item, rows: list[Response]) -> tuple[Optional[dict], str]:
        try:
            return self.scorer()(item, rows), ""
        except Exception as exc:  # shown to the participant and the lead, never a silent zero
            return None, f"{type(exc).__name__}: {exc}"

    @staticmethod
    def _groups(s: Optional[Session], rows: list[Response]) -> list[tuple[str, str, list[Response]]]:
        """(label, score table id, rows) per responder scored apart: the human's and the model's."""
        if s is None or not model_of(s):
            return [("", "item-score", rows)]
        out = []
        if humans_respond(s):
            out.append((f"You ({s.participant})", "item-score", [r for r in rows if not is_model(r)]))
        spec = model_of(s)
        out.append((f"Model {spec}", "item-score-model", [r for r in rows if lane_of(r) == f"model:{spec}"]))
        return out

    def _result_html(self, item: Item, rows: list[Response], idx: int, n: int, s: Optional[Session] = None) -> str:
        if s is not None and study_flow.is_study(self._flow(s)):
            return self._study_result_html(item, rows, idx, n, s)
        if not reveals(s):  # a study shows targets and scores to its participants only if it says so
            tl = timeline_html(rows, item.stream.duration, elem_id="result-timeline",
                               lanes=lanes(s) if s is not None else ())
            return (f'<h3>Item {idx + 1} of {n} done.</h3><p class="ib-saved">Your responses are saved. '
                    f'Thank you!</p>{tl}')
        parts = []
        for label, elem_id, mine in self._groups(s, rows):
            res, err = self._score(item, mine)
            head = f'<h4 class="ib-score-who">{esc(label)}: {counted(len(mine), "response")}</h4>' if label else ""
            who = THE_MODEL if elem_id == "item-score-model" else YOU
            if err:
                parts.append(f'{head}<p class="ib-error" id="{elem_id}-error">Could not score this item: {esc(err)}</p>')
            else:
                parts.append(head + study_flow.plain_html(study_flow.plain_result(item, mine, _headline(res), who),
                                                          f"{elem_id}-plain")
                             + table_html(["measure", "value"],
                                               figure_cells(_headline(res)), elem_id))
        score = "".join(parts)
        if len(parts) > 1:
            score = f'<div class="ib-scores">{"".join(f"<div>{p}</div>" for p in parts)}</div>'
        tl = timeline_html(rows, item.stream.duration, item.targets, show_targets=True, elem_id="result-timeline",
                           lanes=lanes(s) if s is not None else ())
        return (f'<h3>Item {idx + 1} of {n} done: {esc(item.id)}</h3>'
                f'<p class="ib-request-recap">{esc(item.request.text)}</p>{score}{tl}')

    def _study_result_html(self, item: Item, rows: list[Response], idx: int, n: int, s: Session) -> str:
        """A participant's item result: plain words about their own responses, only if the study shows results."""
        head = f'<h3 id="item-done">Video {idx + 1} of {n} done.</h3>'
        if not study_flow.shows_results(self._flow(s)):
            return head + '<p id="item-saved">Your responses are saved.</p>'
        mine = [r for r in rows if not is_model(r)]
        res, err = self._score(item, mine)
        if err:  # the lead sees the reason in the log; the participant is not shown a stack of jargon
            return head + '<p id="item-saved">Your responses are saved; this result is worked out later.</p>'
        return head + study_flow.plain_html(study_flow.plain_result(item, mine, _headline(res)))

    def _recap(self, s: Session, flow: dict) -> list[str]:
        """One line per item for the end screen of a study that shows results."""
        if not study_flow.shows_results(flow):
            return []
        ds, out = self._dataset(s.benchmark), []
        for i, iid in enumerate(s.item_ids):
            mine = [r for r in self.ctx.store.responses(session_id=s.id, item_id=iid) if not is_model(r)]
            res, err = self._score(ds.get(iid), mine) if iid in ds else (None, "missing")
            words = " ".join(study_flow.plain_result(ds.get(iid), mine, _headline(res))) if not err and iid in ds \
                else "Saved; the result is worked out later."
            out.append(f"Video {i + 1}: {words}")
        return out

    def _summary_html(self, s: Session) -> str:
        if not reveals(s):
            code = ""
            sid = (s.settings or {}).get("study_id")
            if sid:
                from annotation.studies import get_study
                st = get_study(self.ctx.store, sid)
                code = (st.settings.get("completion_code") or "") if st else ""
            n = len(self.ctx.store.responses(session_id=s.id))
            code_html = (f'<p>Your completion code: <code id="completion-code">{esc(code)}</code></p>' if code else "")
            return (f"<h3>Session complete</h3><p>Thank you, {esc(s.participant)}. {n} response(s) saved.</p>"
                    + code_html)
        ds = self._dataset(s.benchmark)
        rows, split = [], bool(model_of(s))
        for iid in s.item_ids:
            resp = self.ctx.store.responses(session_id=s.id, item_id=iid)
            for label, _, mine in self._groups(s, resp):
                res, err = self._score(ds.get(iid), mine) if iid in ds else (None, "item not in the dataset")
                score = err or ", ".join(f"{k}={v}" for k, v in figure_cells(_headline(res)))
                rows.append((iid, label, len(mine), score) if split else (iid, len(mine), score))
        head = ["item", "responder", "responses", "score"] if split else ["item", "responses", "score"]
        return (f"<h3>Session {esc(s.id)} complete</h3><p>Thank you, {esc(s.participant)}.</p>"
                + table_html(head, rows, "session-summary"))


def _headline(res: Any) -> dict:
    """The few numbers shown to a participant from a scoring.live result."""
    if not isinstance(res, dict):
        return {}
    return dict(res.get("headline") or res.get("score") or {})


# -- Gradio wiring ----------------------------------------------------------------------------

# the player's script (static/): session.js first, then its parts; the element's js_on_load hands it the page
SESSION_JS = ("session.js", "session_transport.js", "session_input.js", "session_clock.js", "session_model.js",
              "session_flow.js")
SESSION_MOUNT = "ibenchSession.mount(element, server)"


def session_markup(ctx: AppContext, participant: bool = False) -> str:
    """The tab's HTML: the setup form and the player with its controls (all driven by session.js).
    On a study link (`participant`) the setup form stays hidden: the link's token says what to play."""
    from runners.protocols import PROTOCOLS
    opts = "".join(f'<option value="{esc(b)}">{esc(b)}</option>' for b in ctx.benchmarks())
    models = "".join(f'<option value="{esc(n)}"></option>' for n in ctx.models.names())
    protos = "".join(f'<option value="{esc(p)}">{esc(p)} ({esc(c.benchmark)})</option>'
                     for p, c in sorted(PROTOCOLS.items()))
    return f"""
<div class="ib-session" id="ib-session"{' data-participant="1"' if participant else ""}>
 <form id="session-setup" class="ib-setup" autocomplete="off"{" hidden" if participant else ""}>
  <label>Participant id <input id="session-participant" name="participant" maxlength="64" required></label>
  <label>Benchmark <select id="session-benchmark" name="benchmark">{opts}</select></label>
  <label>Items <select id="session-mode"><option value="random">N at random</option>
    <option value="split">a whole set</option><option value="ids">a list of ids</option></select></label>
  <label class="ib-m ib-m-random ib-m-split">Set <select id="session-split"><option value="all">all</option></select></label>
  <label class="ib-m ib-m-random">N <input id="session-n" type="number" min="1" value="{DEFAULT_N}"></label>
  <label class="ib-m ib-m-ids">Item ids <input id="session-ids" placeholder="id, id, …"></label>
  <label><input id="session-pause" type="checkbox"> allow pausing</label>
  <label>Respond key <input id="session-key" value="Space" readonly title="click, then press the key to use"></label>
  <label>Model <input id="session-model" placeholder="none (human only)" size="22" list="session-model-names"
    title="a model configured on the server (an admin action); it watches the same playback"></label>
  <datalist id="session-model-names">{"" if participant else models}</datalist>
  <label>Who responds <select id="session-who"><option value="human">human</option>
    <option value="model">model</option><option value="both">both, side by side</option></select></label>
  <label>Protocol <select id="session-protocol"><option value="">benchmark default</option>{protos}</select></label>
  <button type="button" id="session-create-btn" class="ib-primary">Open session</button>
  <span id="session-resume"></span>
 </form>
 <div id="session-message" role="alert" aria-live="assertive"></div>
 <div id="study-step" class="ib-step" hidden>
  <div id="study-consent" hidden>
   <div id="consent-text" class="ib-consent"></div>
   <label class="ib-agree"><input id="consent-agree" type="checkbox"> I have read this and agree to take part</label>
   <button type="button" id="consent-btn" class="ib-primary">I agree, continue</button>
  </div>
  <div id="calibration" hidden>
   <h3>Reaction test</h3>
   <p>A few times the box below flashes or you hear a beep. Press <b>Space</b> (or click the box) as soon as
      you notice it. This measures how quickly you react, so your answers can be timed fairly.</p>
   <div id="cal-cue" class="ib-cal-cue" tabindex="0">wait…</div>
   <div id="cal-progress" class="ib-status" aria-live="polite"></div>
   <button type="button" id="cal-start-btn" class="ib-primary">Begin the reaction test</button>
  </div>
 </div>
 <div id="study-done" hidden></div>
 <div id="session-player" hidden>
  <div id="session-header" class="ib-header"></div>
  <div class="ib-stage">
   <video id="stream-video" playsinline preload="auto" disablepictureinpicture
          controlslist="nodownload noplaybackrate noremoteplayback"></video>
   <div id="model-state" class="ib-model-state" hidden></div>
   <div id="model-caption" class="ib-caption" aria-live="polite" hidden></div>
   <div id="session-request" class="ib-request" aria-live="polite"></div>
   <div id="countdown" class="ib-countdown" hidden></div>
   <button type="button" id="start-btn" class="ib-start">Start</button>
   <div id="start-hint" class="ib-start-hint" role="status" hidden>Press Start to begin.</div>
  </div>
  <div class="ib-controls">
   <button type="button" id="respond-btn" class="ib-respond" disabled>Respond <small>(Space)</small></button>
   <div class="ib-textrow">
    <input id="response-text" placeholder="Type a response, Enter to send" maxlength="{MAX_TEXT}" disabled>
    <button type="button" id="send-btn" disabled>Send</button>
   </div>
   <div class="ib-microw">
    <button type="button" id="mic-btn" disabled title="hold to talk">Hold to talk</button>
    <label><input id="mic-handsfree" type="checkbox" disabled> hands-free (voice activity)</label>
    <button type="button" id="pause-btn" hidden>Pause</button>
   </div>
   <div id="mic-status" class="ib-mic-status"></div>
   <div id="session-status" class="ib-status" aria-live="polite"></div>
  </div>
  <div id="model-status" class="ib-model-status" hidden></div>
  <a id="present-link" class="ib-present-link" hidden title="the stream large with the transcript beside it, for an audience">Presenter view</a>
  <label id="tts-row" class="ib-tts" hidden><input id="tts-toggle" type="checkbox"> read the model's words aloud</label>
  <div id="session-timeline" class="ib-timeline-box"></div>
  <div id="item-result" class="ib-result" hidden></div>
  <button type="button" id="next-btn" class="ib-primary" hidden>Next item</button>
 </div>
</div>"""


# the page's server functions (static/session_transport.js calls them by these names) besides wait_model
SESSION_FUNCTIONS = ("open_session", "item_sets", "respond", "speak", "correct", "finish_item", "asr_status",
                     "clock", "model_stop", "study_step", "calibrate", "model_check", "hear")


def server_functions(names, call: Callable[[str, Any, Any], dict]) -> list:
    """gr.HTML server functions: one plain function per name (gr.HTML registers them by name) that hands
    (name, body, request) to `call`; the request (gr.Request, by annotation) carries the caller's cookie."""
    import gradio as gr

    def one(name: str):
        def fn(req, request):
            return call(name, req, request)
        fn.__name__ = fn.__qualname__ = name
        fn.__annotations__ = {"request": gr.Request}
        return fn
    return [one(n) for n in names]


def owns(ctx: AppContext, user: Any, session_id: Any) -> bool:
    """Whether `user` may use a studio session: its owner, or an admin (who sees every session). A session an
    annotator uses must also be blind (show_results off), whoever opened it."""
    if user.role == "admin":
        return True
    s = ctx.store.get_session(session_id) if isinstance(session_id, str) and len(session_id) <= 64 else None
    if s is None:
        return True  # the service answers "no session" itself
    st = s.settings or {}
    return st.get("owner") == user.name and (user.is_staff or st.get("show_results") is False)
NOT_SIGNED_IN = ("Sign in at the top of the page to use the Session tab; participants use their study link.")


def build_session(ctx: AppContext, service: Optional[SessionService] = None,
                  routes: Optional[dict] = None) -> SessionService:
    """Lay out the Session tab inside the current Blocks context; returns its service.

    In the studio every call is checked on the server against the role table (ibench_ui.role_table SESSION,
    and ROUTES for POST /api/respond): the local single user, or the signed-in account of the request's cookie;
    a session belongs to whoever opened it (admins reach all); opening one with a live model needs the
    table's "open_session with a model". Study sessions are not reachable here (their link's app serves them).
    `routes`, when given, receives the hot functions the host also serves as plain JSON routes (ibench_ui.host)."""
    import gradio as gr

    from ibench_ui.role_table import ROUTES, SESSION

    svc = service or SessionService(ctx)

    def gate(name: str, req: Any, request: Any, roles: Optional[tuple] = None) -> dict:
        """Call `name` for the request's caller if one of `roles` (default: the table's entry for `name`)."""
        if not isinstance(req, dict):
            return {"ok": False, "error": "The request must be a JSON object."}
        user = ctx.allowed(caller_id(request), SESSION[name] if roles is None else roles)
        if user is None:
            return {"ok": False, "error": NOT_SIGNED_IN}
        if name == "open_session" and not req.get("session_id"):
            if req.get("model") or req.get("who") not in (None, "", "human"):
                if user.role not in SESSION["open_session with a model"]:
                    return {"ok": False, "error": f"Only an admin may run a live model ({user.name} is {user.role})."}
            return svc.open_session(req, owner=user)
        if "session_id" in req and not owns(ctx, user, req.get("session_id")):
            return {"ok": False, "error": "No session with that id; open a new one."}
        return getattr(svc, name)(req)

    fns = server_functions(SESSION_FUNCTIONS, gate)
    if routes is not None:  # the same respond, as the host's plain JSON route, with that route's roles
        routes["respond"], = server_functions(["respond"],
                                              lambda n, req, r: gate(n, req, r, ROUTES["POST /api/respond"]))

    async def wait_model(req, request: gr.Request):  # async: a waiting page holds no server thread
        if not isinstance(req, dict):
            return {"ok": False, "error": "The request must be a JSON object."}
        if ctx.allowed(caller_id(request), SESSION["wait_model"]) is None:
            return {"ok": False, "error": NOT_SIGNED_IN}
        return await svc.wait_model(req)

    wait_model.__annotations__ = {"request": gr.Request}  # gradio is imported here: the hint must be the class
    gr.HTML(session_markup(ctx), elem_id="session-root", padding=False, head=script_tags(SESSION_JS),
            js_on_load=SESSION_MOUNT,
            server_functions=[*fns, wait_model])
    return svc
