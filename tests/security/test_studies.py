"""annotation.studies: links are capabilities (random tokens, only hashes stored), one session each,
written whole or not at all."""
import hashlib
import sqlite3

import pytest

from annotation import studies
from annotation.store import Store


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "s.sqlite")


def test_create_study_gives_one_token_and_one_session_per_participant(store):
    study, tokens = studies.create_study(store, "interactionbench", ["p1", "p2"],
                                         {"p1": ["a", "b"], "p2": ["c"]}, {"completion_code": "XYZ"})
    assert set(tokens) == {"p1", "p2"} and tokens["p1"] != tokens["p2"]
    assert all(len(t) >= 43 for t in tokens.values())  # token_urlsafe(32) is 43 characters
    link = studies.resolve_token(store, tokens["p1"])
    assert (link.study_id, link.participant, link.benchmark, link.item_ids) == (study.id, "p1", "interactionbench",
                                                                               ("a", "b"))
    s = store.get_session(link.session_id)
    assert s.participant == "p1" and s.item_ids == ("a", "b")
    assert s.settings["study_id"] == study.id and s.settings["show_results"] is False
    assert studies.resolve_token(store, tokens["p2"]).item_ids == ("c",)
    assert study.settings["completion_code"] == "XYZ" and study.settings["show_results"] is False


def test_only_the_token_hash_is_stored(store, tmp_path):
    _, tokens = studies.create_study(store, "interactionbench", ["p1"], ["a"], {})
    raw = (tmp_path / "s.sqlite").read_bytes() + b"".join(
        p.read_bytes() for p in tmp_path.glob("s.sqlite-*"))
    assert tokens["p1"].encode() not in raw
    assert hashlib.sha256(tokens["p1"].encode()).hexdigest().encode() in raw


@pytest.mark.parametrize("token", ["", None, 12, "x" * 43, "../../etc/passwd", "a" * 500, {"t": 1}])
def test_unknown_or_malformed_tokens_open_nothing(store, token):
    studies.create_study(store, "interactionbench", ["p1"], ["a"], {})
    assert studies.resolve_token(store, token) is None


def test_a_revoked_link_opens_nothing(store):
    study, tokens = studies.create_study(store, "interactionbench", ["p1", "p2"], ["a"], {})
    studies.revoke_link(store, study.id, "p1")
    assert studies.resolve_token(store, tokens["p1"]) is None
    assert studies.resolve_token(store, tokens["p2"]).participant == "p2"
    with pytest.raises(KeyError):
        studies.revoke_link(store, study.id, "nobody")


@pytest.mark.parametrize("participants,items,settings,field", [
    ([], ["a"], {}, "participant"),
    (["p 1"], ["a"], {}, "participant"),
    (["p1", "p1"], ["a"], {}, "twice"),
    (["p1"], [], {}, "no items"),
    (["p1"], {"p2": ["a"]}, {}, "missing"),
    (["p1"], ["a", "a"], {}, "twice"),
    (["p1"], ["zzz"], {}, "unknown item"),
    (["p1"], ["a"], {"model": "plugin:os:system"}, "model"),
    (["p1"], ["a"], {"show_results": "yes"}, "show_results"),
    (["p1"], ["a"], {"practice_item": "nope"}, "practice_item"),
    (["p1"], ["a"], {"respond_key": "<script>"}, "respond_key"),
])
def test_bad_input_is_refused_before_anything_is_written(store, participants, items, settings, field):
    with pytest.raises(ValueError, match=field):
        studies.create_study(store, "interactionbench", participants, items, settings, known_items={"a", "b"})
    assert studies.list_studies(store) == [] and store.sessions() == []


def test_a_failed_write_leaves_no_half_study(store):
    store.create_session("x", "interactionbench", ["a"], session_id="s_taken")
    import annotation.studies as mod
    orig = mod.new_id
    ids = iter(["st_1", "s_fresh", "s_taken"])  # the second participant's session id collides
    mod.new_id = lambda prefix: next(ids)
    try:
        with pytest.raises(sqlite3.IntegrityError):
            studies.create_study(store, "interactionbench", ["p1", "p2"], ["a"], {})
    finally:
        mod.new_id = orig
    assert studies.list_studies(store) == []
    assert [s.id for s in store.sessions()] == ["s_taken"]
    assert list(store.db["study_links"].rows) == []


def test_status_counts_progress_and_responses(store):
    from annotation.model import Response
    study, tokens = studies.create_study(store, "interactionbench", ["p1", "p2"], ["a", "b"], {})
    sid = studies.resolve_token(store, tokens["p1"]).session_id
    store.add_response(Response(id="", item_id="a", benchmark="interactionbench", responder="human:p1",
                                session_id=sid, t=1.0, kind="press"))
    store.set_session_progress(sid, 2, "done")
    st = studies.study_status(store, study.id)
    by = {p.participant: p for p in st.participants}
    assert (by["p1"].index, by["p1"].status, by["p1"].n_responses, by["p1"].n_items) == (2, "done", 1, 2)
    assert (by["p2"].index, by["p2"].status, by["p2"].n_responses) == (0, "open", 0)
    assert st.n_done == 1
    assert [s.id for s in studies.list_studies(store)] == [study.id]
    assert studies.study_of_session(store, sid) == study.id
    with pytest.raises(KeyError):
        studies.study_status(store, "st_nope")


def test_participant_url_is_the_study_path_with_the_token():
    assert studies.participant_url("http://h:8/", "abc_-1") == "http://h:8/study/?t=abc_-1"
    assert studies.participant_url("https://x.org/base", "T") == "https://x.org/base/study/?t=T"
