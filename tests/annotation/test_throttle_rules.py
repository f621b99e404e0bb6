"""Rules of annotation.throttle with hand-worked lockouts: the `free`-th failure locks for `base` seconds and each
one after it doubles the lockout (base * 2**(n - free)) up to the cap; a key quiet for `forget` seconds starts
afresh; a lockout ends at its last second. Times are given explicitly (now=...), never read from the clock."""
from __future__ import annotations

import pytest

from annotation.store import Store
from annotation.throttle import ACCOUNT, CLIENT, LINK, Policy, Throttle, retry_after

USER = [("user:ann", ACCOUNT)]


@pytest.fixture
def store(tmp_path):
    st = Store(tmp_path / "t.sqlite")
    yield st
    st.close()


def test_the_policies_an_attacker_meets():
    """Account: 5 failures, client address: 20, study link tokens per address: 10; 30 s first, 1 h cap, a day to
    forget."""
    assert (ACCOUNT.free, CLIENT.free, LINK.free) == (5, 20, 10)
    for p in (ACCOUNT, CLIENT, LINK):
        assert (p.base, p.cap, p.forget) == (30.0, 3600.0, 86400.0)


def test_the_fifth_failure_locks_for_30_s_and_the_sixth_for_60(store):
    """n = 1..4: no lock (locked_until stays 0); n = 5: 30 * 2**0 = 30; n = 6: 30 * 2**1 = 60."""
    th = Throttle(store)
    for n in range(1, 5):
        assert th.failed(USER, now=100.0) == 0.0
        assert store.failure("user:ann") == {"key": "user:ann", "failures": n, "last": 100.0, "locked_until": 0.0}
        assert th.locked(USER, now=100.0) == 0.0
    assert th.failed(USER, now=100.0) == 30.0
    assert store.failure("user:ann")["locked_until"] == 130.0
    assert th.failed(USER, now=200.0) == 60.0
    assert store.failure("user:ann")["locked_until"] == 260.0


def test_a_lockout_ends_at_its_last_second(store):
    """Locked until 130: 1 s left at 129, none at 130 (locked_until > now is strict), none at 131."""
    th = Throttle(store)
    for _ in range(5):
        th.failed(USER, now=100.0)
    assert th.locked(USER, now=129.0) == 1.0
    assert th.locked(USER, now=130.0) == 0.0
    assert th.locked(USER, now=131.0) == 0.0


def test_doubling_up_to_the_one_hour_cap(store):
    """30 * 2**k for n = 5..11: 30, 60, 120, 240, 480, 960, 1920; n = 12 would be 3840 > 3600, so 3600, and it
    stays 3600 after."""
    th = Throttle(store)
    got = [th.failed(USER, now=float(n)) for n in range(1, 15)]
    assert got == [0.0] * 4 + [30.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 3600.0, 3600.0, 3600.0]
    assert th.locked(USER, now=14.0) == 3600.0


def test_a_quiet_key_is_forgotten_after_exactly_a_day(store):
    """Four failures at t = 0; the 5th one day minus a second later still counts (locks 30 s); for a second key
    the 5th exactly 86400 s later starts afresh at 1 (no lock)."""
    th = Throttle(store)
    other = [("user:bob", ACCOUNT)]
    for _ in range(4):
        th.failed(USER, now=0.0)
        th.failed(other, now=0.0)
    assert th.failed(USER, now=86399.0) == 30.0
    assert store.failure("user:ann")["failures"] == 5
    assert th.failed(other, now=86400.0) == 0.0
    assert store.failure("user:bob")["failures"] == 1


def test_every_key_counts_and_the_longest_lockout_wins(store):
    """Account (5 free) and client (20 free) keys together: the 5th failure locks the account for 30 s while the
    client key has 5 of 20; locked() answers the longer wait of the two."""
    th = Throttle(store)
    keys = [("user:ann", ACCOUNT), ("client:1.2.3.4", CLIENT)]
    assert [th.failed(keys, now=0.0) for _ in range(5)] == [0.0] * 4 + [30.0]
    assert store.failure("client:1.2.3.4")["failures"] == 5
    assert store.failure("client:1.2.3.4")["locked_until"] == 0.0
    assert th.locked(keys, now=10.0) == 20.0
    assert th.locked([("client:1.2.3.4", CLIENT), ("user:ann", ACCOUNT)], now=10.0) == 20.0
    assert th.locked([("client:1.2.3.4", CLIENT)], now=10.0) == 0.0
    assert th.locked([("user:bob", ACCOUNT)], now=10.0) == 0.0


def test_the_client_key_locks_at_its_20th_failure_across_names(store):
    """20 failures from one address on 20 different names: no account reaches 5, the address locks 30 s at the
    20th; failed() returns the longest lockout among its keys, whichever comes first."""
    th = Throttle(store)
    got = [th.failed([(f"user:u{i}", ACCOUNT), ("client:9.9.9.9", CLIENT)], now=50.0) for i in range(20)]
    assert got == [0.0] * 19 + [30.0]
    assert th.locked([("user:u0", ACCOUNT), ("client:9.9.9.9", CLIENT)], now=60.0) == 20.0
    assert th.failed([("client:9.9.9.9", CLIENT), ("user:u0", ACCOUNT)], now=60.0) == 60.0


def test_the_link_key_locks_at_its_10th_failure(store):
    th = Throttle(store)
    key = [("link:1.1.1.1", LINK)]
    assert [th.failed(key, now=0.0) for _ in range(11)] == [0.0] * 9 + [30.0, 60.0]


def test_a_success_clears_that_key_only(store):
    th = Throttle(store)
    keys = [("user:ann", ACCOUNT), ("client:1.2.3.4", CLIENT)]
    for _ in range(5):
        th.failed(keys, now=0.0)
    th.succeeded("user:ann")
    assert store.failure("user:ann") is None
    assert store.failure("client:1.2.3.4")["failures"] == 5
    assert th.locked(USER, now=1.0) == 0.0
    assert th.failed(USER, now=2.0) == 0.0  # counting starts afresh: failure 1


def test_a_server_lockout_replaces_the_first_lockout_and_raises_the_cap_only(store):
    """serve --signin-lockout 10: 5th failure 10 s, 6th 20 s (free stays 5); --signin-lockout 7200 (above the
    1 h cap): the cap becomes 7200, so the 5th and 6th both lock 7200 s."""
    th = Throttle(store, base=10.0)
    assert [th.failed(USER, now=0.0) for _ in range(6)] == [0.0] * 4 + [10.0, 20.0]
    big = Throttle(store, base=7200.0)
    key = [("user:bob", ACCOUNT)]
    assert [big.failed(key, now=0.0) for _ in range(6)] == [0.0] * 4 + [7200.0, 7200.0]
    assert big.locked(key, now=0.0) == 7200.0
    # the day to forget is the policy's own: 86400 s later bob starts afresh
    assert big.failed(key, now=86400.0) == 0.0


def test_counting_at_wall_clock_times(store):
    """At epoch-like times (t = 1.7e9, not near 0) the 5th failure 10 s after the 4th still counts: 30 s."""
    th = Throttle(store)
    t = 1_700_000_000.0
    assert [th.failed(USER, now=t + k) for k in range(4)] == [0.0] * 4
    assert th.failed(USER, now=t + 13.0) == 30.0
    assert th.locked(USER, now=t + 14.0) == 29.0


def test_a_server_lockout_keeps_each_policys_free_count_and_forget_time(store):
    """Policy(free=2, base=1, cap=5, forget=10) under --signin-lockout 2: 2nd failure 2 s, 3rd 4 s (cap 5 kept,
    being above 2), 4th 5 s; 10 s quiet forgets it as the policy says (not the default day)."""
    th = Throttle(store, base=2.0)
    key = [("k", Policy(free=2, base=1.0, cap=5.0, forget=10.0))]
    assert [th.failed(key, now=0.0) for _ in range(4)] == [0.0, 2.0, 4.0, 5.0]
    assert th.failed(key, now=10.0) == 0.0


def test_a_policy_of_its_own(store):
    """Policy(free=2, base=1, cap=5, forget=10): 2nd failure 1 s, then 2, 4, 5 (cap); quiet 10 s: afresh."""
    th = Throttle(store)
    key = [("k", Policy(free=2, base=1.0, cap=5.0, forget=10.0))]
    assert [th.failed(key, now=0.0) for _ in range(5)] == [0.0, 1.0, 2.0, 4.0, 5.0]
    assert th.failed(key, now=9.0) == 5.0
    assert th.failed(key, now=19.0) == 0.0


@pytest.mark.parametrize("seconds, header", [(0.0, "1"), (0.2, "1"), (1.0, "1"), (1.0001, "2"), (29.01, "30"),
                                             (30.0, "30"), (3600.0, "3600")])
def test_retry_after_is_whole_seconds_rounded_up_at_least_one(seconds, header):
    assert retry_after(seconds) == header
