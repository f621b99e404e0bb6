"""What the Verify tab takes from the page's snapshot: the full-precision time and its source only when
the snapshot matches the mark box; the offset applies only to a key press while playing."""
import json

from ibench_ui.verify import prefix_html
from ibench_ui.verify_service import capture as _capture


def test_capture_matching_the_mark_box_gives_full_precision_and_source():
    cap = json.dumps({"t": 7.291437, "playing": True, "source": "key"})
    assert _capture(cap, "7.291") == (7.291437, True, "key")


def test_capture_is_ignored_when_the_mark_was_typed_over_or_is_junk():
    cap = json.dumps({"t": 7.291437, "playing": True, "source": "key"})
    assert _capture(cap, "8.5") == (8.5, False, "typed")
    assert _capture("{not json", "8.5") == (8.5, False, "typed")
    assert _capture(json.dumps({"t": "8.5", "source": "key"}), "8.5") == (8.5, False, "typed")
    # an unknown source is typed (never offset); "Use player time" pressed while playing is a reaction too
    assert _capture(json.dumps({"t": 8.5, "playing": True, "source": "eval()"}), "8.5") == (8.5, False, "typed")
    assert _capture(json.dumps({"t": 8.5, "playing": True, "source": "playhead"}), "8.5") == (8.5, True, "playhead")
    assert _capture(json.dumps({"t": 8.5, "playing": False, "source": "key"}), "8.5") == (8.5, False, "key")


def test_prefix_html_marks_the_current_interval_and_verdicts():
    state = {"status": "incomplete", "plan": [(0.0, 1.0), (1.0, 2.0)], "done": 1, "total": 2, "hits": [],
             "current": (1.0, 2.0), "index": 1, "verdict": None, "verdicts": {"0.000": False}}
    html = prefix_html(state, "x<y")
    assert 'data-start="1.000"' in html and 'data-end="2.000"' in html and 'data-item="x&lt;y"' in html
    assert 'class="ok"' in html and 'class="cur"' in html and "Interval 2 of 2" in html
