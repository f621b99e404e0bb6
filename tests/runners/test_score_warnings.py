"""Issue 22: one test per warning kind of `score`. Input the reference scores by tolerating it gets the reference's
number (hand-worked below from the reference's rules, or a golden case's), one warning line per kind with its count
and first file, item and field (on stderr and under `warnings` in the output), and `--strict` refuses it in one
error line (exit 1, no output written). The Python API gives the same report and refuses the same way."""
import contextlib
import io
import json

import pytest

from app import main
from runners.checks import CliError
from runners.score_api import score_files

# One video of 30 s, one PTR trigger at 10 s ("ball"). A reply "ball" at 12 s: d = 2, TA = 100 (1 - 2/5) = 60.0,
# no violation -> SC 100.0, timing hmean(60, 100) = 75.0, accuracy 100.0 (same words), total mean(100, 75) = 87.5;
# delay_mean_s 2 (an int: the reference computes max(0.0, 12 - 10) on the integers as written).
ITEM = {"capability": "PTR", "time_type": "B", "question": "tell me when the ball appears",
        "answers": [{"time_s": 10, "content": "ball"}]}
GOOD = {"video_id": "v1", "item_index": 0, "emissions": [{"t": 12, "content": "ball"}]}
TOTAL_GOOD = 87.5
# Silent on the item: TA 0.0, SC undefined (None), accuracy 0.0, timing 0.0, total mean(0, 0) = 0.0.
TOTAL_SILENT = 0.0


def _dataset(root, item=ITEM):
    path = root / "data" / "annotations" / "d" / "v1.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"video_id": "v1", "domain": "d", "duration_s": 30, "items": [item]}))
    return root / "data"


def _preds(root, *lines, raw=None):
    path = root / "preds.jsonl"
    path.write_text(raw if raw is not None else "".join(json.dumps(x) + "\n" for x in lines))
    return path


def _score(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, err.getvalue()


def _check(tmp_path, data, preds, kind, count, first, total, extra=(), record=None):
    """Default: the reference's total, the warning on stderr and in the report; --strict: one error line."""
    out = tmp_path / "o.json"
    code, err = _score(["score", "interactionbench", "--data", data, preds, "--out", out, *extra])
    assert code == 0, err
    report = json.loads(out.read_text())
    line = f"{kind}: {count} time(s), first {first}"
    assert line in report["warnings"]
    assert [x for x in err.splitlines() if x.startswith(f"warning: {kind}:")] == [f"warning: {line}"]
    assert report["table"]["total"] == total
    if record is not None:
        rec = report["records"][0]
        for k, v in record.items():
            assert rec[k] == v and type(rec[k]) is type(v), (k, rec[k])
    api = score_files("interactionbench", data, preds, **_api(extra))
    assert api["table"] == report["table"] and line in api["warnings"]
    out.unlink()
    code, err = _score(["score", "interactionbench", "--data", data, preds, "--out", out, "--strict", *extra])
    lines = err.splitlines()
    assert code == 1 and len(lines) == 1 and lines[0].startswith("error: ") and "--strict" in lines[0], err
    assert not out.exists()
    with pytest.raises(CliError, match="--strict"):
        score_files("interactionbench", data, preds, strict=True, **_api(extra))
    return report


def _api(extra):
    """The command-line flags of `extra` as score_files keywords."""
    opts, args = {}, list(extra)
    while args:
        flag = args.pop(0)
        name, _, value = flag.lstrip("-").partition("=")
        opts[name.replace("-", "_")] = value or str(args.pop(0))
    return opts


def test_the_clean_input_has_no_warning(tmp_path):
    data, preds = _dataset(tmp_path), _preds(tmp_path, GOOD)
    code, err = _score(["score", "interactionbench", "--data", data, preds, "--out", tmp_path / "o.json",
                        "--strict"])
    report = json.loads((tmp_path / "o.json").read_text())
    assert code == 0 and report["warnings"] == [] and report["table"]["total"] == TOTAL_GOOD
    assert report["records"][0]["delay_mean_s"] == 2 and type(report["records"][0]["delay_mean_s"]) is int


def test_emission_time_outside_the_stream(tmp_path):
    # 40 s > 30 s: attributed at 41 to the matched event -> redundant: SC 100 (1 - 1/1) = 0.0, timing hmean(60, 0)
    # = 0.0, total mean(100, 0) = 50.0
    line = {**GOOD, "emissions": GOOD["emissions"] + [{"t": 40, "content": "ball"}]}
    data, preds = _dataset(tmp_path), _preds(tmp_path, line)
    _check(tmp_path, data, preds, "emission time outside the stream", 1,
           f"{preds}:1 v1#0 emissions[1].t: expected inside the stream [0, 30] s, found 40", 50.0,
           record={"v_redundant": 1, "silence_compliance": 0.0})


def test_prediction_for_an_unknown_item(tmp_path):
    data = _dataset(tmp_path)
    preds = _preds(tmp_path, GOOD, {"video_id": "ghost", "item_index": 0, "emissions": []},
                   {"video_id": "ghost", "item_index": 1, "emissions": []})
    _check(tmp_path, data, preds, "prediction for an unknown item", 2,
           f"{preds}:2 ghost#0 video_id: no such item in the dataset; ignored", TOTAL_GOOD)


def test_item_index_not_an_integer(tmp_path):
    # the reference keys the line "v1#" + str("0") = "v1#0": it is item 0's line
    data, preds = _dataset(tmp_path), _preds(tmp_path, {**GOOD, "item_index": "0"})
    _check(tmp_path, data, preds, "item_index not an integer >= 0", 1,
           f'{preds}:1 item_index: expected an integer >= 0, found "0"; the reference keys the line v1#"0"',
           TOTAL_GOOD)


def test_second_prediction_line_for_an_item(tmp_path):
    # the reference keeps the last line (no emission): the item is scored silent
    data, preds = _dataset(tmp_path), _preds(tmp_path, GOOD, {**GOOD, "emissions": []})
    _check(tmp_path, data, preds, "second prediction line for an item", 1,
           f"{preds}:2 v1#0 video_id: a second prediction line for this item (first at line 1); the reference keeps "
           "the last", TOTAL_SILENT)


def test_emissions_not_a_list(tmp_path):
    # the reference reads `emissions or []`: "" is no emission
    data, preds = _dataset(tmp_path), _preds(tmp_path, {**GOOD, "emissions": ""})
    _check(tmp_path, data, preds, "emissions not a list", 1,
           f'{preds}:1 v1#0 emissions: expected a list of {{t, content}}, found ""; scored as none', TOTAL_SILENT)


def test_empty_prediction_file(tmp_path):
    data, preds = _dataset(tmp_path), _preds(tmp_path, raw="")
    _check(tmp_path, data, preds, "empty prediction file", 1,
           f"{preds} --preds: expected one prediction line per item, found an empty file; every item scored silent",
           TOTAL_SILENT)


def test_video_id_not_a_string(tmp_path):
    # the reference keys the line "5#0": no such item, ignored
    data, preds = _dataset(tmp_path), _preds(tmp_path, GOOD, {"video_id": 5, "item_index": 0, "emissions": []})
    report = _check(tmp_path, data, preds, "video_id not a non-empty string", 1,
                    f"{preds}:2 video_id: expected a non-empty string, found 5", TOTAL_GOOD)
    assert f"prediction for an unknown item: 1 time(s), first {preds}:2 5#0 video_id: no such item in the dataset; " \
           "ignored" in report["warnings"]


def test_nan_emission_time_on_a_silence_required_item(tmp_path):
    # the reference only counts a negative item's emissions: one -> SC 100 max(0, 1 - 1/1) = 0.0 = total
    data = _dataset(tmp_path, {**ITEM, "is_negative": True})
    preds = _preds(tmp_path, raw='{"video_id": "v1", "item_index": 0, "emissions": [{"t": NaN, "content": "x"}]}\n')
    _check(tmp_path, data, preds, "NaN emission time on a silence-required item", 1,
           f"{preds}:1 v1#0 emissions[0].t: expected a finite number of stream seconds, found NaN; the item is "
           "silence-required, so it counts as a response", 0.0, record={"family": "negative", "n_violations": 1})


def test_setting_outside_the_papers_range(tmp_path):
    # delta inf: s = max(0, 1 - 2/inf) = 1 -> TA 100.0, timing 100.0, total 100.0
    data, preds = _dataset(tmp_path), _preds(tmp_path, GOOD)
    _check(tmp_path, data, preds, "setting outside the paper's range", 1,
           "--delta: inf is outside the paper's range; scored as the reference scores it", 100.0,
           extra=["--delta", "inf"])


def test_negative_tolerance_is_a_setting_the_reference_computes_with(tmp_path):
    # pre_tol -0.5: attributed at 12 - 0.5 = 11.5 >= 10 -> matched with d = 2: the clean input's 87.5
    data, preds = _dataset(tmp_path), _preds(tmp_path, GOOD)
    _check(tmp_path, data, preds, "setting outside the paper's range", 1,
           "--pre-tol: -0.5 is outside the paper's range; scored as the reference scores it", TOTAL_GOOD,
           extra=["--pre-tol=-0.5"])


def test_empty_items_list(tmp_path):
    data, preds = _dataset(tmp_path), _preds(tmp_path, GOOD)
    split = tmp_path / "split.txt"
    split.write_text("\n")
    report = _check(tmp_path, data, preds, "empty --items list", 1,
                    f"{split} --items: no item ids: no item is scored (n_items 0)", None, extra=["--items", split])
    assert report["table"] == {"n_items": 0, "total": None, "accuracy": None, "timing_accuracy": None,
                               "silence_compliance": None}


def test_unknown_items_id(tmp_path):
    data, preds = _dataset(tmp_path), _preds(tmp_path, GOOD)
    split = tmp_path / "split.txt"
    split.write_text("v1#0\nghost#1\n")
    _check(tmp_path, data, preds, "unknown --items id", 1, f"{split} ghost#1 --items: no such item in the dataset; "
           "ignored", TOTAL_GOOD, extra=["--items", split])


def test_annotation_error_the_reference_reads(tmp_path):
    # an unknown capability is scored as a trigger by the reference: the clean input's 87.5, grouped under "XYZ"
    data, preds = _dataset(tmp_path, {**ITEM, "capability": "XYZ"}), _preds(tmp_path, GOOD)
    report = _check(tmp_path, data, preds, "annotation capability", 1,
                    "annotations/d/v1.json v1#0 capability: unknown capability 'XYZ'; expected one of LVM, IVQA, "
                    "PTR, TOA, CIR, CST, LCG, BRC", TOTAL_GOOD)
    assert list(report["aggregate"]["by_capability"]) == ["XYZ"]


def test_annotation_error_the_reference_cannot_read_stays_an_error(tmp_path):
    data, preds = _dataset(tmp_path, {**ITEM, "answers": ["ball"]}), _preds(tmp_path, GOOD)
    code, err = _score(["score", "interactionbench", "--data", data, preds, "--out", tmp_path / "o.json"])
    assert code == 1 and err.count("\n") == 1 and "v1#0 answers[0]: expected an object" in err
    assert not (tmp_path / "o.json").exists()


def test_a_list_valued_grouping_field_groups_under_its_str(tmp_path):
    data, preds = _dataset(tmp_path, {**ITEM, "interaction_type": ["QA"]}), _preds(tmp_path, GOOD)
    report = score_files("interactionbench", data, preds)
    assert list(report["aggregate"]["by_interaction_type"]) == ["['QA']"]
    assert report["table"]["total"] == TOTAL_GOOD


# ---------------------------------------------------------------- OmniInteract, ProactiveBench, InteractScope

def _oi_rows(case):
    """Every 1Q1A annotation row of a case (a file that is a list of rows, or an object with an `items` list)."""
    docs = [doc if isinstance(doc, list) else doc.get("items") if isinstance(doc, dict) else None
            for rel, doc in case["annotations"].items() if "/annotations/" in rel]
    return [r for doc in docs if isinstance(doc, list) for r in doc if isinstance(r, dict)]


OI_KINDS = {  # case of tests/golden_i22 -> (warning kind, first message, which rows the reference reads through)
    "i22_is_interrupted_null_2": ("annotation [].is_interrupted", "is_interrupted: expected true/false, got null",
                                  lambda r: "is_interrupted" in r and r["is_interrupted"] is None),
    "i22_question_type_other_5": ("annotation [].question_type", 'question_type: unknown question_type "other"',
                                  lambda r: r.get("question_type") not in ("realtime", "proactive")),
    "i22_question_text_missing_2": ("annotation [].question_text", "question_text: missing field",
                                    lambda r: "question_text" not in r),
}


@pytest.mark.parametrize("case_id", sorted(OI_KINDS))
def test_omniinteract_annotation_rows_the_reference_reads(tmp_path, case_id):
    """A golden case of tests/golden_i22 (the reference's own summary): the reference's number, one warning line
    for the kind counting every such row, and --strict refusing in one line."""
    from tests.golden_cases import assert_close, oi_verdicts_file, write_oi_case
    from tests.runners.test_score_reference_edges import OI
    case = next(c for c in OI if c["case_id"] == case_id)
    kind, message, odd = OI_KINDS[case_id]
    outputs = write_oi_case(case, tmp_path)
    judge = f"replay:{oi_verdicts_file(case, tmp_path / 'judge')}"
    args = ["score", "omniinteract", "--data", tmp_path, "--outputs", outputs, "--judge", judge,
            "--out", tmp_path / "o.json"]
    if case["cli_extra_args"]:  # the reference's own flags the case ran with
        args.append("--reference-args=" + " ".join(case["cli_extra_args"]))
    code, err = _score(args)
    assert code == 0, err
    report = json.loads((tmp_path / "o.json").read_text())
    assert_close(report["summary"], case["expected"]["summary"], "summary")
    warned = [w for w in report["warnings"] if w.startswith(f"{kind}: ")]
    count = sum(map(odd, _oi_rows(case)))
    assert count > 0 and len(warned) == 1 and warned[0].startswith(f"{kind}: {count} time(s), first data/")
    assert message in warned[0]
    assert [x for x in err.splitlines() if x.startswith(f"warning: {kind}:")] == ["warning: " + warned[0]]
    (tmp_path / "o.json").unlink()
    code, err = _score(args + ["--strict"])
    assert code == 1 and err.count("\n") == 1 and "--strict" in err and not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("bench", ["proactivebench", "interactscope"])
def test_our_own_scorers_warn_of_a_prediction_for_an_unknown_item(tmp_path, bench):
    """Our own checks, the same split: an unknown item's line is ignored with a warning (numbers unchanged)."""
    from annotation.loaders import demo_dir
    data = demo_dir(bench)
    key = "item_id" if bench == "proactivebench" else "interaction_id"
    preds = _preds(tmp_path, {key: "ghost", "response_seconds": []} if bench == "proactivebench" else
                   {key: "ghost", "responses": []})
    plain = score_files(bench, data, preds)
    warned = [w for w in plain["warnings"] if w.startswith("prediction for an unknown item: 1 time(s), first ")]
    assert len(warned) == 1 and "ghost" in warned[0]
    assert plain["per_item"] == {} or all(not r.get("predicted") for r in plain["per_item"].values())
    with pytest.raises(CliError, match="--strict"):
        score_files(bench, data, preds, strict=True)
