"""Rules of annotation.studies that a participant, a researcher or an attacker would notice: every bound of a
study's settings on both sides, links that open exactly their own participant's session and nothing once
revoked or closed, tokens that cannot be guessed or shortened, a cookie session that is not a link token, and
the progress table with two participants who did different amounts."""
from __future__ import annotations

import hashlib
import time

import pytest

from annotation import auth, studies
from annotation.model import Response
from annotation.store import Store

B = "interactionbench"


@pytest.fixture
def store(tmp_path):
    st = Store(tmp_path / "s.sqlite")
    yield st
    st.close()


def _set_token(store, study_id, participant, token):
    """Make `token` the participant's link (its sha256 is what the table keeps)."""
    store.db.execute("update study_links set token_hash = ? where study_id = ? and participant = ?",
                     [hashlib.sha256(token.encode()).hexdigest(), study_id, participant])


# -- settings at their bounds ---------------------------------------------------------------------

def test_defaults_fill_what_is_not_given_and_the_input_is_not_changed():
    given = {"completion_code": "XYZ"}
    out = studies.check_settings(given)
    assert given == {"completion_code": "XYZ"}
    assert out == {"show_results": False, "practice_item": None, "consent": "", "completion_code": "XYZ",
                   "completion_url": "", "participant_param": "PROLIFIC_PID", "pause_allowed": False,
                   "respond_key": "Space", "max_responses_per_item": 200, "max_responses_per_session": 2000,
                   "max_text": 500, "allow_skip": False}
    assert studies.check_settings(None) == studies.check_settings({}) == studies.DEFAULT_SETTINGS


@pytest.mark.parametrize("key, lo, hi", [("max_responses_per_item", 1, 10000),
                                         ("max_responses_per_session", 1, 100000), ("max_text", 1, 20000)])
def test_count_bounds_one_either_side(key, lo, hi):
    assert studies.check_settings({key: lo})[key] == lo
    assert studies.check_settings({key: hi})[key] == hi
    for bad in (lo - 1, hi + 1, True, 2.0, "5", None):
        with pytest.raises(ValueError, match=key):
            studies.check_settings({key: bad})


def test_a_count_out_of_range_names_its_range():
    with pytest.raises(ValueError, match=r"^study setting 'max_text' must be a whole number from 1 to 20000, "
                                         r"got 20001$"):
        studies.check_settings({"max_text": 20001})


@pytest.mark.parametrize("key", ["consent", "completion_code"])
def test_texts_up_to_20000_characters(key):
    assert len(studies.check_settings({key: "x" * 20000})[key]) == 20000
    with pytest.raises(ValueError, match=f"'{key}' is longer than 20000"):
        studies.check_settings({key: "x" * 20001})


@pytest.mark.parametrize("key, bad", [("show_results", 1), ("show_results", "yes"), ("practice_item", 3),
                                      ("consent", None), ("completion_code", 7), ("completion_url", None),
                                      ("participant_param", None), ("pause_allowed", "no"), ("respond_key", 32),
                                      ("allow_skip", 0)])
def test_each_setting_has_its_type(key, bad):
    with pytest.raises(ValueError, match=f"^study setting '{key}' must be "):
        studies.check_settings({key: bad})


@pytest.mark.parametrize("key", ["model", "responders", "protocol"])
def test_a_study_never_names_a_model(key):
    with pytest.raises(ValueError, match="a study link never runs a model"):
        studies.check_settings({key: "plugin:os:system"})


def test_setting_names_are_strings_and_values_plain_json():
    with pytest.raises(ValueError, match="names must be strings"):
        studies.check_settings({1: True})
    with pytest.raises(ValueError, match="plain JSON"):
        studies.check_settings({"extra": {1, 2}})


@pytest.mark.parametrize("key, ok", [("Space", True), ("KeyA", True), ("a" * 20, True), ("a" * 21, False),
                                     ("", False), ("Key A", False), ("<script>", False)])
def test_respond_key(key, ok):
    if ok:
        assert studies.check_settings({"respond_key": key})["respond_key"] == key
    else:
        with pytest.raises(ValueError, match="respond_key"):
            studies.check_settings({"respond_key": key})


@pytest.mark.parametrize("url, ok", [
    ("", True), ("https://app.prolific.com/submissions/complete?cc=XYZ", True), ("http://x.org", True),
    ("https://" + "a" * 1992, True),             # 8 + 1992 = 2000 characters: the limit
    ("https://" + "a" * 1993, False),            # 2001
    ("javascript:alert(1)", False), ("ftp://x.org", False), ("https://x.org/a b", False),
    ('https://x.org/"onmouseover=', False), ("https://", False), ("see https://x.org", False)])
def test_completion_url(url, ok):
    if ok:
        assert studies.check_settings({"completion_url": url})["completion_url"] == url
    else:
        with pytest.raises(ValueError, match="completion_url"):
            studies.check_settings({"completion_url": url})


@pytest.mark.parametrize("param, ok", [("", True), ("PROLIFIC_PID", True), ("a" * 40, True), ("a" * 41, False),
                                       ("a-b", False), ("a=b", False)])
def test_participant_param(param, ok):
    if ok:
        assert studies.check_settings({"participant_param": param})["participant_param"] == param
    else:
        with pytest.raises(ValueError, match="participant_param"):
            studies.check_settings({"participant_param": param})


def test_practice_item_is_checked_against_the_pool_when_there_is_one():
    assert studies.check_settings({"practice_item": "a"}, {"a", "b"})["practice_item"] == "a"
    assert studies.check_settings({"practice_item": "zzz"})["practice_item"] == "zzz"  # no pool: not checked
    assert studies.check_settings({"practice_item": None}, {"a"})["practice_item"] is None
    with pytest.raises(ValueError, match="unknown item 'zzz'"):
        studies.check_settings({"practice_item": "zzz"}, {"a", "b"})
    with pytest.raises(ValueError, match="unknown item"):
        studies.check_settings({"practice_item": "a"}, set())


# -- creating a study -------------------------------------------------------------------------------

def test_participant_ids_and_names_at_their_limits(store):
    long_id = "p" * 64
    study, tokens = studies.create_study(store, B, [long_id, "a.b@c+d-e_f"], ["x"], name="n" * 200)
    assert set(tokens) == {long_id, "a.b@c+d-e_f"} and study.name == "n" * 200
    assert studies.get_study(store, study.id).name == "n" * 200


@pytest.mark.parametrize("participants, items, kw, why", [
    (["p" * 65], ["x"], {}, "bad participant id"),
    (["p1\n"], ["x"], {}, "bad participant id"),
    (["p 1"], ["x"], {}, "bad participant id"),
    ([""], ["x"], {}, "bad participant id"),
    ([7], ["x"], {}, "bad participant id"),
    ("p1", ["x"], {}, "at least one participant"),
    ([], ["x"], {}, "at least one participant"),
    (["p1", "p1"], ["x"], {}, "listed twice"),
    (["p1"], ["x"], {"name": "n" * 201}, "at most 200 characters"),
    (["p1"], ["x"], {"name": None}, "at most 200 characters"),
    (["p1"], "x", {}, "must be a list or a dict"),
    (["p1"], ["x", ""], {}, "non-empty strings"),
    (["p1"], ["x", 5], {}, "non-empty strings"),
    (["p1"], {"p1": ["x"], "p2": ["y"]}, {}, "not a participant: \\['p2'\\]"),
    (["p1", "p2"], {"p1": ["x"]}, {}, "missing: \\['p2'\\]"),
    (["p1", "p2"], {"p1": ["x"], "p2": []}, {}, "participant 'p2' has no items"),
    (["p1"], ["x", "y", "x"], {}, "listed twice"),
    (["p1"], ["x", "nope"], {"known_items": {"x", "y"}}, "unknown item id\\(s\\) nope"),
    (["p1"], ["x"], {"settings": {"max_text": 0}}, "max_text"),
])
def test_bad_studies_are_refused_before_anything_is_written(store, participants, items, kw, why):
    with pytest.raises(ValueError, match=why):
        studies.create_study(store, B, participants, items, **kw)
    assert studies.list_studies(store) == [] and store.sessions() == []


@pytest.mark.parametrize("bench", ["", None, 3])
def test_a_study_needs_a_benchmark(store, bench):
    with pytest.raises(ValueError, match="benchmark must be a benchmark name"):
        studies.create_study(store, bench, ["p1"], ["x"])


def test_at_most_10000_participants(store):
    """10001 ids are refused before any is checked or written (the limit is MAX_PARTICIPANTS = 10000)."""
    with pytest.raises(ValueError, match="at most 10000 participants"):
        studies.create_study(store, B, [f"p{i}" for i in range(10001)], ["x"])
    assert studies.list_studies(store) == []


def test_exactly_the_participant_limit_is_accepted(store, monkeypatch):
    """With the limit lowered to 2, two participants make a study and three are refused."""
    monkeypatch.setattr(studies, "MAX_PARTICIPANTS", 2)
    assert len(studies.create_study(store, B, ["p1", "p2"], ["x"])[1]) == 2
    with pytest.raises(ValueError, match="at most 2 participants"):
        studies.create_study(store, B, ["p1", "p2", "p3"], ["x"])


def test_each_session_gets_its_own_items_and_only_the_settings_a_page_needs(store):
    """Per-participant items (a tuple is a list too); each session carries pause_allowed, respond_key, study_id,
    show_results and the practice item, nothing of the study's bounds or completion code."""
    study, tokens = studies.create_study(
        store, B, ("p1", "p2"), {"p1": ("a", "b"), "p2": ["c"]},
        {"pause_allowed": True, "respond_key": "KeyJ", "show_results": True, "practice_item": "a",
         "completion_code": "SECRET"}, name="pilot", data_dir="/data/ib", known_items={"a", "b", "c"})
    assert (study.benchmark, study.name, study.status) == (B, "pilot", "open")
    s1 = store.get_session(studies.resolve_token(store, tokens["p1"]).session_id)
    s2 = store.get_session(studies.resolve_token(store, tokens["p2"]).session_id)
    assert (s1.participant, s1.item_ids, s2.participant, s2.item_ids) == ("p1", ("a", "b"), "p2", ("c",))
    want = {"pause_allowed": True, "respond_key": "KeyJ", "study_id": study.id, "show_results": True,
            "practice_item": "a"}
    assert s1.settings == want and s2.settings == want
    assert store.session_data_dir(s1.id) == "/data/ib" and s1.benchmark == B
    assert (s1.current_index, s1.status) == (0, "open")
    assert studies.get_study(store, study.id) == study
    assert study.settings["completion_code"] == "SECRET"


def test_without_a_practice_item_the_session_has_none(store):
    _, tokens = studies.create_study(store, B, ["p1"], ["a"])
    s = store.get_session(studies.resolve_token(store, tokens["p1"]).session_id)
    assert s.settings == {"pause_allowed": False, "respond_key": "Space",
                          "study_id": studies.study_of_session(store, s.id), "show_results": False}


# -- links and tokens -------------------------------------------------------------------------------

def test_each_token_opens_its_own_participant_only(store):
    a, ta = studies.create_study(store, B, ["p1", "p2"], {"p1": ["a"], "p2": ["b"]})
    b, tb = studies.create_study(store, B, ["p1"], ["c"])
    la, lb, l2 = (studies.resolve_token(store, t) for t in (ta["p1"], tb["p1"], ta["p2"]))
    assert (la.study_id, la.participant, la.item_ids) == (a.id, "p1", ("a",))
    assert (lb.study_id, lb.participant, lb.item_ids) == (b.id, "p1", ("c",))
    assert (l2.participant, l2.item_ids) == ("p2", ("b",))
    assert len({la.session_id, lb.session_id, l2.session_id}) == 3
    assert la.benchmark == B and la.settings["study_id"] == a.id and la.revoked is False
    assert len(set(ta.values()) | set(tb.values())) == 3
    assert all(len(t) == 43 for t in (*ta.values(), *tb.values()))  # token_urlsafe(32)


def test_a_token_with_one_character_changed_or_cut_opens_nothing(store):
    _, tokens = studies.create_study(store, B, ["p1"], ["a"])
    t = tokens["p1"]
    flipped = t[:-1] + ("A" if t[-1] != "A" else "B")
    for guess in (flipped, t[:-1], t + "A", t.upper() if t.upper() != t else t.lower(), " " + t):
        assert studies.resolve_token(store, guess) is None
        assert studies.open_link_session(store, guess, ttl=600.0) is None
    assert store.query("select count(*) as n from auth_tokens")[0]["n"] == 0


def test_token_length_from_20_to_128_and_url_safe_characters_only(store):
    """Tokens are checked before the table is read: 19 characters or 129 open nothing even when their hash is
    stored; 20 and 128 open; so does every character of the URL-safe alphabet, and '=', '+', '/' do not."""
    study, _ = studies.create_study(store, B, ["p19", "p20", "p128", "p129", "pab", "peq", "pplus"], ["a"])
    cases = {"p19": "a" * 19, "p20": "b" * 20, "p128": "c" * 128, "p129": "d" * 129,
             "pab": "AZaz09_-" * 3, "peq": "e" * 30 + "=", "pplus": "f" * 30 + "+/"}
    for p, tok in cases.items():
        _set_token(store, study.id, p, tok)
    got = {p: (studies.resolve_token(store, tok) or None) and studies.resolve_token(store, tok).participant
           for p, tok in cases.items()}
    assert got == {"p19": None, "p20": "p20", "p128": "p128", "p129": None, "pab": "pab", "peq": None,
                   "pplus": None}


def test_a_link_cookie_session_is_not_a_token_and_not_an_account(store, fast_argon2):
    """The cookie id that stands for p1's link opens p1's session through link_of_session only: it is no link
    token itself, its row has no account, and a sign-in session is no link."""
    _, tokens = studies.create_study(store, B, ["p1", "p2"], ["a"])
    before = time.time()
    sid = studies.open_link_session(store, tokens["p1"], ttl=600.0)
    after = time.time()
    row = store.get_token(hashlib.sha256(sid.encode()).hexdigest())
    assert row["user"] == "" and row["link"] == hashlib.sha256(tokens["p1"].encode()).hexdigest()
    assert before + 600.0 <= row["expires"] <= after + 600.0
    assert sid != tokens["p1"] and len(sid) == 43
    assert studies.resolve_token(store, sid) is None
    assert studies.link_of_session(store, tokens["p1"]) is None
    assert studies.link_of_session(store, sid).participant == "p1"
    assert auth.user_for(store, sid) is None
    second = studies.open_link_session(store, tokens["p1"], ttl=600.0)
    assert second != sid and studies.link_of_session(store, second).participant == "p1"
    store.add_user("ann", "annotator", auth.hash_password("ann-password"))
    account = auth.sign_in(store, "ann", "ann-password")
    assert studies.link_of_session(store, account) is None
    assert studies.link_of_session(store, None) is None


def test_a_link_cookie_ends_at_its_lifetime(store):
    _, tokens = studies.create_study(store, B, ["p1"], ["a"])
    sid = studies.open_link_session(store, tokens["p1"], ttl=600.0)
    h = hashlib.sha256(sid.encode()).hexdigest()
    store.db.execute("update auth_tokens set expires = ? where token_hash = ?", [time.time() - 1.0, h])
    assert studies.link_of_session(store, sid) is None


def test_revoking_a_link_closes_its_token_and_its_cookie_sessions_only(store):
    a, ta = studies.create_study(store, B, ["p1", "p2"], ["a"])
    b, tb = studies.create_study(store, B, ["p1"], ["a"])
    sid = studies.open_link_session(store, ta["p1"], ttl=600.0)
    other = studies.open_link_session(store, tb["p1"], ttl=600.0)
    studies.revoke_link(store, a.id, "p1")
    assert studies.resolve_token(store, ta["p1"]) is None and studies.link_of_session(store, sid) is None
    assert studies.open_link_session(store, ta["p1"], ttl=600.0) is None
    assert studies.resolve_token(store, ta["p2"]).participant == "p2"
    assert studies.link_of_session(store, other).study_id == b.id  # same participant id, another study
    with pytest.raises(KeyError, match="has no participant 'p3'"):
        studies.revoke_link(store, a.id, "p3")
    with pytest.raises(KeyError):
        studies.revoke_link(store, "st_nope", "p1")


def test_a_closed_study_or_a_lost_session_opens_nothing(store):
    a, ta = studies.create_study(store, B, ["p1", "p2"], ["a"])
    sid = studies.open_link_session(store, ta["p1"], ttl=600.0)
    store.db.execute("delete from sessions where id = ?", [studies.resolve_token(store, ta["p2"]).session_id])
    assert studies.resolve_token(store, ta["p2"]) is None
    store.db.execute("update studies set status = 'closed' where id = ?", [a.id])
    assert studies.resolve_token(store, ta["p1"]) is None and studies.link_of_session(store, sid) is None
    store.db.execute("delete from studies where id = ?", [a.id])
    store.db.execute("update studies set status = 'open'")
    assert studies.resolve_token(store, ta["p1"]) is None


# -- finding studies and their progress ---------------------------------------------------------------

def test_find_study_by_id_or_unique_name(store):
    a, _ = studies.create_study(store, B, ["p1"], ["a"], name="pilot")
    b, _ = studies.create_study(store, B, ["p1"], ["a"], name="main")
    c, _ = studies.create_study(store, B, ["p1"], ["a"], name="main")
    d, _ = studies.create_study(store, B, ["p1"], ["a"])
    assert studies.find_study(store, a.id) == a and studies.find_study(store, "pilot") == a
    assert studies.find_study(store, c.id) == c
    with pytest.raises(KeyError) as e:
        studies.find_study(store, "main")
    assert str(e.value) == repr(f"several studies are named 'main'; studies: {a.id} (pilot), {b.id} (main), "
                                f"{c.id} (main), {d.id}")
    with pytest.raises(KeyError, match="no study with id or name 'nope'"):
        studies.find_study(store, "nope")
    assert [s.id for s in studies.list_studies(store)] == [a.id, b.id, c.id, d.id]


def test_find_study_in_an_empty_store_says_none(store):
    with pytest.raises(KeyError) as e:
        studies.find_study(store, "x")
    assert str(e.value) == repr("no study with id or name 'x'; studies: none")


def test_a_study_row_with_empty_fields_reads_with_defaults(store):
    store.db.execute("insert into studies (id, benchmark, name, created, settings, status, data_dir) "
                     "values ('st_x', ?, null, null, null, null, '')", [B])
    assert studies.get_study(store, "st_x") == studies.Study(id="st_x", benchmark=B, name="", created=0.0,
                                                             settings={}, status="open")


def test_status_with_two_participants_who_did_different_amounts(store):
    """p1: 2 responses, on item 2 of 3, done; p2: 1 response, item 0, revoked; p3: nothing; a studio session's
    response and another study's are not counted. n_done = 1 (p1 only)."""
    study, tokens = studies.create_study(store, B, ["p1", "p2", "p3"], ["a", "b", "c"])
    other, ot = studies.create_study(store, B, ["p1"], ["a"])
    sid = {p: studies.resolve_token(store, t).session_id for p, t in tokens.items()}
    studio = store.create_session("p1", B, ["a"])
    for s, n in ((sid["p1"], 2), (sid["p2"], 1), (studio.id, 4), (studies.resolve_token(store, ot["p1"]).session_id, 3)):
        for k in range(n):
            store.add_response(Response(id="", item_id="a", benchmark=B, responder="human:x", session_id=s,
                                        t=float(k), kind="press"))
    store.set_session_progress(sid["p1"], 2, "done")
    studies.revoke_link(store, study.id, "p2")
    st = studies.study_status(store, study.id)
    rows = [(p.participant, p.session_id, p.n_items, p.index, p.status, p.n_responses, p.revoked)
            for p in st.participants]
    assert rows == [("p1", sid["p1"], 3, 2, "done", 2, False), ("p2", sid["p2"], 3, 0, "open", 1, True),
                    ("p3", sid["p3"], 3, 0, "open", 0, False)]
    assert st.n_done == 1 and st.study == study
    assert studies.study_of_session(store, studio.id) is None
    assert studies.study_of_session(store, sid["p2"]) == study.id
    with pytest.raises(KeyError, match="no study 'st_nope'"):
        studies.study_status(store, "st_nope")


def test_status_of_a_participant_whose_session_is_gone(store):
    study, tokens = studies.create_study(store, B, ["p1"], ["a", "b"])
    store.db.execute("delete from sessions where id = ?", [studies.resolve_token(store, tokens["p1"]).session_id])
    [p] = studies.study_status(store, study.id).participants
    assert (p.n_items, p.index, p.status, p.n_responses) == (0, 0, "missing", 0)


def test_participant_url_strips_trailing_slashes_and_encodes_the_token():
    assert studies.participant_url("https://x.org//", "a-b_c") == "https://x.org/study/?t=a-b_c"
    assert studies.participant_url("", "T") == "/study/?t=T"
    assert studies.participant_url("http://h", "a+b") == "http://h/study/?t=a%2Bb"
    assert studies.participant_url("http://HOSTX/", "T") == "http://HOSTX/study/?t=T"  # only slashes are stripped


@pytest.mark.parametrize("participants, items, message", [
    (["p1"], {"p1": ["x"], "p2": ["y"]},
     "item ids per participant must name exactly the participants; missing: -, not a participant: ['p2']"),
    (["p1", "p2"], {"p1": ["x"]},
     "item ids per participant must name exactly the participants; missing: ['p2'], not a participant: -"),
])
def test_a_mismatched_item_table_names_both_sides(store, participants, items, message):
    with pytest.raises(ValueError) as e:
        studies.create_study(store, B, participants, items)
    assert str(e.value) == message


def test_studies_are_listed_by_creation_time(store):
    """Study a is written first but its created time is set 100 s after b's: the list is b, a."""
    a, _ = studies.create_study(store, B, ["p1"], ["x"], name="a")
    b, _ = studies.create_study(store, B, ["p1"], ["x"], name="b")
    store.db.execute("update studies set created = ? where id = ?", [b.created + 100.0, a.id])
    assert [s.name for s in studies.list_studies(store)] == ["b", "a"]


@pytest.mark.parametrize("settings, message", [
    ({"show_results": "yes"}, "study setting 'show_results' must be bool, got 'yes'"),
    ({"practice_item": 3}, "study setting 'practice_item' must be str or NoneType, got 3"),
    ({"participant_param": "-" * 100},
     "study setting 'participant_param' must be a URL parameter name (letters, digits, _), got " + repr("-" * 80)),
    ({"completion_url": "ftp://" + "a" * 100},
     "study setting 'completion_url' must be an http:// or https:// URL, got " + repr(("ftp://" + "a" * 100)[:80])),
    ({"respond_key": "<b>"}, "study setting 'respond_key' must be a KeyboardEvent.code such as Space, got '<b>'"),
    ({"consent": "x" * 20001}, "study setting 'consent' is longer than 20000 characters"),
    ({"model": "m"}, "study setting 'model' is not allowed: a study link never runs a model"),
])
def test_refusals_say_exactly_what_is_wrong(settings, message):
    """What the researcher reads: the setting, the rule and the first 80 characters of a bad value."""
    with pytest.raises(ValueError) as e:
        studies.check_settings(settings)
    assert str(e.value) == message


def test_a_lower_case_participant_param_is_a_name_too():
    assert studies.check_settings({"participant_param": "pid_2"})["participant_param"] == "pid_2"


@pytest.mark.parametrize("args, message", [
    (("", ["p1"], ["x"]), "benchmark must be a benchmark name"),
    ((B, [], ["x"]), "a study needs at least one participant"),
    ((B, ["p1", "p1"], ["x"]), "a participant id is listed twice"),
    ((B, ["p1"], "x"), "item ids must be a list or a dict participant -> list, got str"),
    ((B, ["p1"], ["", 1, None, "", "ok"]), "participant 'p1': item ids must be non-empty strings, got ['', 1, None]"),
    ((B, ["p1"], ["u1", "u2", "u3", "u4", "u5", "u6", "a"]), "participant 'p1': unknown item id(s) u1, u2, u3, u4, u5"),
])
def test_study_refusals_say_exactly_what_is_wrong(store, args, message):
    """At most 3 bad ids and 5 unknown ones are quoted, so a long bad list stays one readable line."""
    with pytest.raises(ValueError) as e:
        studies.create_study(store, *args, known_items={"a"})
    assert str(e.value) == message


def test_a_long_name_is_refused_in_so_many_words(store):
    with pytest.raises(ValueError) as e:
        studies.create_study(store, B, ["p1"], ["x"], name="n" * 201)
    assert str(e.value) == "study name must be a string of at most 200 characters"


def test_ids_say_what_they_name_and_the_data_folder_defaults_to_none(store):
    """Study ids start "st_", session ids "s_" (new_id: prefix, "_", 12 hex digits); no data_dir given: ""."""
    study, tokens = studies.create_study(store, B, ["p1"], ["x"])
    sid = studies.resolve_token(store, tokens["p1"]).session_id
    assert study.id.startswith("st_") and len(study.id) == 15
    assert sid.startswith("s_") and len(sid) == 14
    assert store.session_data_dir(sid) == ""
