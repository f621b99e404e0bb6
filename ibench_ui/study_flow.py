"""The participant's way through a study session: consent and instructions, one practice item, a
reaction-time calibration, then the items and an end screen with a completion code. Which steps a
session has and which are done lives in its settings (set by `study create`), so a reload resumes.

Also the participant-facing wording: item results in plain words, never raw metric keys."""
from __future__ import annotations

import re
import secrets
from typing import Any, Optional

from annotation import registry
from annotation.model import Item, Response, Session
from ibench_ui.plain_words import YOU, counted
from ibench_ui.render import esc

STEPS = ("consent", "practice", "calibration")


def key_name(code: str) -> str:
    """A KeyboardEvent.code as a participant reads it: "Space", "KeyJ" -> "J", "Digit5" -> "5"."""
    return re.sub(r"^(Key|Digit)", "", code or "Space")


def instructions(st: dict, n_items: int) -> str:
    """The built-in instructions (Markdown), written from this study's own steps: its number of videos, its
    respond key, and a practice video, a reaction test and a countdown only when the study has them."""
    key = key_name(str(st.get("respond_key") or "Space"))
    first = [x for x, on in (("one **practice** video (nothing is recorded)", st.get("practice_item")),
                             ("a short **reaction test**", st.get("calibrate"))) if on]
    start = ("Each video starts with a 3-2-1 countdown after you press **Start**." if st.get("countdown")
             else "Each video starts when you press **Start**.")
    lines = [f"- First comes {', then '.join(first)}."] if first else []
    lines += [f"- {start}", f"- Press **Respond** (or the **{key}** key) at the moment you would answer or act.",
              f"- Where an answer is asked for, type it in the box and press **Enter**; {key} still responds "
              "after that."]
    each = "It asks" if n_items == 1 else "Each one asks"
    return ("## Instructions\n\n"
            f"You will watch {counted(n_items, 'short video')}. {each} you something, in writing on the "
            "video or spoken in it.\n\n" + "\n".join(lines) + "\n\n"
            "Your responses are recorded with the time in the video at which you gave them, and nothing else "
            "about you.\nPress **I agree, continue** to take part. You can stop at any time by closing this page.")


def flow_settings(s: Session, study_settings: Optional[dict] = None) -> dict:
    """What the flow reads: the study's settings (annotation.studies: consent, completion_code,
    practice_item, show_results; and from `study create`: instructions, calibrate, countdown) overlaid by
    the session's own (progress, calibration). Each step is on only when the study asks for it."""
    return {**(study_settings or {}), **(s.settings or {})}


def is_study(st: dict) -> bool:
    return bool(st.get("study_id"))


def pending_step(s: Session, st: dict) -> Optional[str]:
    """The study step this participant has still to do before the items (None: go to the items)."""
    if not is_study(st) or s.current_index > 0:
        return None
    if (st.get("consent") or st.get("instructions")) and not st.get("consented_at"):
        return "consent"
    if st.get("practice_item") and not st.get("practice_done_at"):
        return "practice"
    if st.get("calibrate") and not st.get("calibration"):
        return "calibration"
    return None


def consent_html(st: dict, n_items: int) -> str:
    """The study's consent Markdown (else the built-in instructions for its steps) as HTML; raw HTML in it is
    shown as text, not run."""
    from markdown_it import MarkdownIt  # a maintained CommonMark renderer (a Gradio dependency); html off

    return MarkdownIt("commonmark", {"html": False}).render(st.get("consent") or instructions(st, n_items))


def completion_code(st: dict) -> str:
    """The study's configured code, else one drawn for this session (kept once drawn)."""
    return str(st.get("completion_code") or st.get("session_code") or "")


def new_session_code() -> str:
    return "IB-" + secrets.token_hex(4).upper()


def shows_results(st: dict) -> bool:
    """Studies show item results only when created with --show-results; studio sessions always do."""
    return bool(st.get("show_results")) if is_study(st) else True


# -- plain words -------------------------------------------------------------------------------

def plain_result(item: Item, rows: list[Response], headline: dict, who: str = YOU) -> list[str]:
    """Sentences for one item's result about `who` ("You", or "The model" on a model's lane), from the scorer's
    headline (its numbers, reworded by the benchmark's studio hook)."""
    n = len(rows)
    said = [r for r in rows if r.kind in ("text", "speech") and r.text]
    out = [f"{who} responded {counted(n, 'time')}." if n else f"{who} did not respond on this item."]
    return out + registry.get(item.benchmark).hook("ibench_ui", "plain_result")(headline or {}, said, who)


def plain_html(lines: list[str], elem_id: str = "item-plain") -> str:
    return f'<ul class="ib-plain" id="{esc(elem_id)}">' + "".join(f"<li>{esc(x)}</li>" for x in lines) + "</ul>"


def end_html(s: Session, st: dict, summary_lines: list[str]) -> str:
    """The study's end screen: thanks, the completion code, and (if the study shows results) a recap."""
    code, n, url = completion_code(st), len(s.item_ids), str(st.get("completion_url") or "")
    recap = plain_html(summary_lines, "study-recap") if summary_lines else ""
    done = "the video" if n == 1 else f"all {n} videos"
    back = (f'<p><a id="completion-link" class="ib-primary" href="{esc(url)}" rel="noreferrer">Return to the study '
            f'platform</a></p><p>If that link does not open, copy the code above into the study platform.</p>'
            if url else '<p>Copy it into the study platform if it asks for one. You can close this page now.</p>')
    return (f'<div class="ib-end" id="study-end"><h2>Thank you!</h2><p>You have finished {done}. '
            f'Your completion code is:</p><p class="ib-code"><code id="completion-code">{esc(code)}</code></p>'
            f'{back}{recap}</div>')
