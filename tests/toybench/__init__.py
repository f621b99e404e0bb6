"""A toy fifth benchmark defined only here (registered by the test that uses it, never shipped): one press per
item, correct when the first press after the question lands in the target's window. Its hook modules stand
where a real benchmark's folders would (annotation/, scoring/, runners/, ibench_ui/ each with <name>/hooks.py)."""
