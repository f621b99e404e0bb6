"""A plugin backend for tests: records every Decision it gets and answers from a script."""
from __future__ import annotations

import hashlib


def frame_digest(decision) -> tuple:
    return tuple((f.t, f.source_t, hashlib.sha1(f.image.tobytes()).hexdigest()[:12]) for f in decision.frames)


class Recorder:
    def __init__(self, replies=None, default="DECISION: WAIT\nRESPONSE:"):
        self.replies = dict(replies or {})
        self.default = default
        self.decisions = []

    def respond(self, decision):
        self.decisions.append(decision)
        return self.replies.get(round(decision.t, 3), self.default)


class Wrap:
    """Records what a real backend was given, then delegates."""

    def __init__(self, backend):
        self.backend = backend
        self.name = backend.name
        self.seen = []

    def respond(self, decision):
        self.seen.append((decision.t, frame_digest(decision)))
        return self.backend.respond(decision)
