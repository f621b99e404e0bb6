"""`score --out` writes its report in pieces (runners.score_cmd.json_pieces) so that encoding 1,000+ records
never holds all their fragments at once; the text must be json.dumps's to the byte, refusals included."""
import json
import random

import pytest

from runners.score_cmd import json_pieces


def _value(rng: random.Random, depth: int = 0):
    r = rng.random()
    if depth < 3 and r < 0.3:
        keys = ["a", "b", "é", '\n"', "\u2028"]
        return {rng.choice(keys) + str(i): _value(rng, depth + 1) for i in range(rng.choice([0, 1, 5, 128, 129, 300]))}
    if depth < 3 and r < 0.5:
        return [_value(rng, depth + 1) for _ in range(rng.choice([0, 1, 127, 128, 129, 257]))]
    return rng.choice([1, -7, 2.5, -0.0, 1e-05, 1e16, 0.1 + 0.2, "x", "ü\u2028\t", "", None, True, False,
                       12345678901234567890])


@pytest.mark.parametrize("seed", range(40))
def test_pieces_spell_json_dumps_exactly(seed):
    rng = random.Random(seed)
    value = _value(rng)
    if seed % 2:  # report-shaped: long lists and dicts one level down, empty ones beside them
        value = {"per_item": {f"v{i}#0": {"total_score": i / 7} for i in range(300)}, "records": _value(rng, 1),
                 "aggregate": value, "empty_list": [], "empty_dict": {}}
    assert "".join(json_pieces(value, allow_nan=False)) == json.dumps(value, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("value", [{}, [], 5, "s", {1: [1] * 300}, {"a": {1: 2, **{str(i): i for i in range(300)}}},
                                   [[1, 2]] * 200, {"a": [{"b": 1}] * 129}])
def test_edge_shapes_and_non_string_keys(value):
    assert "".join(json_pieces(value)) == json.dumps(value, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("value", [[float("inf")], {"x": [float("nan")] * 200}, {"a": {"k": -float("inf")}}])
def test_infinity_is_refused_as_json_refuses_it_and_spelled_as_json_spells_it(value):
    with pytest.raises(ValueError):
        json.dumps(value, allow_nan=False)
    with pytest.raises(ValueError):
        "".join(json_pieces(value, allow_nan=False))
    assert "".join(json_pieces(value)) == json.dumps(value, ensure_ascii=False) + "\n"


def test_a_report_with_an_infinity_is_written_whole_and_leaves_no_temporary_file(tmp_path, capsys):
    """The first attempt stops at the infinity part-way through the file; the retry spells it "inf" (pre_tol_s
    keeps the reference's Infinity) and only the finished file is left."""
    from runners.score_cmd import write_report
    report = {"records": [{"x": 1.5}] * 300,
              "aggregate": {"config": {"pre_tol_s": float("inf")}, "overall": {"v": float("-inf")}}}
    out = tmp_path / "r.json"
    write_report(report, str(out))
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
    assert out.read_text(encoding="utf-8") == (
        '{"records": [' + ", ".join(['{"x": 1.5}'] * 300) + '], '
        '"aggregate": {"config": {"pre_tol_s": Infinity}, "overall": {"v": "inf"}}}\n')
