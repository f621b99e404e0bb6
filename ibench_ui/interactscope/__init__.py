"""Omni-InteractScope in the studio: its hooks for the registry (annotation.registry)."""
