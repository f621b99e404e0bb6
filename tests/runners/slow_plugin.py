"""A deterministic plugin backend that takes a little wall time per decision, so a test can kill a run mid-way."""
import os
import signal
import time


class SlowMotionlessTalker:
    """Speaks at every third decision, sleeping `delay` seconds per decision."""

    def __init__(self, delay: float = 0.02):
        self.delay = float(delay)
        self.name = "plugin:slow"

    def respond(self, decision):
        time.sleep(self.delay)
        if int(round(decision.t * 2)) % 3 == 0:
            return f"DECISION: SPEAK\nRESPONSE: at {decision.t:.1f} the red ball 2"
        return "DECISION: WAIT\nRESPONSE:"


class DiesOnce(SlowMotionlessTalker):
    """As SlowMotionlessTalker, but the process answering the first call of `item` ends (SIGKILL) unless `marker`
    exists, creating it first: a cluster worker that dies mid-item exactly once, whatever worker runs it."""

    def __init__(self, marker: str, item: str, delay: float = 0.02):
        super().__init__(delay)
        self.marker, self.item = marker, item
        self.name = "plugin:dies-once"

    def respond(self, decision):
        if decision.item_id == self.item and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().respond(decision)
