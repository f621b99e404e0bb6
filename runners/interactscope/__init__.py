"""Omni-InteractScope in the runners: its protocol, native prediction, scores and hooks."""
