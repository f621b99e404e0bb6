"""Browser test setup: a real app server in a subprocess and Debian's Chromium through Playwright."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from benchmarks.live_latency import stop_process

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--autoplay-policy=no-user-gesture-required"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class AppServer:
    """`python app.py` on a free port with its own SQLite file; restartable on the same file."""

    def __init__(self, db: Path, extra_args: list[str] | None = None, script: str = "app.py"):
        self.db = db
        self.extra = extra_args or []
        self.script = script  # a test may start the app through a wrapper that changes one thing in it
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.log = db.with_suffix(".log")

    def start(self, timeout: float = 90) -> "AppServer":
        # no speech model unless a test passes --asr-model: the machine may have the real Whisper weights
        # installed (requirements-asr.txt), and the pages' operator/no-voice paths must not depend on that
        env = dict(os.environ, HF_HUB_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False", PYTHONUNBUFFERED="1",
                   IBENCH_WHISPER_MODEL=str(self.db.parent / "no-speech-model"))
        self.proc = subprocess.Popen([sys.executable, self.script, "--db", str(self.db), "--port", str(self.port),
                                      *self.extra], cwd=REPO, env=env, stdout=open(self.log, "ab"),
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"app exited early:\n{self.log.read_text()[-3000:]}")
            try:
                urllib.request.urlopen(self.url + "/", timeout=2)
                return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"app did not start in {timeout}s:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc:
            stop_process(self.proc)


# how long a Playwright step waits for the state it needs (an element, a click's target): generous, because the
# suite must pass on a fully loaded 2-core machine; a step that never gets its state still fails, only later
STEP_TIMEOUT_MS = 90_000


def _expect_waits_as_long() -> None:
    """Playwright's `expect` assertions wait 5 s by default, apart from the context's timeout: the same here."""
    from playwright.sync_api import expect
    expect.set_options(timeout=STEP_TIMEOUT_MS)


_expect_waits_as_long()


def new_context(browser, **kwargs):
    """A browser context for one test, its steps waiting up to STEP_TIMEOUT_MS (Playwright's default is 30 s)."""
    ctx = browser.new_context(**kwargs)
    ctx.set_default_timeout(STEP_TIMEOUT_MS)
    return ctx


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    srv = AppServer(tmp_path_factory.mktemp("app") / "ibench.sqlite").start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser():
    """Per module, so Playwright's event loop does not outlive the browser tests into others."""
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is not installed (scripts/test.sh installs it)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, request):
    """A fresh page; a module or test marked `@pytest.mark.viewport(width, height)` gets that window size."""
    mark = request.node.get_closest_marker("viewport")
    ctx = new_context(browser, **({"viewport": {"width": mark.args[0], "height": mark.args[1]}} if mark else {}))
    pg = ctx.new_page()
    yield pg
    ctx.close()


def sign_in(page, name: str, password: str) -> None:
    """Sign in as a person does, through the page header's form (above the tabs, whichever tab is open); waits
    for the status line to name the user."""
    page.locator("#signin-name input, #signin-name textarea").first.fill(name)
    page.locator("#signin-password input").first.fill(password)
    page.click("#signin-button")
    page.wait_for_selector(f'#signin-status[data-user="{name}"]', state="attached", timeout=60000)
