"""annotation.jsonio reads through json's C scanner directly (json.loads's wrappers skipped) and through json.loads
for everything the scanner refuses: the values and the Problems a file gives are those json.loads gives (expected
values written out by hand)."""
import math

from annotation.jsonio import read_json, read_jsonl_lines


def _read(tmp_path, raw: bytes):
    p = tmp_path / "f.json"
    p.write_bytes(raw)
    return read_json(p, "f.json")


def test_plain_values_are_read(tmp_path):
    assert _read(tmp_path, b'{"a": [1, 2.5, -0.0, "\\u00e9", null, true], "a": 3}') == ({"a": 3}, None)


def test_integers_beyond_64_bits_stay_exact_integers(tmp_path):
    value, prob = _read(tmp_path, b'{"n": 123456789012345678901234567890, "m": -9223372036854775809}')
    assert prob is None
    assert value == {"n": 123456789012345678901234567890, "m": -9223372036854775809}
    assert type(value["n"]) is int and type(value["m"]) is int


def test_nan_infinity_and_overflow_read_as_json_reads_them(tmp_path):
    value, prob = _read(tmp_path, b'[NaN, Infinity, -Infinity, 1e400]')
    assert prob is None
    assert math.isnan(value[0]) and value[1:] == [math.inf, -math.inf, math.inf]


def test_a_lone_surrogate_escape_reads_as_json_reads_it(tmp_path):
    assert _read(tmp_path, b'["\\ud800"]') == (["\ud800"], None)


def test_a_bom_is_dropped(tmp_path):
    assert _read(tmp_path, b'\xef\xbb\xbf{"a": 1}') == ({"a": 1}, None)


def test_bad_files_keep_their_messages(tmp_path):
    _, prob = _read(tmp_path, b'{"a": 1,\n  "b": }')
    assert prob.message == "invalid JSON at line 2 column 8: Expecting value (truncated or hand-edited file?)"
    _, prob = _read(tmp_path, b"  \n")
    assert prob.message == "file is empty; expected a JSON document"
    _, prob = _read(tmp_path, b'{"a": "\xff"}')
    assert prob.message.startswith("not UTF-8: byte 0xff at offset 7 (line 1)")
    _, prob = _read(tmp_path, b"[" * 100_000 + b"]" * 100_000)
    assert "nested at most" in prob.message
    _, prob = read_json(tmp_path / "missing.json", "missing.json")
    assert prob.message.startswith("file not found")
    (tmp_path / "dir.json").mkdir()
    _, prob = read_json(tmp_path / "dir.json", "dir.json")
    assert prob.message.startswith("file not found")


def test_jsonl_lines_read_each_value_as_json_does(tmp_path):
    p = tmp_path / "p.jsonl"
    p.write_text('{"a": 1}\n\n[18446744073709551616]\n{"b": NaN}\n{oops\n', encoding="utf-8")
    pairs, problems = read_jsonl_lines(p, "p.jsonl")
    assert pairs[0] == (1, {"a": 1}) and pairs[1] == (3, [18446744073709551616]) and type(pairs[1][1][0]) is int
    assert pairs[2][0] == 4 and math.isnan(pairs[2][1]["b"]) and len(pairs) == 3
    assert [p.message for p in problems] == [
        "invalid JSON at line 5 column 2: Expecting property name enclosed in double quotes"]


def test_whitespace_around_a_value_and_extra_data_read_as_json_reads_them(tmp_path):
    assert _read(tmp_path, b' \t\r\n{"a": [1]}\n\n') == ({"a": [1]}, None)
    _, prob = _read(tmp_path, b'{"a": 1} {"b": 2}')
    assert prob.message == "invalid JSON at line 1 column 10: Extra data (truncated or hand-edited file?)"
    _, prob = _read(tmp_path, '{"a": 1}\u00a0'.encode())  # not JSON whitespace
    assert prob.message == "invalid JSON at line 1 column 9: Extra data (truncated or hand-edited file?)"
    _, prob = _read(tmp_path, b'\x0b{"a": 1}')
    assert prob.message == "invalid JSON at line 1 column 1: Expecting value (truncated or hand-edited file?)"
