"""InteractionBench in the runners: its protocols and hooks."""
