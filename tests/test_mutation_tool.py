"""benchmarks/mutation.py refuses before any work when mutmut is missing, and never reports a goal met on
nothing measured; its exit status says whether the goal was met (hand-made group results, no mutmut run)."""
from collections import Counter

import pytest

from benchmarks import mutation


def test_a_missing_mutmut_is_one_error_line_before_any_work(monkeypatch, tmp_path):
    monkeypatch.setattr(mutation.importlib.util, "find_spec", lambda name: None if name == "mutmut" else object())
    monkeypatch.setattr(mutation, "run_group", lambda *a, **k: pytest.fail("ran a group without mutmut"))
    with pytest.raises(SystemExit) as e:
        mutation.main(["--group", "interchange", "--workdir", str(tmp_path)])
    assert str(e.value) == "error: mutmut: not installed (pip install -r requirements-dev.txt)"


def test_a_group_with_no_mutant_measured_is_an_error_not_a_goal_met(monkeypatch, tmp_path):
    monkeypatch.setattr(mutation.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(mutation, "run_group", lambda *a, **k: ({}, []))
    with pytest.raises(SystemExit) as e:
        mutation.main(["--group", "interchange", "--workdir", str(tmp_path), "--only", "nothing.*"])
    assert str(e.value) == (f"error: group 'interchange': no mutant was measured matching --only; "
                            f"see {tmp_path / 'mutmut.log'}")


@pytest.mark.parametrize("killed,survived,status", [(9, 1, 0), (8, 2, 1)])  # 90 % is the goal: met, not met
def test_the_exit_status_says_whether_the_goal_was_met(monkeypatch, tmp_path, capsys, killed, survived, status):
    monkeypatch.setattr(mutation.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(mutation, "documented_equivalents", lambda: set())
    names = [f"annotation.interchange.x_f__mutmut_{k} (survived)" for k in range(survived)]
    monkeypatch.setattr(mutation, "run_group", lambda *a, **k: (
        {"annotation/interchange.py": Counter(killed=killed, survived=survived)}, names))
    assert mutation.main(["--group", "interchange", "--workdir", str(tmp_path)]) == status
    assert ("NOT met" in capsys.readouterr().out) == bool(status)
