"""InteractionBench scoring: the reference scorer (scorer), its timing, content and aggregation rules."""
