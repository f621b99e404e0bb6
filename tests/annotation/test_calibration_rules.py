"""Rule tests of the reaction-time calibration (annotation/calibration.py) on known reaction times: the
anticipation and missed-cue bounds on both sides, the minimum of valid reactions, the 1-40 trial bounds,
the medians (overall and per cue, odd and even counts) and the shift. Every expected figure is worked out by
hand in the test's docstring."""
from __future__ import annotations

import pytest

from annotation import calibration
from annotation.calibration import CalibrationError, shift_of, shifted, summarize


def _t(cue, ms):
    return {"cue": cue, "latency_ms": ms}


def test_known_reactions_give_the_median_per_cue_and_overall(monkeypatch):
    """visual 300, 250.4, 333.36 -> 333.4 (one decimal); audio 520, 410.44 -> 410.4. All inside 100-1500 ms.
    Overall sorted: 250.4 300.0 333.4 410.4 520.0 -> median 333.4 ms = 0.3334 s.
    visual: 250.4 300.0 333.4 -> 300.0 ms = 0.3 s; audio: (410.4 + 520.0) / 2 = 465.2 ms = 0.4652 s."""
    monkeypatch.setattr(calibration.time, "time", lambda: 1234.5)
    got = summarize([_t("visual", 300), _t("audio", 520), _t("visual", 250.4), _t("audio", 410.44),
                     _t("visual", 333.36)])
    assert got == {"median_s": 0.3334, "by_cue": {"visual": 0.3, "audio": 0.4652}, "n_valid": 5, "n_trials": 5,
                   "trials": [{"cue": "visual", "latency_ms": 300.0, "valid": True, "why": ""},
                              {"cue": "audio", "latency_ms": 520.0, "valid": True, "why": ""},
                              {"cue": "visual", "latency_ms": 250.4, "valid": True, "why": ""},
                              {"cue": "audio", "latency_ms": 410.4, "valid": True, "why": ""},
                              {"cue": "visual", "latency_ms": 333.4, "valid": True, "why": ""}],
                   "measured_at": 1234.5}


def test_bounds_on_both_sides_and_exactly_three_valid():
    """99.9 < 100 -> anticipated; 100 and 1500 are reactions (the bounds are inclusive); 1500.1 > 1500 -> missed;
    no latency -> missed. Valid: 100, 1500, 700 = 3 = MIN_VALID, accepted.
    Median of 100, 700, 1500 = 700 ms = 0.7 s; visual: 1500 -> 1.5 s; audio: (100 + 700) / 2 = 400 ms = 0.4 s.
    Invalid trials count in n_trials (6) but in no median (with them the overall median would move)."""
    got = summarize([_t("visual", 99.9), _t("audio", 100), _t("visual", 1500), _t("audio", 1500.1),
                     _t("visual", None), _t("audio", 700)])
    assert got["trials"] == [{"cue": "visual", "latency_ms": 99.9, "valid": False, "why": "anticipated"},
                             {"cue": "audio", "latency_ms": 100.0, "valid": True, "why": ""},
                             {"cue": "visual", "latency_ms": 1500.0, "valid": True, "why": ""},
                             {"cue": "audio", "latency_ms": 1500.1, "valid": False, "why": "missed"},
                             {"cue": "visual", "latency_ms": None, "valid": False, "why": "missed"},
                             {"cue": "audio", "latency_ms": 700.0, "valid": True, "why": ""}]
    assert (got["median_s"], got["by_cue"], got["n_valid"], got["n_trials"]) == \
        (0.7, {"visual": 1.5, "audio": 0.4}, 3, 6)


def test_outliers_on_both_sides_do_not_move_the_median():
    """Valid: 200, 300, 400 -> median 300 ms = 0.3 s. Left out: 50 and 60 (anticipated), 1600 (missed); counted,
    they would give 50 60 200 300 400 1600 -> (200 + 300) / 2 = 250 ms. Only visual cues valid -> no audio median."""
    got = summarize([_t("visual", 200), _t("audio", 50), _t("visual", 300), _t("audio", 1600),
                     _t("visual", 400), _t("audio", 60)])
    assert (got["median_s"], got["by_cue"], got["n_valid"], got["n_trials"]) == (0.3, {"visual": 0.3}, 3, 6)


def test_two_valid_reactions_are_refused_with_the_counts():
    """100 and 1500 count, 99.9 and 1500.1 do not: 2 of 4 < 3."""
    with pytest.raises(CalibrationError) as e:
        summarize([_t("visual", 100), _t("audio", 1500), _t("visual", 99.9), _t("audio", 1500.1)])
    assert str(e.value) == "Only 2 of 4 reactions counted (need 3); react to each cue as soon as it appears."


def test_one_trial_is_a_list_the_rule_takes_but_too_few():
    with pytest.raises(CalibrationError) as e:
        summarize([_t("visual", 300)])
    assert str(e.value).startswith("Only 1 of 1 reactions counted (need 3)")


@pytest.mark.parametrize("trials", [[], [_t("visual", 300)] * 41, {"cue": "visual", "latency_ms": 300},
                                    tuple([_t("visual", 300)] * 3), None, "visual 300"])
def test_trials_outside_a_list_of_1_to_40_are_refused(trials):
    with pytest.raises(CalibrationError) as e:
        summarize(trials)
    assert str(e.value) == "trials must be a list of 1-40 {cue, latency_ms} records."


def test_forty_trials_are_taken_and_an_even_count_takes_the_middle_pair():
    """20 visual at 200 ms and 20 audio at 400 ms: sorted, the 20th is 200 and the 21st 400 -> 300 ms = 0.3 s;
    visual 0.2 s, audio 0.4 s."""
    got = summarize([_t("visual", 200)] * 20 + [_t("audio", 400)] * 20)
    assert (got["median_s"], got["by_cue"], got["n_valid"], got["n_trials"]) == \
        (0.3, {"visual": 0.2, "audio": 0.4}, 40, 40)


def test_numbers_given_as_text_are_read():
    """'250' -> 250.0; medians 250, 260, 270 -> 260 ms = 0.26 s (all audio)."""
    got = summarize([_t("audio", "250"), _t("audio", 260), _t("audio", "270.0")])
    assert (got["median_s"], got["by_cue"], [t["latency_ms"] for t in got["trials"]]) == \
        (0.26, {"audio": 0.26}, [250.0, 260.0, 270.0])


@pytest.mark.parametrize("bad,message", [
    ([_t("visual", 300), _t("smell", 300)], "trial 2: cue must be one of visual, audio."),
    ([_t("visual", 300), _t("audio", 300), ["visual", 300]], "trial 3: cue must be one of visual, audio."),
    ([{"latency_ms": 300}], "trial 1: cue must be one of visual, audio."),
    ([_t("visual", 300), _t("audio", "abc")], "trial 2: latency_ms must be a number, got 'abc'."),
    ([_t("visual", [300])], "trial 1: latency_ms must be a number, got [300]."),
    ([_t("visual", 300), _t("visual", "nan")], "trial 2: latency_ms must be finite."),
    ([_t("audio", float("inf"))], "trial 1: latency_ms must be finite."),
])
def test_malformed_trials_are_refused_by_position(bad, message):
    with pytest.raises(CalibrationError) as e:
        summarize(bad)
    assert str(e.value) == message


@pytest.mark.parametrize("settings,want", [
    (None, None), ({}, None), ({"calibration": None}, None), ({"calibration": "0.3"}, None),
    ({"calibration": {"median_s": "0.3"}}, None), ({"calibration": {}}, None),
    ({"calibration": {"median_s": 0.3334}}, 0.3334), ({"calibration": {"median_s": 0}}, 0.0),
    ({"calibration": {"median_s": 1}}, 1.0),
])
def test_the_shift_is_the_stored_median_or_none(settings, want):
    got = shift_of(settings)
    assert got == want and (want is None or type(got) is float)


@pytest.mark.parametrize("t,shift,want", [
    (5.0, None, 5.0),        # not measured: unchanged
    (5.0, 0.3334, 4.6666),   # 5 - 0.3334
    (2.71828, 0.5, 2.2183),  # 2.21828 rounded to 4 places
    (0.3334, 0.3334, 0.0),   # exactly at the stream's start
    (0.2, 0.3334, 0.0),      # would be -0.1334: never before the start
    (7.25, 0.0, 7.25),       # a measured zero shifts nothing
])
def test_a_response_moves_back_by_the_shift_never_before_zero(t, shift, want):
    assert shifted(t, shift) == want


def test_medians_are_kept_to_four_places_of_a_second():
    """Even counts: overall (330.0 + 410.1) / 2 = 370.05 ms = 0.37005 s; audio (410.1 + 520.0) / 2 = 465.05 ms
    = 0.46505 s; visual (300 + 330) / 2 = 315 ms = 0.315 s. A half at the fifth place goes to either neighbour
    depending on the float, never stays: 0.37 or 0.3701, 0.465 or 0.4651."""
    got = summarize([_t("visual", 300), _t("visual", 330), _t("audio", 410.1), _t("audio", 520)])
    assert got["median_s"] in (0.37, 0.3701) and got["by_cue"]["audio"] in (0.465, 0.4651)
    assert got["by_cue"]["visual"] == 0.315
