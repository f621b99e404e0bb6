"""The security headers every response carries (ibench_ui.http_policy adds them), and the page's
Content-Security-Policy, which allows by hash exactly the inline scripts the served page holds.

Gradio's page template carries five inline scripts (its config, its API description, its mode, its helper-script
loader, a padding fix); their text changes with the app, so their hashes are taken from each page as it is sent.
No other inline script runs, and no event-handler attribute. Two allowances are Gradio's: `'unsafe-eval'`
(it runs each gr.HTML's `js_on_load` and each event's `js` through `Function`) and inline styles (its
components set style attributes). Everything else comes from this origin: no CDN, no font service."""
from __future__ import annotations

import base64
import hashlib
import re

_INLINE_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script\s*>", re.S | re.I)
_SRC = re.compile(rb"\ssrc\s*=", re.I)

PAGE_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-eval'{hashes}; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data: blob:; media-src 'self' blob: data:; font-src 'self' data:; connect-src 'self'; "
               "worker-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'; "
               "frame-ancestors 'none'")
# any other response (JSON, media, files, refusals): nothing in it may run or be framed
OTHER_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

COMMON = ((b"x-frame-options", b"DENY"), (b"x-content-type-options", b"nosniff"),
          # same-origin: our own POSTs keep their Origin header (no-referrer would make it "null"), and a study
          # link's token never leaves in a Referer
          (b"referrer-policy", b"same-origin"), (b"cross-origin-opener-policy", b"same-origin"))
NAMES = frozenset(n for n, _ in COMMON) | {b"content-security-policy"}


def script_hashes(html: bytes) -> list[str]:
    """The CSP source of each inline script in a page, in order (scripts with `src` are not inline)."""
    return [f"'sha256-{base64.b64encode(hashlib.sha256(body).digest()).decode()}'"
            for attrs, body in _INLINE_SCRIPT.findall(html) if not _SRC.search(attrs)]


def page_policy(html: bytes) -> bytes:
    hashes = script_hashes(html)
    return PAGE_POLICY.format(hashes="".join(" " + h for h in hashes)).encode()


def with_headers(headers: list, policy: bytes) -> list:
    """`headers` with ours in place of any the app set under the same names."""
    return [(n, v) for n, v in headers if n.lower() not in NAMES] + [*COMMON, (b"content-security-policy", policy)]
