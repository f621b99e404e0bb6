"""`score interactionbench` checks each emission time before scoring: a finite number of seconds inside the
stream (when its length is known) passes; anything else is refused with the line, item and field named."""
import json

import pytest

from runners.checks import CliError
from runners.interactionbench.score_checks import ib_predictions
from runners.score_checks import Checked

ROWS = [{"video_id": "v", "item_index": 0, "duration_s": 32.0},
        {"video_id": "u", "item_index": 0, "duration_s": 0.0}]  # u: length unknown (0)


def _check(tmp_path, vid: str, t, as_reference: bool = False):
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"video_id": vid, "item_index": 0, "emissions": [{"t": t, "content": "x"}]}) + "\n")
    return ib_predictions(str(path), ROWS, {"v#0", "u#0"}, False, False, as_reference, Checked())


@pytest.mark.parametrize("vid,t", [("v", 0), ("v", 0.0), ("v", 31.5), ("v", 32), ("u", 0), ("u", 1e300)],
                         ids=["zero_int", "zero_float", "inside", "at_the_end", "unknown_length", "huge_unknown_length"])
def test_times_inside_the_stream_pass(tmp_path, vid, t):
    assert [line["emissions"][0]["t"] for line in _check(tmp_path, vid, t)] == [t]


@pytest.mark.parametrize("vid,t,message", [
    ("v", 32.001, "expected inside the stream [0, 32] s, found 32.001"),
    ("v", -0.5, "expected inside the stream [0, 32] s, found -0.5"),
    ("u", -1, "expected a time >= 0 s, found -1"),
    ("v", float("inf"), "expected a finite number of stream seconds, found Infinity"),
    ("u", float("inf"), "expected a finite number of stream seconds, found Infinity"),
    ("v", float("nan"), "expected a finite number of stream seconds, found NaN"),
    ("v", True, "expected a finite number of stream seconds, found true"),
    ("v", "3", "expected a finite number of stream seconds, found \"3\""),
    ("v", None, "expected a finite number of stream seconds, found null"),
], ids=["past_the_end", "negative", "negative_unknown_length", "infinite", "infinite_unknown_length", "nan", "bool",
        "text", "null"])
def test_other_times_are_refused_naming_the_field(tmp_path, vid, t, message):
    with pytest.raises(CliError) as exc:
        _check(tmp_path, vid, t)
    assert exc.value.field == "emissions[0].t" and exc.value.item == f"{vid}#0" and exc.value.line == 1
    assert exc.value.message.startswith(message), exc.value.message


def test_as_reference_passes_a_time_past_the_end(tmp_path):
    """The reference scores an emission after the end as it is; only a non-number stops it."""
    assert [line["emissions"][0]["t"] for line in _check(tmp_path, "v", 40.0, as_reference=True)] == [40.0]
