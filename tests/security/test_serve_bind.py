"""`python app.py` beyond loopback with no accounts refuses to start and says how to create the first admin;
the same store with an admin, or loopback with none, is allowed (checked without serving)."""
import subprocess
import sys

from annotation import auth
from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.host import check_bind, is_loopback

import pathlib
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # sec_helpers beside this file
from sec_helpers import REPO  # noqa: E402


def test_a_public_bind_without_accounts_refuses_to_start(tmp_path):
    db = tmp_path / "fresh.sqlite"
    proc = subprocess.run([sys.executable, "app.py", "--db", str(db), "--host", "0.0.0.0", "--port", "1"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "python app.py users add NAME --role admin" in proc.stderr and "Traceback" not in proc.stderr
    assert not db.exists()  # refused before anything is created


def test_a_bad_allowed_host_is_one_error_line_before_anything_is_created(tmp_path):
    db = tmp_path / "fresh.sqlite"
    proc = subprocess.run([sys.executable, "app.py", "--db", str(db), "--allowed-hosts", "study.example.org,x y"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and not db.exists()
    assert proc.stderr.strip() == "error: --allowed-hosts: 'x y' is not a host name or host:port"


def test_bind_rules(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"))
    assert check_bind(ctx, "127.0.0.1") is None and check_bind(ctx, "::1") is None
    assert "users add" in check_bind(ctx, "0.0.0.0") and "users add" in check_bind(ctx, "192.168.1.5")
    auth.create_user(ctx.store, "root", "admin", "root-password")
    assert check_bind(ctx, "0.0.0.0") is None
    assert is_loopback("localhost") and not is_loopback("example.org")


def test_the_local_user_is_admin_only_without_accounts_on_loopback(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"))
    assert ctx.require("", ("admin",)).name == "local"
    ctx.loopback = False
    assert ctx.allowed("", ("admin",)) is None
    ctx.loopback = True
    auth.create_user(ctx.store, "ann", "annotator", "ann-password")
    assert ctx.allowed("", ("admin",)) is None and ctx.allowed("", ("annotator",)) is None
    tok = auth.sign_in(ctx.store, "ann", "ann-password")
    assert ctx.require(tok, ("annotator",)).name == "ann" and ctx.allowed(tok, ("admin",)) is None
