"""`score` imports only what scoring needs: no store (sqlite-utils), pandas or argon2 on its path (issue 11,
item 6). The speed itself is a benchmark figure (benchmarks/scoring.py), never a test threshold."""
import json
import subprocess
import sys

HEAVY = ("pandas", "argon2", "sqlite_utils", "annotation.store", "gradio", "torch", "numpy")


def _modules_after(h, argv, cwd):
    code = ("import sys, io, contextlib\n"
            "from app import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            f"    rc = main({argv!r})\n"
            "print(rc, sorted(sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(h.REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}).stdout
    rc, mods = out.split(" ", 1)
    return int(rc), eval(mods)  # noqa: S307 - our own printed list


def test_score_interactionbench_loads_no_store_pandas_or_argon2(tmp_path, h, ib_demo):
    preds = h.write_ib_preds(tmp_path / "preds.jsonl")
    rc, mods = _modules_after(h, ["score", "interactionbench", str(preds), "--data", str(ib_demo),
                                  "--out", str(tmp_path / "o.json")], tmp_path)
    assert rc == 0 and json.loads((tmp_path / "o.json").read_text())["table"]["n_items"] > 0
    assert [m for m in mods if m.split(".")[0] in HEAVY or m in HEAVY] == []


def test_a_refused_score_loads_nothing_heavy_either(tmp_path, h):
    rc, mods = _modules_after(h, ["score", "interactionbench", "--data", str(tmp_path / "nope"),
                                  "--preds", str(tmp_path / "p.jsonl")], tmp_path)
    assert rc == 1
    assert [m for m in mods if m.split(".")[0] in HEAVY or m in HEAVY] == []
