"""Staff downloads (the Leaderboard's report zip, Compare's timeline files) as links that carry their file as a
`data:` URL inside the reply of the role-checked event that made it. Nothing is left for Gradio's file route to
serve, so an export cannot be fetched by URL by anyone, signed in or not, on either mount."""
from __future__ import annotations

import base64
import mimetypes
import shutil
from pathlib import Path
from typing import Optional, Sequence

from ibench_ui.render import esc


def download_html(files: Sequence[Path], label: str, remove: Optional[Path] = None) -> str:
    """One download link per file (its name and size), under `label`; then `remove` (the temporary folder the
    files were written to) is deleted, so no export stays on disk."""
    try:
        links = []
        for f in map(Path, files):
            body = f.read_bytes()
            mime = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
            href = f"data:{mime};base64,{base64.b64encode(body).decode('ascii')}"
            links.append(f'<li><a class="ib-download" download="{esc(f.name)}" href="{href}">{esc(f.name)}</a> '
                         f"<small>({len(body) / 1024:.0f} KB)</small></li>")
    finally:
        if remove is not None:
            shutil.rmtree(remove, ignore_errors=True)
    return f'<div class="ib-downloads"><p><strong>{esc(label)}</strong></p><ul>{"".join(links)}</ul></div>'
