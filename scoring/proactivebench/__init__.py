"""ProactiveBench scoring."""
