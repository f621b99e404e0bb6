"""A real `python app.py` process with accounts and a study, for replaying attacks over HTTP."""
from __future__ import annotations

import subprocess

import pytest

from annotation import auth, studies
from annotation.store import Store
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sec_helpers beside this file (importlib mode)
from sec_helpers import IB, ITEMS, Server, start_app


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("sec")
    db = d / "store" / "ibench.sqlite"
    st = Store(db)
    auth.create_user(st, "root", "admin", "root-password")
    auth.create_user(st, "ann", "annotator", "ann-password")
    study, tokens = studies.create_study(st, IB, list(ITEMS), ITEMS, {"completion_code": "C0DE-42", "calibrate": False})
    for s in st.sessions():  # these tests are about the items, so the consent step (issue 14's flow) is done
        st.update_session_settings(s.id, consented_at=1.0)
    st.close()
    marker_dir = d / "marker"
    marker_dir.mkdir()
    proc, url = start_app(db, d / "app.log")
    srv = Server(db=db, url=url, proc=proc, tokens=tokens, study_id=study.id, marker_dir=marker_dir, log=d / "app.log")
    yield srv
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


