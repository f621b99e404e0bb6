"""The back-off of failed sign-ins and link tokens (annotation.throttle) and CSV cells safe from formulas
(annotation.csv_cells), with hand-worked values."""
from __future__ import annotations

import pytest

from annotation.csv_cells import plain_cell, safe_cell, safe_row
from annotation.store import Store
from annotation.throttle import ACCOUNT, Throttle, retry_after


def test_four_failures_are_free_the_fifth_locks_then_each_doubles_the_lockout_and_a_success_clears_it(tmp_path):
    st = Store(tmp_path / "t.sqlite")
    th, key = Throttle(st), [("user:ann", ACCOUNT)]
    assert [th.failed(key, now=100.0) for _ in range(4)] == [0.0] * 4
    assert th.failed(key, now=100.0) == 30.0      # the 5th: 30 s
    assert th.locked(key, now=110.0) == 20.0
    assert th.failed(key, now=131.0) == 60.0      # the 6th: 60 s, the 7th 120 s
    assert th.failed(key, now=200.0) == 120.0
    assert th.locked(key, now=400.0) == 0.0
    th.succeeded("user:ann")
    assert th.failed(key, now=500.0) == 0.0       # counting starts afresh
    st.close()


def test_the_count_lives_in_the_store_and_the_lockout_is_capped(tmp_path):
    st = Store(tmp_path / "t.sqlite")
    for _ in range(20):
        Throttle(st).failed([("user:x", ACCOUNT)], now=0.0)
    st.close()
    st = Store(tmp_path / "t.sqlite")  # a restart: the counters are still there
    assert Throttle(st).locked([("user:x", ACCOUNT)], now=1.0) == 3599.0  # 30 * 2**15 capped at 3600
    assert Throttle(st, base=600).failed([("user:x", ACCOUNT)], now=2.0) == 3600.0
    assert retry_after(0.2) == "1" and retry_after(29.01) == "30"
    st.close()


@pytest.mark.parametrize("cell, safe", [("=1+1", "'=1+1"), ("+41", "'+41"), ("-x", "'-x"), ("@SUM(A1)", "'@SUM(A1)"),
                                        ("\tx", "'\tx"), ("\rx", "'\rx"), ("-0.25", "-0.25"), ("-3", "-3"),
                                        ("ok", "ok"), ("", ""), (-2, -2), (None, None)])
def test_formula_cells_get_an_apostrophe_and_read_back_as_written(cell, safe):
    assert safe_cell(cell) == safe
    assert plain_cell(safe_cell(cell)) == cell
    assert safe_row([cell, "a"]) == [safe, "a"]
