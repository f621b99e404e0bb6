"""Rule-by-rule tests of InteractionBench decision timing (spec §3) and the exact-mean arithmetic that
reproduces the reference's `statistics.mean`: each test guards one rule, with hand-worked expectations
(the arithmetic is in the comments), so that a small bug in the rule makes it fail (issue 17)."""
import math

from scoring.interactionbench.timing import Timing, decision_timing, merge_events
from scoring.interactionbench.refmath import exact_mean, exact_mean_big, mean_round3


# ---------------------------------------------------------------- decision timing (spec §3)

def test_default_tolerance_is_one_second():
    """Paper protocol: pre_tol 1.0 s. An emission 1.5 s before r* = 10 has a = 8.5 + 1.0 = 9.5 < 10 ->
    premature; one 0.5 s before has a = 10.5 >= 10 -> matched with delay max(0, 9.5 - 10) = 0."""
    early = decision_timing([10.0], [(8.5, "x")])
    assert (early.v_premature, early.match) == (1, [None])
    band = decision_timing([10.0], [(9.5, "x")])
    assert (band.v_premature, band.match, band.delay) == (0, [0], [0.0])


def test_missed_events_count_zero_in_timing_accuracy():
    """Two events, one matched with delay 0 (score 1), one missed (score 0): TA = 100 * (1 + 0) / 2 = 50.0;
    miss_rate = 1/2 = 0.5; the miss is no violation, so SC = 100 * (1 - 0/2) = 100.0."""
    f = Timing(n_gt=2, n_resp=1, match=[0, None], delay=[0.0, None]).fields(5.0)
    assert f["timing_accuracy"] == 50.0 and f["miss_rate"] == 0.5 and f["n_matched"] == 1
    assert f["silence_compliance"] == 100.0 and f["n_violations"] == 0


def test_timing_accuracy_uses_the_exact_mean_not_a_float_sum():
    """Delays 1.6, 3.8, 1.3, 3.8, 0.2, 3.7, 4.3, 1.0 with delta 5 give scores 1 - d/5 = 0.68, 0.24, 0.74, 0.24,
    0.96, 0.26, 0.14, 0.80 (sum 4.06, mean 0.5075). The reference's statistics.mean rounds the exact mean once:
    the double 0.5075, and round(100 * 0.5075, 1) = round(50.749999..., 1) = 50.7. A left-to-right float sum
    gives 0.5075000000000001 and 50.8, so this case fails if the mean is taken naively."""
    delays = [1.6, 3.8, 1.3, 3.8, 0.2, 3.7, 4.3, 1.0]
    t = Timing(n_gt=8, n_resp=8, match=list(range(8)), delay=delays)
    assert t.fields(5.0)["timing_accuracy"] == 50.7
    assert sum(1 - d / 5 for d in delays) / 8 != 0.5075  # the naive mean really is off


def test_delay_beyond_delta_scores_zero_not_negative():
    """max(0, 1 - d/delta): delays 10 and 0 with delta 5 -> scores 0 and 1 -> TA = 50.0 (a negative score
    -1 would give 0.0); delay_mean_s = (10 + 0) / 2 = 5.0."""
    f = Timing(n_gt=2, n_resp=2, match=[0, 1], delay=[10.0, 0.0]).fields(5.0)
    assert f["timing_accuracy"] == 50.0 and f["delay_mean_s"] == 5.0


def test_silence_compliance_counts_every_violation_kind():
    """|V| = premature + redundant + spurious = 1 + 1 + 1 = 3 over N = 4 events: SC = 100 * (1 - 3/4) = 25.0;
    response_precision = matched / n_resp = 1 / 4 = 0.25."""
    t = Timing(n_gt=4, n_resp=4, match=[0, None, None, None], delay=[0.0, None, None, None],
               v_premature=1, v_redundant=1, v_spurious=1)
    f = t.fields(5.0)
    assert f["silence_compliance"] == 25.0 and f["n_violations"] == 3 and f["response_precision"] == 0.25


def test_silence_compliance_floors_at_zero_and_is_undefined_without_emissions():
    """5 violations on 2 events: 1 - 5/2 < 0 -> SC 0.0. No emission at all: SC None (anti-gaming rule), and
    sc_defined=False also leaves it None."""
    loud = Timing(n_gt=2, n_resp=5, match=[None, None], delay=[None, None], v_redundant=5).fields(5.0)
    assert loud["silence_compliance"] == 0.0 and loud["timing_accuracy"] == 0.0 and loud["delay_mean_s"] is None
    silent = Timing(n_gt=2, n_resp=0, match=[None, None], delay=[None, None]).fields(5.0)
    assert silent["silence_compliance"] is None and silent["response_precision"] is None
    assert silent["miss_rate"] == 1.0
    one = Timing(n_gt=1, n_resp=1, match=[0], delay=[0.0])
    assert one.fields(5.0, sc_defined=False)["silence_compliance"] is None


def test_emission_within_tolerance_of_the_next_event_goes_to_it():
    """Events 10 and 20, tolerance 1: t = 19.2 has a = 20.2 >= 20 -> event 2 with delay max(0, 19.2 - 20) = 0;
    then t = 19.5 (a = 20.5) finds event 2 taken -> redundant; event 1 stays missed."""
    t = decision_timing([10.0, 20.0], [(19.2, "a"), (19.5, "b")], 1.0)
    assert t.match == [None, 0] and t.delay == [None, 0.0] and t.v_redundant == 1


def test_gate_rejection_is_spurious_and_leaves_the_event_open():
    """A gate that rejects the first text: t = 10 -> spurious; t = 11 passes -> match with delay 1."""
    t = decision_timing([10.0], [(10.0, "no"), (11.0, "yes")], 1.0, gate=lambda k, text: text == "yes")
    assert t.v_spurious == 1 and t.match == [1] and t.delay == [1.0]


def test_infinite_tolerance_attributes_an_early_emission_to_the_first_event():
    """Human-reference mode (spec §3): an emission before r*1 targets event 1 with delay 0, never premature."""
    greedy = decision_timing([10.0], [(5.0, "x")], float("inf"))
    assert greedy.match == [0] and greedy.delay == [0.0] and greedy.v_premature == 0


def test_no_events_nothing_attributed():
    t = decision_timing([], [(1.0, "x")], 1.0)
    assert (t.n_gt, t.n_resp, t.match, t.v_premature, t.v_redundant) == (0, 1, [], 0, 0)


# ---------------------------------------------------------------- exact mean (statistics.mean bit for bit)

def test_exact_mean_of_two_huge_values_does_not_overflow():
    """mean(1e308, 1e308) = 1e308 exactly; a float sum 2e308 overflows to inf."""
    assert exact_mean([1e308, 1e308]) == 1e308


def test_exact_mean_of_negative_zeros_is_positive_zero():
    """statistics.mean sums as exact rationals: 0 + 0 = 0 -> +0.0, so the sign of -0.0 inputs is dropped."""
    for xs in ([-0.0, -0.0], [-0.0] * 4, [-0.0]):
        m = exact_mean(xs)
        assert m == 0.0 and math.copysign(1.0, m) == 1.0, xs


def test_exact_mean_when_the_sum_needs_three_doubles():
    """xs = [1, 2^-53, 2^-120, 0 x 5], n = 8. Exact sum 1 + 2^-53 + 2^-120 lies just above the midpoint between
    1 and 1 + 2^-52, so the correctly rounded mean is (1 + 2^-52) / 8 = 0.125 + 2^-55. Dropping the third term
    gives the midpoint itself, which rounds to even: 0.125."""
    xs = [1.0, 2.0 ** -53, 2.0 ** -120] + [0.0] * 5
    assert exact_mean_big(xs) == 0.125 + 2.0 ** -55
    assert exact_mean(xs) == 0.125 + 2.0 ** -55


def test_exact_mean_when_the_remainder_is_one():
    """xs = [2^110, 2^57, 1, 0 x 5]: 2^57 is half an ulp of 2^110 (ulp 2^58), so 2^110 + 2^57 is a midpoint and
    the + 1 puts the exact sum above it: mean = (2^110 + 2^58) / 8 = 2^107 + 2^55. Without the 1: 2^107."""
    xs = [2.0 ** 110, 2.0 ** 57, 1.0] + [0.0] * 5
    assert exact_mean_big(xs) == 2.0 ** 107 + 2.0 ** 55


def test_mean_round3_with_cancelling_signs_uses_the_exact_mean():
    """(1e17 + 3 - 1e17) / 3 = 1.0 exactly; a float sum loses the 3 (ulp of 1e17 is 16) and gives 0."""
    assert mean_round3([1e17, 3.0, -1e17], False) == 1.0


def test_mean_round3_of_equal_values_is_the_value_rounded():
    """The mean of N copies of v is v, so round(mean, 3) = round(v, 3). These v sit on a 3-decimal rounding
    boundary (their doubles lie just above or below it): 0.0015 -> 0.002, 0.9995 -> 1.0, 1.0005 -> 1.0,
    2.9995 -> 2.999, 3.0005 -> 3.001, 0.0085 -> 0.009 (round(v, 3) of the double, as the reference rounds).
    A naive float sum of N copies drifts by ulps (38 ulps for 0.0015 x 400) and would round the other way."""
    expected = {0.0015: 0.002, 0.9995: 1.0, 1.0005: 1.0, 2.9995: 2.999, 3.0005: 3.001, 0.0085: 0.009}
    for v, want in expected.items():
        assert round(v, 3) == want
        for n in list(range(2, 40)) + [100, 400]:
            assert mean_round3([v] * n, True) == want, (v, n)


def test_a_single_answer_without_content_is_one_event_with_an_empty_reference():
    """The one-answer shortcut gives what the grouping gives: its time and its content, "" when it has none."""
    for answer in ({"time_s": 3, "content": ""}, {"time_s": 3}, {"time_s": 3, "content": None}):
        [ev] = merge_events([answer])
        assert (ev.time, ev.ref) == (3.0, "")
    [ev] = merge_events([{"time_s": "4.5", "content": "the cup"}])
    assert (ev.time, ev.ref) == (4.5, "the cup")
