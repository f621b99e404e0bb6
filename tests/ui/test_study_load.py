"""The study load benchmark at CI size against a real server: every acknowledged response is stored, no
retry adds a row, at human pace and back to back. (Its speed figures are printed by the benchmark.)"""
import tempfile
from pathlib import Path

from benchmarks.study_load import free_port, run_phase, start_server, stop_process


def test_ten_by_ten_loses_and_duplicates_nothing():
    tmp = Path(tempfile.mkdtemp(prefix="study_load_test_"))
    db, port = tmp / "ibench.sqlite", free_port()
    proc = start_server(db, port)
    try:
        base = f"http://127.0.0.1:{port}"
        paced = run_phase("realistic", base, db, proc.pid, 10, 10, 0.05, 0.2, 1)
        burst = run_phase("stress", base, db, proc.pid, 10, 10, 0.0, 0.2, 2)
        # the same through the gr.HTML server function (the page's other transport for session calls)
        legacy = run_phase("stress", base, db, proc.pid, 10, 10, 0.0, 0.2, 3, via="gradio")
    finally:
        stop_process(proc)
    assert (paced["via"], burst["via"], legacy["via"]) == ("route", "route", "gradio")
    for res in (paced, burst, legacy):
        # a request left without an answer is re-sent with the same id, as the page does: all 100 end acknowledged
        assert res["acked"] == 100 and res["stored"] == 100
        assert res["lost"] == 0 and res["duplicated"] == 0
    assert paced["retries"] + burst["retries"] + legacy["retries"] > 0  # same-id retries were exercised (seeded: 20 % of 300)
