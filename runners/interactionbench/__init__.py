"""InteractionBench in the runners: its protocols and prompts, native prediction, scores and hooks."""
