"""InteractionBench's stored-verdict judges (reference `judges/cached.py`): replay of JSONL verdict
files `{"k", "s"}` (`cache:<glob>[,<glob>...]`) and a majority vote over several judges' files
(`ensemble:<slug>,...`). Keys are sha256(question NUL gt NUL pred)[:32] over the stripped texts."""
from __future__ import annotations

import glob
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Optional

from .base import JudgeUnavailable

DEFAULT_CACHE_DIR = os.path.join("results", "judge_cache")
DEFAULT_PROMPT = "v2"


class MissingVerdict(JudgeUnavailable):
    """A strict stored-verdict judge has no verdict for the (question, gt, pred) triple."""


def verdict_key(question: Optional[str], gt: str, pred: str) -> str:
    """The reference cache key: first 32 hex chars of sha256(question NUL gt NUL pred)."""
    return hashlib.sha256(f"{question or ''}\0{gt}\0{pred}".encode("utf-8")).hexdigest()[:32]


def trivial(gt: str, pred: str) -> Optional[float]:
    """Verdict without lookup on stripped texts: both empty -> 1.0, one empty -> 0.0, else None."""
    if not gt and not pred:
        return 1.0
    if not gt or not pred:
        return 0.0
    return None


def read_verdicts(paths: list[str], into: Optional[dict] = None) -> dict[str, Any]:
    """Load `{"k", "s"}` rows of the given files in order; later rows override earlier ones. Each `s` is kept as
    written (the reference reads it only when its pair is asked for: a null or text verdict stops it there,
    `verdict_number`)."""
    out = {} if into is None else into
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    out[str(row["k"])] = row["s"]
                except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                    raise ValueError(f"{path}:{n}: expected a verdict row {{\"k\": key, \"s\": score}} ({exc})") from None
    return out


def verdict_number(v: Any, judge: str, key: str) -> float:
    """A stored verdict as the reference's content score reads it, float(s) (true is 1.0, "1" is 1.0); one float()
    cannot read (null, a list) stops the reference, and is refused here."""
    try:
        return float(v)
    except (TypeError, ValueError):
        raise ValueError(f"judge {judge}: the stored verdict for key {key} is {json.dumps(v)}, not a number (the "
                         "reference scorer stops on it too)") from None


def _expand(pattern: str) -> list[str]:
    return sorted(glob.glob(os.path.expanduser(pattern))) or ([pattern] if os.path.isfile(pattern) else [])


class CachedVerdictJudge:
    """Replays stored verdicts. A missing pair scores 0.0 and counts in `n_missing` (reference);
    with strict=True it raises MissingVerdict (a JudgeUnavailable) so the scorer excludes it instead."""

    def __init__(self, verdicts: dict[str, float], name: str, prompt_version: str = DEFAULT_PROMPT,
                 strict: bool = False, files: tuple[str, ...] = ()):
        self.verdicts = verdicts
        self.name = name
        self.prompt_version = prompt_version
        self.strict = strict
        self.files = files
        self.n_missing = 0
        self.n_calls = 0

    @classmethod
    def from_globs(cls, globs: str, prompt_version: str = DEFAULT_PROMPT, strict: bool = False,
                   name: Optional[str] = None) -> "CachedVerdictJudge":
        """Load the union of files matching comma-separated globs (later files override earlier)."""
        files: list[str] = []
        for pat in (p.strip() for p in globs.split(",")):
            if pat:
                files.extend(_expand(pat))
        if not files:
            raise FileNotFoundError(f"judge cache:{globs}: no verdict file matches {globs!r}")
        return cls(read_verdicts(files), name or f"cache:{globs}", prompt_version, strict, tuple(files))

    def lookup(self, question: Optional[str], gt: Optional[str], pred: Optional[str]) -> Optional[float]:
        """The stored or trivial verdict, or None when the pair is not stored."""
        g, p = (gt or "").strip(), (pred or "").strip()
        t = trivial(g, p)
        if t is not None:
            return t
        key = verdict_key(question, g, p)
        v = self.verdicts.get(key)
        return None if v is None and key not in self.verdicts else verdict_number(v, self.name, key)

    def __call__(self, question: Optional[str], gt: Optional[str], pred: Optional[str]) -> float:
        self.n_calls += 1
        v = self.lookup(question, gt, pred)
        if v is None:
            if self.strict:
                raise MissingVerdict(f"judge {self.name}: no stored verdict for question {question!r}, "
                                     f"gt {gt!r}, pred {pred!r}")
            self.n_missing += 1
            return 0.0
        return v


class EnsembleJudge:
    """Majority vote of several judges' stored verdicts: 2*sum > n -> 1, < n -> 0, a tie -> the vote
    of the first judge (slug order) that has one; no votes -> 0.0. `n_missing` counts the calls where ANY
    member lacks a verdict (the reference's cache misses); `n_no_vote` those where every member does."""

    def __init__(self, members: list[CachedVerdictJudge], name: str, prompt_version: str = DEFAULT_PROMPT,
                 strict: bool = False):
        self.members = members
        self.name = name
        self.prompt_version = prompt_version
        self.strict = strict
        self.n_missing = 0
        self.n_no_vote = 0
        self.n_calls = 0

    @classmethod
    def from_slugs(cls, slugs: str, cache_dir: Optional[str | Path] = None, prompt_version: str = DEFAULT_PROMPT,
                   strict: bool = False, name: Optional[str] = None) -> "EnsembleJudge":
        """Read `<cache_dir>/<slug>_<prompt>*.jsonl` for each comma-separated slug."""
        root = str(cache_dir) if cache_dir is not None else DEFAULT_CACHE_DIR
        members = []
        for slug in (s.strip() for s in slugs.split(",")):
            if not slug:
                continue
            files = sorted(glob.glob(os.path.join(glob.escape(root), f"{glob.escape(slug)}_{prompt_version}*.jsonl")))
            if not files:
                raise FileNotFoundError(f"judge ensemble:{slugs}: no verdict file {root}/{slug}_{prompt_version}*.jsonl")
            members.append(CachedVerdictJudge(read_verdicts(files), slug, prompt_version, files=tuple(files)))
        if not members:
            raise ValueError(f"judge ensemble:{slugs}: expected ensemble:<slug>,<slug>,...")
        return cls(members, name or f"ensemble:{slugs}", prompt_version, strict)

    def __call__(self, question: Optional[str], gt: Optional[str], pred: Optional[str]) -> float:
        self.n_calls += 1
        g, p = (gt or "").strip(), (pred or "").strip()
        t = trivial(g, p)
        if t is not None:
            return t
        key = verdict_key(question, g, p)
        votes = [m.verdicts[key] for m in self.members if key in m.verdicts]
        if not votes:
            if self.strict:
                raise MissingVerdict(f"judge {self.name}: no member has a verdict for question {question!r}, "
                                     f"gt {gt!r}, pred {pred!r}")
            self.n_missing += 1
            self.n_no_vote += 1
            return 0.0
        if len(votes) < len(self.members):
            self.n_missing += 1
        try:  # the reference sums the stored values as written (true counts 1; text or null stops it)
            s2, n = sum(votes) * 2, len(votes)
        except TypeError:
            raise ValueError(f"judge {self.name}: the stored verdicts for key {key} are {json.dumps(votes)}, not "
                             "numbers the vote can add (the reference scorer stops on them too)") from None
        if s2 > n:
            return 1.0
        if s2 < n:
            return 0.0
        return verdict_number(votes[0], self.name, key)


def build_stored_judge(spec: str, cache_dir: Optional[str | Path] = None, prompt: str = DEFAULT_PROMPT,
                       strict: bool = False):
    """`cache:<glob>[,<glob>...]` -> CachedVerdictJudge, `ensemble:<slug>,...` -> EnsembleJudge; the
    judge's name is the spec string (it is what the report's config shows)."""
    kind, _, arg = (spec or "").partition(":")
    kind = kind.strip().lower()
    if kind == "cache" and arg.strip():
        return CachedVerdictJudge.from_globs(arg, prompt, strict, name=spec)
    if kind == "ensemble" and arg.strip():
        return EnsembleJudge.from_slugs(arg, cache_dir, prompt, strict, name=spec)
    raise ValueError(f"stored judge spec {spec!r}: expected cache:<glob>[,<glob>...] or ensemble:<slug>,...")
