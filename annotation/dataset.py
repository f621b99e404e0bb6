"""A loaded benchmark dataset: its items in order, the problems found while loading them."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from annotation.errors import DatasetError, Problem
from annotation.model import Item


@dataclass
class Dataset:
    """Items of one benchmark read from `root`, plus every problem the loader reported."""
    benchmark: str
    root: str
    items: list[Item] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    extra: dict = field(default_factory=dict)  # layout-level records kept for export (maps, metadata)

    def __post_init__(self):
        self._by_id = {it.id: it for it in self.items}

    def add(self, item: Item) -> None:
        self.items.append(item)
        self._by_id[item.id] = item

    def get(self, item_id: str) -> Item:
        try:
            return self._by_id[item_id]
        except KeyError:
            raise KeyError(f"{self.benchmark}: no item '{item_id}' in {self.root}") from None

    def __contains__(self, item_id: str) -> bool:
        return item_id in self._by_id

    def __len__(self) -> int:
        return len(self.items)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    def kind_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(it.kind for it in self.items).items()))

    def raise_if_errors(self) -> "Dataset":
        if self.errors:
            raise DatasetError(self.problems)
        return self
