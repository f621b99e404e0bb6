"""ProactiveBench's runners code: its hooks (hooks.py) and what they import on first use."""
