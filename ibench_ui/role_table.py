"""The studio's role table: who may use each tab, call each event function, server function and named route.

Data only. The server checks every call against this table (ibench_ui.guard reads EVENTS when an event is
registered; the Session tab's server functions and POST /api/respond read SESSION and ROUTES), and each tab's
plain "who is this for" message reads TABS. Registering an event function missing here fails the build;
tests/ui/test_role_table.py calls every entry as every role against a matrix of its own."""
from __future__ import annotations

ANONYMOUS = "anonymous"  # a visitor with no sign-in (the local single user is never anonymous: it is admin)
ADMIN, REVIEWER, ANNOTATOR = "admin", "reviewer", "annotator"
ACCOUNTS = (ADMIN, REVIEWER, ANNOTATOR)  # every signed-in account
STAFF = (ADMIN, REVIEWER)                # may see everyone's responses and edit every record
ADMINS = (ADMIN,)
EVERYONE = (ANONYMOUS, *ACCOUNTS)       # signed in or not

# tab id -> (its label, who may use it). The Annotation tab only holds the Verify, Review, Agreement and Users
# tabs; each of those says who it is for.
TABS: dict[str, tuple[str, tuple[str, ...]]] = {
    "browse": ("Browse", ACCOUNTS),
    "session": ("Session", ACCOUNTS),
    "runs": ("Runs", STAFF),
    "compare": ("Compare", STAFF),
    "leaderboard": ("Leaderboard", STAFF),
    "verify": ("Verify", ACCOUNTS),
    "review": ("Review", STAFF),
    "agreement": ("Agreement", ACCOUNTS),
    "users": ("Users", ADMINS),
}

# tab id -> where a refused account's own work is (its tab line and the service's refusal both say it)
ELSEWHERE = {"review": "Your own marks and prefix walks are in Verify."}

# finer checks inside a tab's service: who may do what once the event function is reached
RUN = ADMINS       # Runs: start or cancel a run (loads and runs a model: an admin action; ibench_ui.runs_service)
RUN_VIEW = STAFF   # Runs: watch runs and read their reports

# (where the event is registered: a tab id, or "page" for the page header and load, function name) -> roles.
# Each is the roles of its tab (TABS), with two exceptions: Review's queue refresh also runs after every sign-in
# (an annotator's is answered in the tab by ibench_ui.review_service, not with an error), and Runs' start and
# cancel reach reviewers, whom ibench_ui.runs_service tells that starting a run is an admin's (RUN above).
EVENTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("page", "signed_in"): EVERYONE,        # after a sign-in or sign-out: the header's status redraws
    ("page", "signin_status"): EVERYONE,    # the header's status on a page load (from the cookie)
    ("page", "tab_notices"): EVERYONE,      # each tab's "who is this for" line, on load and on sign-in
    ("page", "_initial_tab"): EVERYONE,     # a ?session=... link opens the Session tab
    ("browse", "on_bench"): ACCOUNTS,
    ("browse", "on_item"): ACCOUNTS,
    ("browse", "on_load"): ACCOUNTS,
    ("runs", "on_start"): STAFF,
    ("runs", "on_cancel"): STAFF,
    ("runs", "on_show"): STAFF,
    ("runs", "on_open"): STAFF,
    ("runs", "on_runs_focus"): STAFF,
    ("runs", "on_run"): STAFF,
    ("runs", "on_drill"): STAFF,
    ("runs", "on_tick"): STAFF,
    ("compare", "on_bench"): STAFF,
    ("compare", "on_item"): STAFF,
    ("compare", "on_who"): STAFF,
    ("compare", "on_study"): STAFF,
    ("compare", "on_refresh"): STAFF,
    ("compare", "<lambda>"): STAFF,         # the timeline export (a lambda: its api_name is "lambda")
    ("compare", "on_load"): STAFF,
    ("compare", "on_sign_in"): STAFF,
    ("leaderboard", "on_refresh"): STAFF,
    ("leaderboard", "on_report"): STAFF,
    ("leaderboard", "on_open"): STAFF,      # a clicked score opens Compare in the page
    ("verify", "on_refresh"): ACCOUNTS,
    ("verify", "on_item"): ACCOUNTS,
    ("verify", "on_event"): ACCOUNTS,
    ("verify", "on_submit"): ACCOUNTS,
    ("verify", "on_withdraw"): ACCOUNTS,
    ("verify", "on_next"): ACCOUNTS,
    ("verify", "on_prev"): ACCOUNTS,
    ("verify", "on_pick"): ACCOUNTS,
    ("verify", "on_offset"): ACCOUNTS,
    ("verify", "on_calibrate"): ACCOUNTS,
    ("verify", "on_start"): ACCOUNTS,
    ("verify", "on_interval"): ACCOUNTS,
    ("verify", "on_back"): ACCOUNTS,
    ("review", "on_refresh"): ACCOUNTS,    # also after each sign-in: annotators are told in the tab
    ("review", "on_pick"): STAFF,
    ("review", "on_next"): STAFF,
    ("review", "on_item"): STAFF,
    ("review", "on_field"): STAFF,
    ("review", "on_drag"): STAFF,
    ("review", "on_save"): STAFF,
    ("review", "on_undo"): STAFF,
    ("review", "on_status"): STAFF,
    ("review", "on_adj_pick"): STAFF,
    ("review", "on_resolve"): STAFF,
    ("review", "on_reopen"): STAFF,
    ("review", "on_export"): STAFF,
    ("agreement", "on_go"): ACCOUNTS,
    ("users", "on_add"): ADMINS,
    ("users", "on_show"): ADMINS,
}

# the Session tab's server functions (POST /gradio_api/component_server, by fn_name) -> account roles (never
# anonymous: a session belongs to whoever opened it; admins reach all: ibench_ui.session.owns)
SESSION: dict[str, tuple[str, ...]] = {
    "open_session": ACCOUNTS, "item_sets": ACCOUNTS, "respond": ACCOUNTS, "speak": ACCOUNTS,
    "correct": ACCOUNTS, "finish_item": ACCOUNTS, "asr_status": ACCOUNTS, "clock": ACCOUNTS,
    "model_stop": ACCOUNTS, "study_step": ACCOUNTS, "calibrate": ACCOUNTS, "model_check": ACCOUNTS,
    "hear": ACCOUNTS, "wait_model": ACCOUNTS,
    "open_session with a model": ADMINS,  # a session with a live model runs a model: an admin action
}

# the host's own routes whose handler checks the caller's role ("role-checked" in ibench_ui.routes)
ROUTES: dict[str, tuple[str, ...]] = {
    "POST /api/respond": ACCOUNTS,  # the studio session's response path as a plain JSON route
}
