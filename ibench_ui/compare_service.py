"""The Compare tab's server side, without Gradio: a benchmark's items and responders (each study participant,
studio session, model run or live model sitting, all or one study's; never the pooled humans), what to show first
or what a ?view=compare link asks for, who sat an item, one item's lanes, and their export as files. Every method
takes the caller's sign-in token first and checks on the server that they are a reviewer or admin (everyone's
responses are shown), then returns plain data for the tab to draw."""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from annotation import auth
from annotation.model import Item
from ibench_ui.context import AppContext
from runners.report import Lane, Responder, item_lanes, responders, timeline_figure, timeline_png, _safe

MAX_DEFAULT_LANES = 6


@dataclass(frozen=True)
class Selection:
    """A benchmark's (label, id) item choices and (label, key) responder choices, and what is chosen."""
    items: list[tuple[str, str]]
    responders: list[tuple[str, str]]
    item_id: Optional[str]
    keys: list[str]


@dataclass(frozen=True)
class View:
    """One item of a benchmark (None: none chosen, or not in it) and a lane per chosen responder."""
    benchmark: str
    item: Optional[Item]
    lanes: list[Lane]


class CompareService:
    """Plain methods behind the Compare tab; each checks the caller's role on the server first."""

    def __init__(self, ctx: AppContext):
        self.ctx = ctx

    def staff(self, tok: str) -> auth.User:
        """The caller, if a reviewer or admin (or the local single user); PermissionError otherwise."""
        return self.ctx.require(tok, auth.STAFF)

    def select(self, tok: str, benchmark: str, item_id: Optional[str] = None,
               keys: Optional[Sequence[str]] = None, study: str = "") -> Selection:
        """The choices and a selection to open with: `item_id` if the benchmark has it; with none given, the first
        item the valid `keys` cover, else one some human answered, else any covered item, else the first. The
        valid `keys`, else the responders covering that item (at most MAX_DEFAULT_LANES). With `study` (an id),
        the only human responders are that study's participants."""
        self.staff(tok)
        ds = self.ctx.dataset(benchmark)
        rs = self._responders(benchmark, study)
        chosen = _valid(keys, rs)
        if item_id is None or item_id not in ds:
            covered = {i for r in rs if r.key in chosen for i in r.item_ids} if item_id is None else set()
            human = {i for r in rs if r.kind == "human" for i in r.item_ids}
            anyone = {i for r in rs for i in r.item_ids}
            item_id = next((it.id for it in ds.items if it.id in covered), None) or \
                next((it.id for it in ds.items if it.id in human), None) or \
                next((it.id for it in ds.items if it.id in anyone), None) or (ds.items[0].id if ds.items else None)
        keys = chosen or [r.key for r in rs if item_id in r.item_ids][:MAX_DEFAULT_LANES]
        return Selection(self._item_choices(benchmark, rs), _responder_choices(rs), item_id, keys)

    def refresh(self, tok: str, benchmark: str, item_id: Optional[str], keys: Optional[Sequence[str]],
                study: str = "") -> Selection:
        """The choices anew (a run may have finished), keeping the item and the responders still valid."""
        self.staff(tok)
        rs = self._responders(benchmark, study)
        return Selection(self._item_choices(benchmark, rs), _responder_choices(rs), item_id, _valid(keys, rs))

    def sitters(self, tok: str, benchmark: str, item_id: Optional[str], study: str = "") -> list[str]:
        """Exactly the responders who sat `item_id` (every one, in the choices' order): what a newly chosen item
        ticks, so no earlier item's responders stay ticked."""
        self.staff(tok)
        return [r.key for r in self._responders(benchmark, study) if item_id in r.item_ids]

    def studies(self, tok: str, benchmark: str) -> list[tuple[str, str]]:
        """The study filter's (label, id) choices: every responder, or one study's participants (and models)."""
        self.staff(tok)
        from annotation.studies import list_studies
        return [("every responder", "")] + [(f"study {st.name or st.id} ({st.id})", st.id)
                                            for st in list_studies(self.ctx.store) if st.benchmark == benchmark]

    def view(self, tok: str, benchmark: str, item_id: Optional[str], keys: Optional[Sequence[str]]) -> View:
        """The item and one lane per responder in `keys`, each response labelled by the benchmark's rules."""
        self.staff(tok)
        ds = self.ctx.dataset(benchmark)
        if not item_id or item_id not in ds:
            return View(benchmark, None, [])
        return View(benchmark, ds.get(item_id), item_lanes(self.ctx.store, ds, item_id, list(keys or [])))

    def export(self, tok: str, benchmark: str, item_id: Optional[str], keys: Optional[Sequence[str]]) -> list[str]:
        """PNG and standalone HTML of the item's timeline, written to a fresh temp folder for download."""
        v = self.view(tok, benchmark, item_id, keys)
        if v.item is None:
            raise ValueError("Choose an item first.")
        stem = Path(tempfile.mkdtemp(prefix="ibench-timeline-")) / f"{benchmark}__{_safe(v.item.id)}"
        html = stem.with_suffix(".html")
        timeline_figure(v.item, v.lanes).write_html(str(html), include_plotlyjs=True)
        return [str(timeline_png(v.item, v.lanes, stem.with_suffix(".png"))), str(html)]

    # ---- unchecked helpers of the checked methods above
    def _responders(self, benchmark: str, study: str = "") -> list[Responder]:
        return responders(self.ctx.store, benchmark, self.ctx.dataset(benchmark), pooled=False, study=study or None)

    def _item_choices(self, benchmark: str, rs: list[Responder]) -> list[tuple[str, str]]:
        """Every item, those some responder covers marked with the number of responders."""
        cover: dict[str, int] = {}
        for r in rs:
            for i in r.item_ids:
                cover[i] = cover.get(i, 0) + 1
        return [(f"{it.id} · {it.kind}" + (f" · {cover[it.id]} responder(s)" if it.id in cover else ""), it.id)
                for it in self.ctx.dataset(benchmark).items]


def _responder_choices(rs: list[Responder]) -> list[tuple[str, str]]:
    return [(f"{r.label} ({len(r.item_ids)} items)", r.key) for r in rs]


def _valid(keys: Optional[Sequence[str]], rs: list[Responder]) -> list[str]:
    """The keys that name one of the benchmark's responders, in their order."""
    valid = {r.key for r in rs}
    return [k for k in (keys or []) if k in valid]
