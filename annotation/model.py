"""The data model shared by every benchmark: streams, items, targets, responses and the records
kept around them. Times are media seconds (float), exactly as the benchmarks use them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

@dataclass(frozen=True)
class Stream:
    """One media file as read from disk; fps, duration and offsets come from the file itself."""
    id: str
    video_path: Optional[str]
    audio_path: Optional[str] = None
    duration: Optional[float] = None
    fps: Optional[float] = None
    has_audio: Optional[bool] = None
    start_offset: float = 0.0
    width: Optional[int] = None
    height: Optional[int] = None


@dataclass(frozen=True)
class Target:
    """A time structure scored against: an anchor time, an optional window and a reference answer.

    `window_closed` says whether the window end is inclusive (the benchmarks differ)."""
    id: str
    kind: str
    anchor: Optional[float]
    window: Optional[tuple[float, Optional[float]]] = None
    window_closed: bool = True
    reference: Any = None
    label: str = ""


@dataclass(frozen=True)
class Request:
    """What the user asks: its text, when it is posed and how it reaches the responder."""
    text: str
    time: float = 0.0
    modality: str = "text"  # text shown at `time` | standing (from t=0) | audio (spoken in the stream)


@dataclass(frozen=True)
class Item:
    """One scored unit of a benchmark; `native` keeps the record verbatim for lossless export."""
    id: str
    benchmark: str
    kind: str
    stream: Stream
    request: Request
    targets: tuple[Target, ...]
    native: Any
    source_file: str = ""
    meta: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Response:
    """One logged response. Append-only: corrections are new rows that point at the old one."""
    id: str
    item_id: str
    benchmark: str
    responder: str  # "human:<user>" or "model:<run>"
    session_id: str
    t: float
    kind: str  # press | text | speech | tool_call
    text: str = ""
    frame_t: Optional[float] = None
    audio_path: Optional[str] = None
    wall_time: Optional[float] = None
    page_id: str = ""
    supersedes: Optional[str] = None
    meta: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Session:
    """A human or live-model sitting over a list of items."""
    id: str
    participant: str
    benchmark: str
    item_ids: tuple[str, ...]
    created: float
    settings: dict = field(default_factory=dict)
    current_index: int = 0
    status: str = "open"


@dataclass(frozen=True)
class Run:
    """A batch evaluation of one model on one benchmark."""
    id: str
    benchmark: str
    model_spec: str
    protocol: str
    data_dir: str
    config: dict
    status: str  # queued | running | done | failed | cancelled
    n_total: int = 0
    n_done: int = 0
    created: float = 0.0
    finished: Optional[float] = None
    report: Optional[dict] = None
    error: str = ""  # why a failed run failed, kept with it


@dataclass(frozen=True)
class Verdict:
    """A cached judge verdict keyed by judge, prompt version and a hash of the inputs."""
    key: str
    judge: str
    prompt_version: str
    score: Optional[float]
    raw: str = ""
    created: float = 0.0


@dataclass(frozen=True)
class Review:
    """One review change: who changed which field of which item, from what to what, and why."""
    id: str
    benchmark: str
    item_id: str
    user: str
    field: str
    old_value: Any
    new_value: Any
    reason: str
    created: float
    status: Optional[str] = None


@dataclass(frozen=True)
class Verification:
    """A blind trigger mark or a silence-prefix verdict by one annotator; later rows supersede."""
    id: str
    benchmark: str
    item_id: str
    target_id: str
    user: str
    kind: str  # trigger | prefix
    value: Any
    created: float
