"""A deterministic plugin backend that takes a little wall time per decision, so a test can kill a run mid-way."""
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
