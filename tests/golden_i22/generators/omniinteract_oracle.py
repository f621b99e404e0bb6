"""Run the OmniInteract reference (eval/evaluation, snapshot de304ce) on one golden-format case, with the judge's
HTTP call replaced by the case's stored replies; print the canonical summary as JSON (or an error)."""
import json
import shutil
import sys
import tempfile
from pathlib import Path

REF = Path("/tmp/ref-oi/eval")


def materialise(case, root: Path):
    for rel, content in {**case["annotations"], **case["model_outputs"]}.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".jsonl"):
            p.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in content), encoding="utf-8")
        elif isinstance(content, str) and not rel.endswith(".json"):
            p.write_text(content, encoding="utf-8")
        else:
            p.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")


def run(case):
    root = Path(tempfile.mkdtemp(prefix="oiref-"))
    materialise(case, root)
    shutil.copytree(REF, root / "eval")
    sys.path[:0] = [str(root / "eval" / "evaluation")]
    import llm_judge
    import run_batch_unified_eval as rb
    current = {"sample": None, "slot": None, "stage": None}
    verdicts = case["judge_verdicts"]

    def gen(self, system_prompt, user_prompt):
        v = verdicts.get(current["sample"], {}).get(str(current["slot"]), {}).get(current["stage"])
        if v is None:
            raise RuntimeError(f"no stored verdict for {current}")
        if "api_error" in v:
            raise llm_judge.JudgeAPICallError(v["api_error"])
        return v["raw"]
    llm_judge.APIJudge._generate = gen
    for stage, name in (("early", "judge_early"), ("core", "judge_core"),
                        ("interrupted_partial", "judge_interrupted_partial")):
        orig = getattr(llm_judge.APIJudge, name)

        def wrap(self, slot, *a, _orig=orig, _stage=stage, **k):
            current["slot"], current["stage"] = slot.get("slot_id"), _stage
            return _orig(self, slot, *a, **k)
        setattr(llm_judge.APIJudge, name, wrap)
    orig_eval = rb._eval_one

    def eval_one(item, judge, out_dir, args):
        gt = Path(str(item["gt_json"])).resolve()
        current["sample"] = str(item.get("sample_id") or gt.stem)
        return orig_eval(item, judge, out_dir, args)
    rb._eval_one = eval_one
    rb._repo_root = lambda: root
    import os
    os.chdir(root)
    out = root / "out"
    sys.argv = ["x", "--batch_summary_json", str(root / "outputs/synth/batch_summary.json"), "--out_dir", str(out),
                "--output_root", str(root / "outputs/synth"), "--judge_api_key", "k", *case.get("cli_extra_args", [])]
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        rb.main()
    return json.loads((out / "unified_eval_summary.json").read_text())


if __name__ == "__main__":
    case = json.loads(Path(sys.argv[1]).read_text())
    try:
        res = run(case)
        print(json.dumps({"ok": True, "summary": res["summary"]}))
    except BaseException as exc:  # noqa: BLE001
        print(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}"}))
