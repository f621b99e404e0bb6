"""Rule-by-rule tests of InteractionBench aggregation (spec §6, reference `summarize` / `aggregate`): item-weighted
means rounded to 3 that skip missing values, rates over the records that carry the flag, groups keyed by
str(value) and sorted, the headline row and the terminal table. Expectations are hand-worked (issue 17)."""
from scoring.interactionbench.aggregate import aggregate, format_table, headline, summarize


def rec(cap="PTR", tt="B", core=True, **fields):
    r = {"capability": cap, "capability_group": "g", "time_type": tt, "interaction_type": "INS",
         "family": "B_trigger", "range_length": "0-1min", "core_realtime": core}
    r.update(fields)
    return r


def test_mean_skips_missing_values_and_rounds_to_three():
    """total_score 1.0, 2.0, None, 0.5: mean over the 3 present = 3.5 / 3 = 1.1666... -> 1.167; n_items counts
    all 4 records."""
    s = summarize([rec(total_score=1.0), rec(total_score=2.0), rec(total_score=None), rec(total_score=0.5)])
    assert s["n_items"] == 4 and s["total_score"] == 1.167


def test_a_field_no_record_has_is_left_out():
    s = summarize([rec(total_score=1.0)])
    assert "accuracy" not in s and "answered_rate" not in s and s["total_score"] == 1.0


def test_integer_means_stay_integers_when_whole():
    """statistics.mean over ints: [1, 1] -> 1 (an int), [1, 2] -> 1.5, [1, 2, 2] -> 5/3 = 1.6666... -> 1.667."""
    whole = summarize([rec(v_redundant=1), rec(v_redundant=1)])["v_redundant"]
    assert whole == 1 and type(whole) is int
    assert summarize([rec(v_redundant=1), rec(v_redundant=2)])["v_redundant"] == 1.5
    assert summarize([rec(v_redundant=1), rec(v_redundant=2), rec(v_redundant=2)])["v_redundant"] == 1.667


def test_mixed_and_negative_values_take_the_exact_mean():
    """Mixed int/float [1, 2.5] -> 3.5 / 2 = 1.75; signed floats [-1.0, 0.5] -> -0.25;
    [1e17, 3.0, -1e17] -> 3 / 3 = 1.0 exactly (a float sum loses the 3 and would give 0.0)."""
    assert summarize([rec(delay_mean_s=1), rec(delay_mean_s=2.5)])["delay_mean_s"] == 1.75
    assert summarize([rec(delay_mean_s=-1.0), rec(delay_mean_s=0.5)])["delay_mean_s"] == -0.25
    cancel = [rec(delay_mean_s=1e17), rec(delay_mean_s=3.0), rec(delay_mean_s=-1e17)]
    assert summarize(cancel)["delay_mean_s"] == 1.0


def test_mean_on_a_rounding_boundary_is_the_exact_mean():
    """400 records of total_score 0.0015: the mean is 0.0015, and round(0.0015, 3) = 0.002 (the double 0.0015
    lies just above the midpoint). A float sum of 400 copies drifts 38 ulps low and would round to 0.001.
    Split over two capabilities so the overall mean sums two cells."""
    recs = [rec(cap="PTR" if i % 2 else "LCG", total_score=0.0015) for i in range(400)]
    agg = aggregate(recs)
    assert agg["overall"]["total_score"] == 0.002
    assert agg["by_capability"]["PTR"]["total_score"] == 0.002 and agg["by_capability"]["PTR"]["n_items"] == 200


def test_small_float_mean_takes_the_fast_path_correctly():
    """[66.7, 33.3, 100.0] -> 200 / 3 = 66.666... -> 66.667; [0.1, 0.2] -> 0.15 (round(0.15000000000000002, 3)
    = 0.15)."""
    assert summarize([rec(accuracy=66.7), rec(accuracy=33.3), rec(accuracy=100.0)])["accuracy"] == 66.667
    assert summarize([rec(accuracy=0.1), rec(accuracy=0.2)])["accuracy"] == 0.15


def test_rates_count_only_records_that_carry_the_flag():
    """answered True, False, True and one record without the key: 2 / 3 = 0.667; false_alarm on 1 of 2
    negatives: 0.5."""
    recs = [rec(answered=True), rec(answered=False), rec(answered=True), rec(false_alarm=True), rec(false_alarm=False)]
    s = summarize(recs)
    assert s["answered_rate"] == 0.667 and s["false_alarm_rate"] == 0.5 and s["n_items"] == 5


def test_groups_are_str_keys_sorted_with_their_own_means():
    """capability PTR (10, 20), LCG (40), None (70): keys sorted as strings 'LCG' < 'None' < 'PTR';
    PTR mean (10 + 20) / 2 = 15.0; overall (10 + 20 + 40 + 70) / 4 = 35.0."""
    recs = [rec(cap="PTR", total_score=10.0), rec(cap="PTR", total_score=20.0), rec(cap="LCG", total_score=40.0),
            rec(cap=None, total_score=70.0)]
    agg = aggregate(recs)
    assert list(agg["by_capability"]) == ["LCG", "None", "PTR"]
    assert agg["by_capability"]["PTR"] == {"n_items": 2, "total_score": 15.0}
    assert agg["by_capability"]["None"] == {"n_items": 1, "total_score": 70.0}
    assert agg["overall"] == {"n_items": 4, "total_score": 35.0}
    assert list(agg) == ["overall", "by_capability", "by_capability_group", "by_time_type", "by_interaction_type",
                         "by_family", "by_range_length", "by_core_realtime"]


def test_group_spanning_several_cells_sums_them():
    """time type A over three capabilities (5, 10, 30) and B (100): A mean = 45 / 3 = 15.0 with n_items 3;
    core_realtime True / False become the keys 'False' and 'True'."""
    recs = [rec(cap="PTR", tt="A", core=True, total_score=5.0), rec(cap="LCG", tt="A", core=False, total_score=10.0),
            rec(cap="CST", tt="A", core=False, total_score=30.0), rec(cap="PTR", tt="B", core=True, total_score=100.0)]
    agg = aggregate(recs)
    assert agg["by_time_type"]["A"] == {"n_items": 3, "total_score": 15.0}
    assert agg["by_core_realtime"] == {"False": {"n_items": 2, "total_score": 20.0},
                                       "True": {"n_items": 2, "total_score": 52.5}}


def test_values_with_the_same_str_share_a_group():
    """capability 1 (int) and '1' (str) both read '1': one group of 2 with mean (2 + 4) / 2 = 3.0."""
    agg = aggregate([rec(cap=1, total_score=2.0), rec(cap="1", total_score=4.0)])
    assert agg["by_capability"] == {"1": {"n_items": 2, "total_score": 3.0}}


def test_records_without_grouping_fields_group_under_none():
    """A record lacking every grouping key is grouped under 'None' (r.get), like the reference."""
    agg = aggregate([{"total_score": 8.0}, {"total_score": 4.0, "capability": "PTR"}])
    assert agg["by_capability"] == {"None": {"n_items": 1, "total_score": 8.0}, "PTR": {"n_items": 1, "total_score": 4.0}}
    assert agg["by_time_type"] == {"None": {"n_items": 2, "total_score": 6.0}}


def test_headline_rounds_to_one_decimal_and_keeps_none():
    """66.667 -> 66.7, 33.349 -> 33.3; a missing axis stays None; no n_items -> 0."""
    row = headline({"n_items": 3, "total_score": 66.667, "accuracy": 33.349, "timing_accuracy": None})
    assert row == {"n_items": 3, "total": 66.7, "accuracy": 33.3, "timing_accuracy": None, "silence_compliance": None}
    assert headline({})["n_items"] == 0


def test_format_table_layout():
    """Header '' (22) n (6) Total Acc TA SC (8 each) = 60 wide; one decimal; '-' for a missing value."""
    report = {"aggregate": {
        "overall": {"n_items": 2, "total_score": 50.0, "accuracy": 75.25, "timing_accuracy": None,
                    "silence_compliance": 100.0},
        "by_capability_group": {"g": {"n_items": 2, "total_score": 50.0}},
        "by_time_type": {},
        "config": {"delta_s": 5.0, "pre_tol_s": 1.0, "use_gate": False, "judge": None, "mcq_key": None}}}
    lines = format_table(report).splitlines()
    assert lines[0] == " " * 22 + "     n   Total     Acc      TA      SC"
    assert lines[1] == "-" * 60
    assert lines[2] == "Overall" + " " * 15 + "     2    50.0    75.2       -   100.0"
    assert lines[3] == "by capability group:"
    assert lines[4] == "  g" + " " * 19 + "     2    50.0       -       -       -"
    assert lines[5] == "delta 5.0 s, pre_tol 1.0 s, gate off, judge lexical"
    assert len(lines) == 6  # an empty by_time_type block prints nothing
    report["aggregate"]["config"].update(use_gate=True, judge="cache:x", mcq_key="key.jsonl")
    assert format_table(report).splitlines()[-1] == "delta 5.0 s, pre_tol 1.0 s, gate on, judge cache:x, mcq key key.jsonl"


def test_a_group_without_values_for_a_field_leaves_it_out():
    """accuracy only on the PTR record, answered only on PTR: the LCG group has neither key; overall has
    accuracy 50.0 and answered_rate 1 / 1 = 1.0."""
    agg = aggregate([rec(cap="PTR", accuracy=50.0, answered=True), rec(cap="LCG", accuracy=None, total_score=1.0)])
    assert agg["by_capability"]["LCG"] == {"n_items": 1, "total_score": 1.0}
    assert agg["by_capability"]["PTR"] == {"n_items": 1, "accuracy": 50.0, "answered_rate": 1.0}
    assert agg["overall"]["accuracy"] == 50.0 and agg["overall"]["answered_rate"] == 1.0


def test_false_flags_count_in_the_denominator_only():
    """answered False, False, True: 1 / 3 = 0.333 (a truthy count, not a count of keys)."""
    s = summarize([rec(answered=False), rec(answered=False), rec(answered=True)])
    assert s["answered_rate"] == 0.333


def test_format_table_of_an_empty_report():
    """No overall block and no config: the Overall row reads n 0 and '-' in every column; nothing else."""
    lines = format_table({"aggregate": {}}).splitlines()
    assert lines[2:] == ["Overall" + " " * 15 + "     0       -       -       -       -"]
    lines = format_table({"aggregate": {"overall": {"total_score": 1.0}}}).splitlines()
    assert lines[2] == "Overall" + " " * 15 + "     0     1.0       -       -       -"


def test_boundary_means_within_one_cell_are_exact():
    """N records of the same value v (one cell): the mean is v, so the field is round(v, 3). These v sit on a
    3-decimal boundary (their doubles just above or below it): 0.0015 -> 0.002, 0.9995 -> 1.0, 1.0005 -> 1.0,
    2.9995 -> 2.999, 3.0005 -> 3.001, 0.0085 -> 0.009. A float sum of N copies drifts by ulps (e.g. 100 x 0.9995
    gives 0.99949999...) and would round the other way."""
    expected = {0.0015: 0.002, 0.9995: 1.0, 1.0005: 1.0, 2.9995: 2.999, 3.0005: 3.001, 0.0085: 0.009}
    for v, want in expected.items():
        for n in (3, 12, 15, 100, 400):
            assert summarize([rec(total_score=v) for _ in range(n)])["total_score"] == want, (v, n)


def test_mixed_int_and_float_mean_rounds_to_three():
    """[1, 0.1234] -> 1.1234 / 2 = 0.5617 -> 0.562 (three decimals, not four)."""
    assert summarize([rec(delay_mean_s=1), rec(delay_mean_s=0.1234)])["delay_mean_s"] == 0.562


def test_eight_integer_values_keep_an_integer_mean():
    """statistics.mean of eight 1s is the int 1 (exact integer arithmetic), so the field is 1, not 1.0."""
    got = summarize([rec(v_spurious=1) for _ in range(8)])["v_spurious"]
    assert got == 1 and type(got) is int
