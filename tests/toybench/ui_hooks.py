"""Toy benchmark, studio layer: the participant's result in plain words."""
from __future__ import annotations


def plain_result(headline: dict, said: list) -> list[str]:
    return ["You pressed in the window." if headline.get("correct") else "Your press missed the window."]
