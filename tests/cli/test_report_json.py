"""`score --out` writes its report with ujson (runners.score_report.write_report): the text must read back, with json,
as exactly the values json would have written (floats to the last bit, big integers, keys spelled as json spells
them, any Unicode), an infinity as the reference spells it, and a refused or failed write must leave no file."""
import json
import math
import random

import pytest

from runners.score_report import write_report


def _value(rng: random.Random, depth: int = 0):
    r = rng.random()
    if depth < 3 and r < 0.3:
        keys = ["a", "b", "é", '\n"', "\u2028", "a/b", "\x00"]
        return {rng.choice(keys) + str(i): _value(rng, depth + 1) for i in range(rng.choice([0, 1, 5, 129]))}
    if depth < 3 and r < 0.5:
        return [_value(rng, depth + 1) for _ in range(rng.choice([0, 1, 3, 129]))]
    return rng.choice([1, -7, 2.5, -0.0, 1e-05, 1e-7, 1e16, 0.1 + 0.2, 5e-324, 1.7976931348623157e308, rng.random(),
                       rng.uniform(-1e6, 1e6), round(rng.uniform(0, 100), 1), "x", "ü\u2028\t", "", "\U0001F600",
                       None, True, False, 12345678901234567890, -2 ** 70])


def _written(tmp_path, value) -> str:
    out = tmp_path / "r.json"
    write_report(value, str(out))
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
    return out.read_text(encoding="utf-8")


@pytest.mark.parametrize("seed", range(40))
def test_the_report_reads_back_as_the_values_json_writes(tmp_path, seed):
    rng = random.Random(seed)
    report = {"per_item": {f"v{i}#0": {"total_score": i / 7} for i in range(300)}, "records": _value(rng, 1),
              "aggregate": _value(rng)}
    text = _written(tmp_path, report)
    assert text.endswith("}\n") and text.count("\n") == 1
    back = json.loads(text)
    assert back == json.loads(json.dumps(report))
    floats = [(a, b) for a, b in zip(_leaves(back), _leaves(report)) if isinstance(b, float)]
    assert all(math.copysign(1, a) == math.copysign(1, b) for a, b in floats)  # -0.0 stays -0.0


def _leaves(v):
    if isinstance(v, dict):
        for x in v.values():
            yield from _leaves(x)
    elif isinstance(v, list):
        for x in v:
            yield from _leaves(x)
    else:
        yield v


def test_keys_that_are_not_text_are_spelled_as_json_spells_them(tmp_path):
    report = {"a": {1: "one", 2.5: "two and a half", None: "none"}, "b": {True: "yes", False: "no"}}
    assert json.loads(_written(tmp_path, report)) == {"a": {"1": "one", "2.5": "two and a half", "null": "none"},
                                                      "b": {"true": "yes", "false": "no"}}


def test_a_report_with_an_infinity_is_written_whole_and_leaves_no_temporary_file(tmp_path):
    """The first attempt refuses the infinity; the retry spells it "inf" (pre_tol_s keeps the reference's
    Infinity) and only the finished file is left."""
    report = {"records": [{"x": 1.5}] * 3,
              "aggregate": {"config": {"pre_tol_s": float("inf")}, "overall": {"v": float("-inf")}}}
    assert _written(tmp_path, report) == (
        '{"records":[{"x":1.5},{"x":1.5},{"x":1.5}],'
        '"aggregate":{"config":{"pre_tol_s":Infinity},"overall":{"v":"inf"}}}\n')


def test_nan_is_written_as_json_writes_it(tmp_path):
    back = json.loads(_written(tmp_path, {"aggregate": {"overall": {"v": float("nan")}}}))
    assert math.isnan(back["aggregate"]["overall"]["v"])


def test_a_value_json_cannot_write_is_refused_and_leaves_nothing(tmp_path):
    with pytest.raises(TypeError):
        write_report({"records": [object()]}, str(tmp_path / "r.json"))
    assert list(tmp_path.iterdir()) == []
