"""`score` imports only what scoring needs: no store (sqlite-utils), pandas or argon2 on its path (issue 11,
item 6). The speed itself is a benchmark figure (benchmarks/scoring.py), never a test threshold."""
import importlib
import json
import subprocess
import sys

import pytest

HEAVY = ("pandas", "argon2", "sqlite_utils", "annotation.store", "gradio", "torch", "numpy")
# not scoring's: the other verbs' modules, the judges a lexical score does not use, the data model and media
# probing (score reads rows), the hashing and logging libraries they pull in
NOT_SCORING = ("runners.cli.users", "runners.cli.report", "runners.cli.run", "runners.cli.export", "runners.cli.study",
               "runners.cli.validate", "runners.cli.list_items", "ibench_ui", "runners.export", "runners.run_plan",
               "runners.omniinteract.score_plan", "runners.proactivebench.score_plan",
               "runners.interactscope.score_plan",
               "scoring.judges.openai_judge", "scoring.judges.cache", "scoring.judges.prompts",
               "scoring.judges.spec", "scoring.judges.semantic", "scoring.judges.transformers_judge",
               "annotation.model", "annotation.dataset", "annotation.media", "getpass", "hashlib")


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
    assert [m for m in NOT_SCORING if m in mods] == []


def test_judge_names_stay_importable_from_the_package():
    """scoring.judges imports each submodule on first use; every public name still resolves."""
    import scoring.judges as judges
    for name in judges.__all__:
        assert getattr(judges, name) is getattr(importlib.import_module(
            f"scoring.judges.{judges._MODULE_OF[name]}"), name)
    from scoring.judges import OpenAIJudge, parse_judge_spec  # noqa: F401
    with pytest.raises(AttributeError):
        judges.no_such_name  # noqa: B018


def test_other_verbs_still_run_and_list_in_help(capsys):
    """Every verb is listed in the full help (none of their modules imported) and runs when asked."""
    from app import main
    from runners.cli import build_parser
    text = build_parser().format_help()
    for name in ("validate", "list", "export", "run", "score", "users", "report"):
        assert name in text
    with pytest.raises(SystemExit):
        main(["report", "-h"])
    assert "--min-n" in capsys.readouterr().out


def test_a_refused_score_loads_nothing_heavy_either(tmp_path, h):
    rc, mods = _modules_after(h, ["score", "interactionbench", "--data", str(tmp_path / "nope"),
                                  "--preds", str(tmp_path / "p.jsonl")], tmp_path)
    assert rc == 1
    assert [m for m in mods if m.split(".")[0] in HEAVY or m in HEAVY] == []


def test_score_interactionbench_imports_no_logging(tmp_path, h, ib_demo):
    """Only the unknown-predictions warning of the Python API logs; the CLI path never imports logging."""
    preds = h.write_ib_preds(tmp_path / "preds.jsonl")
    rc, mods = _modules_after(h, ["score", "interactionbench", str(preds), "--data", str(ib_demo),
                                  "--out", str(tmp_path / "o.json")], tmp_path)
    assert rc == 0 and "logging" not in mods


def _app(h, argv, cwd):
    """`python app.py <argv>` as a user runs it (stdout and stderr to pipes, so they are block-buffered)."""
    return subprocess.run([sys.executable, str(h.REPO / "app.py"), *argv], cwd=cwd, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})


def test_score_ends_without_teardown_yet_loses_no_output(tmp_path, h, ib_demo):
    """`score` skips the interpreter's teardown (app._exit_now): its piped table, its stderr line and its
    report must all be whole, and its exit code kept, as with a normal exit."""
    preds = h.write_ib_preds(tmp_path / "preds.jsonl")
    out = tmp_path / "o.json"
    fast = _app(h, ["score", "interactionbench", str(preds), "--data", str(ib_demo), "--out", str(out)], tmp_path)
    assert fast.returncode == 0, fast.stderr
    assert fast.stderr.strip() == f"wrote {out}"
    lines = fast.stdout.splitlines()
    assert lines[0].split() == ["n", "Total", "Acc", "TA", "SC"] and lines[-1].startswith("delta 5.0 s, pre_tol")
    # the same command in a process that exits normally: byte-identical stdout and report
    normal = subprocess.run([sys.executable, "-c", "import sys; from app import main; sys.exit(main(sys.argv[1:]))",
                             "score", "interactionbench", str(preds), "--data", str(ib_demo), "--out",
                             str(tmp_path / "n.json")], cwd=h.REPO, capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    assert normal.returncode == 0 and normal.stdout == fast.stdout
    assert (tmp_path / "n.json").read_bytes() == out.read_bytes()
    json.loads(out.read_text())


def test_a_refused_score_keeps_its_exit_code_and_its_one_error_line(tmp_path, h):
    res = _app(h, ["score", "interactionbench", "--data", str(tmp_path / "nope"), "--preds",
                   str(tmp_path / "p.jsonl")], tmp_path)
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: ") and "--data" in res.stderr


def test_score_pauses_the_cycle_collector_only_for_itself_and_only_without_a_model(tmp_path, h, ib_demo, cli,
                                                                                    monkeypatch):
    """A lexical score runs with the collector paused and leaves it running for its caller; a model judge's
    score keeps it running (its clients may hold reference cycles)."""
    import gc

    from runners import score_command as score_verb
    seen = []
    real = score_verb._score
    monkeypatch.setattr(score_verb, "_score", lambda a: (seen.append((a.judge, gc.isenabled())), real(a))[1])
    preds = h.write_ib_preds(tmp_path / "preds.jsonl")
    assert gc.isenabled()
    assert cli("score", "interactionbench", "--data", ib_demo, "--preds", preds, "--out", tmp_path / "o.json").code == 0
    assert gc.isenabled()
    r = cli("score", "interactionbench", "--data", ib_demo, "--preds", preds, "--judge", "openai:judge-model",
            "--db", tmp_path / "s.sqlite", "--out", tmp_path / "o2.json")
    assert gc.isenabled()
    assert seen[0] == (None, False) and seen[1] == ("openai:judge-model", True), (seen, r.err)
