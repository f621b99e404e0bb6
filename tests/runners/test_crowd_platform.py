"""Crowd-platform conventions of a study (issue 23): `study create --completion-url/--participant-param`, the
platform's participant id taken from the study link's URL parameter and kept with the sitting, the end screen's
link back beside the completion code, and an export that says how each response was given (key, button, text,
voice) and when typing started."""
import json
import math
from urllib.parse import urlparse

import pytest

from annotation.store import Store
from annotation.studies import check_settings, get_study, open_link_session, resolve_token
from app import main
from ibench_ui.auth_routes import STUDY_COOKIE
from ibench_ui.context import AppContext
from ibench_ui.participant import ParticipantService
from ibench_ui.session import SessionService

ITEM = "ball_counter#0"
PID = "5f8e0c2a9b1d4e7f6a3c2b10"   # a Prolific-style 24-hex-digit id


def _create(tmp, *extra):
    (tmp / "items.txt").write_text(ITEM + "\n")
    rc = main(["study", "create", "--db", str(tmp / "db.sqlite"), "--benchmark", "interactionbench",
               "--participants", "1", "--items", str(tmp / "items.txt"), "--no-calibration", "--no-countdown",
               "--completion-code", "C-9", "--out", str(tmp / "links.csv"), *extra])
    assert rc == 0
    return (tmp / "links.csv").read_text().splitlines()[1].split(",", 1)[1]


@pytest.fixture
def sitting(tmp_path, capsys):
    url = _create(tmp_path, "--completion-url", "https://app.prolific.com/submissions/complete?cc=C-9",
                  "--participant-param", "PROLIFIC_PID")
    store = Store(tmp_path / "db.sqlite")
    svc = SessionService(AppContext(store=store, asr_model=str(tmp_path / "none")), clock_slack=math.inf, links=True)
    token = dict(p.split("=", 1) for p in urlparse(url).query.split("&"))["t"]
    yield tmp_path, store, LinkBrowser(ParticipantService(svc.ctx, svc), open_link_session(store, token, 3600.0)), token
    store.close()


class LinkBrowser:
    """The participant's browser after opening the link: every call carries the link's cookie."""

    def __init__(self, ps: ParticipantService, cookie: str):
        self.ps, self.cookies = ps, {STUDY_COOKIE: cookie}

    def call(self, name: str, req: dict) -> dict:
        return self.ps.call(name, req, self)


def test_platform_id_is_kept_with_the_sitting_and_the_end_links_back(sitting):
    tmp, store, ps, token = sitting
    query = f"t={token}&PROLIFIC_PID={PID}&STUDY_ID=abc"
    res = ps.call("open_session", {"t": token, "query": query})
    assert res["ok"] and res["step"] == "consent"
    sid = resolve_token(store, token).session_id
    assert store.get_session(sid).settings["platform_id"] == PID
    # a later visit with another id (or none) does not overwrite the first
    ps.call("open_session", {"t": token, "query": f"t={token}&PROLIFIC_PID=someone_else"})
    assert store.get_session(sid).settings["platform_id"] == PID
    assert ps.call("study_step", {"t": token, "step": "consent", "agree": True})["ok"]
    assert ps.call("finish_item", {"t": token, "item_index": 0, "item_id": ITEM})["ok"]
    end = ps.call("open_session", {"t": token})
    assert end["done"] and end["completion_code"] == "C-9"
    assert ('<a id="completion-link" class="ib-primary" href="https://app.prolific.com/submissions/complete?cc=C-9"'
            in end["end_html"])


def test_an_id_that_is_not_one_is_not_recorded(sitting):
    _, store, ps, token = sitting
    ps.call("open_session", {"t": token, "query": f"t={token}&PROLIFIC_PID=%3Cscript%3E"})
    assert "platform_id" not in store.get_session(resolve_token(store, token).session_id).settings


def test_export_says_how_each_response_was_given(sitting, capsys):
    tmp, store, ps, token = sitting
    ps.call("open_session", {"t": token, "query": f"t={token}&PROLIFIC_PID={PID}"})
    assert ps.call("study_step", {"t": token, "step": "consent", "agree": True})["ok"]
    base = {"t": token, "item_index": 0, "item_id": ITEM}
    assert ps.call("respond", {**base, "kind": "press", "media_t": 1.0, "source": "key:Space"})["ok"]
    assert ps.call("respond", {**base, "kind": "press", "media_t": 2.0, "source": "button"})["ok"]
    assert ps.call("respond", {**base, "kind": "text", "text": "a ball", "media_t": 3.5, "source": "enter",
                               "typing_started_t": 2.75})["ok"]
    out = tmp / "responses.jsonl"
    assert main(["export", "responses", "--db", str(tmp / "db.sqlite"), "--out", str(out)]) == 0
    rows = sorted((json.loads(x) for x in out.read_text().splitlines()), key=lambda r: r["t"])
    assert [(r["input"], r["typing_started_t"], r["platform_id"]) for r in rows] == [
        ("key", None, PID), ("button", None, PID), ("text", 2.75, PID)]


@pytest.mark.parametrize("settings, field", [({"completion_url": "javascript:alert(1)"}, "completion_url"),
                                             ({"completion_url": "https://x.org/a b"}, "completion_url"),
                                             ({"participant_param": "PID&x=1"}, "participant_param")])
def test_bad_platform_settings_are_refused_by_name(settings, field):
    with pytest.raises(ValueError, match=field):
        check_settings(settings)


def test_defaults_name_prolifics_parameter_and_no_url(tmp_path, capsys):
    _create(tmp_path)
    study_id = capsys.readouterr().out.strip()
    st = get_study(Store(tmp_path / "db.sqlite"), study_id)
    assert st.settings["participant_param"] == "PROLIFIC_PID" and st.settings["completion_url"] == ""
