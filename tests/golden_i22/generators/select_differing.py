"""Which generated cases the code before issue 22 (git fa5641b, /tmp/i22base) scores differently from the
reference through `python app.py score` (with --as-reference, its closest setting), or refuses."""
import json, subprocess, sys, tempfile
from pathlib import Path
sys.path.insert(0, "/work/wt-i22s")
from tests.golden_cases import write_ib_case, ib_cli_args, _same, _norm, write_oi_case, oi_verdicts_file, assert_close
kind, src, dst = sys.argv[1], sys.argv[2], sys.argv[3]
keep = []
for c in json.load(open(src))["cases"]:
    d = Path(tempfile.mkdtemp())
    if kind == "ib":
        paths = write_ib_case(c, d)
        args = ib_cli_args(c, paths, d / "o.json") + ["--as-reference"]
    else:
        outputs = write_oi_case(c, d); v = oi_verdicts_file(c, d / "judge")
        args = ["score", "omniinteract", "--data", str(d), "--outputs", str(outputs), "--judge", f"replay:{v}",
                "--out", str(d / "o.json")]
        if c["cli_extra_args"]:
            args += ["--reference-args=" + " ".join(c["cli_extra_args"])]
    r = subprocess.run([sys.executable, "/tmp/i22base/app.py", *args], capture_output=True, text=True, cwd="/tmp/i22base")
    why = None
    if r.returncode != 0:
        why = r.stderr.strip().splitlines()[-1][:200]
    else:
        got = json.loads((d / "o.json").read_text())
        if kind == "ib":
            diffs = _same(_norm({k: got[k] for k in ("per_item", "records", "aggregate", "table")}, str(d)), c["expected"])
            why = diffs[0] if diffs else None
        else:
            try:
                assert_close(got["summary"], c["expected"]["summary"], "summary")
            except AssertionError as e:
                why = str(e)[:200]
    if why:
        c["before_issue_22"] = why
        keep.append(c)
json.dump({"cases": keep}, open(dst, "w"), ensure_ascii=False, allow_nan=True)
print(len(keep), "of", len(json.load(open(src))["cases"]), "differ before issue 22")
