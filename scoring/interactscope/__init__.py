"""Omni-InteractScope scoring."""
