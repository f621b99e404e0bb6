"""Toy benchmark, studio layer: the participant's result in plain words."""
from __future__ import annotations


def plain_result(headline: dict, said: list, who: str) -> list[str]:
    whose = "Your" if who == "You" else f"{who}'s"
    return [f"{who} pressed in the window." if headline.get("correct") else f"{whose} press missed the window."]
