"""The reference command lines work as given (issue 11, item 5): `ibench eval` spellings on `score
interactionbench` (positional predictions file, --use-gate, api: judges with --judge-arg, --judge-prompt) and the
OmniInteract evaluator's own flags on `score omniinteract` (directly, or in --reference-args, single flags
without '=' included); a judge-less OmniInteract score needs --dry-run."""
import json
import sys
from pathlib import Path

import pytest

from annotation.loaders import demo_dir

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runners"))  # fake_openai


@pytest.fixture(scope="module")
def judge_server():
    import fake_openai
    server = fake_openai.ScriptedServer()
    server.start()
    yield server
    server.stop()


def test_ibench_eval_spellings_with_an_api_judge_on_a_local_server(tmp_path, cli, h, ib_demo, judge_server,
                                                                  monkeypatch):
    judge_server.reset()
    monkeypatch.setenv("IB_TEST_JUDGE_KEY", "sk-local-test")
    preds = h.write_ib_preds(tmp_path / "preds.jsonl", emissions=[{"t": 9.0, "content": "the red ball"}])
    r = cli("score", "interactionbench", preds, "--data", ib_demo, "--use-gate",
            "--judge", "api:scripted", "--judge-arg", f"base_url={judge_server.base_url}",
            "--judge-arg", "api_key_env=IB_TEST_JUDGE_KEY", "--judge-prompt", "v1",
            "--db", tmp_path / "verdicts.sqlite", "--out", tmp_path / "o.json")
    assert r.code == 0, r.err
    config = json.loads((tmp_path / "o.json").read_text())["aggregate"]["config"]
    assert config["use_gate"] is True and config["judge_prompt"] == "ib-v1-equivalence"
    assert judge_server.requests and {q["model"] for q in judge_server.requests} == {"scripted"}
    assert set(judge_server.auth) == {"Bearer sk-local-test"}


def test_positional_and_preds_must_agree(tmp_path, cli, ib_demo, ib_preds):
    other = tmp_path / "other.jsonl"
    other.write_text(ib_preds.read_text())
    cli("score", "interactionbench", ib_preds, "--preds", other, "--data", ib_demo).refused(2, "--preds", "two")


@pytest.mark.parametrize("args,needle", [
    (["--judge-arg", "base_url=http://127.0.0.1:1/v1"], "--judge-arg"),       # without --judge
    (["--judge", "api:m", "--judge-arg", "reasoning=high"], "reasoning"),      # not an APIJudge argument
    (["--judge", "api:m", "--judge-arg", "api_key_env=sk-123-not-a-name"], "api_key_env"),
    (["--judge", "api:"], "--judge"),
    (["--judge", "lexical", "--judge-prompt", "v9"], "--judge-prompt"),
])
def test_bad_reference_judge_flags_are_usage_errors(tmp_path, cli, ib_demo, ib_preds, args, needle):
    cli("score", "interactionbench", ib_preds, "--data", ib_demo, *args).refused(2, needle)


@pytest.fixture(scope="module")
def oi_outputs(tmp_path_factory):
    """A baseline run's OmniInteract outputs folder (batch_summary.json and transcripts)."""
    from annotation.store import Store
    from runners.batch import BatchRunner, RunSpec
    root = tmp_path_factory.mktemp("oi")
    spec = RunSpec(benchmark="omniinteract", model="baseline:periodic:4", data_dir=str(demo_dir("omniinteract")),
                   protocol="duplex")
    BatchRunner(Store(root / "db.sqlite"), spec, out_dir=root / "out").run()
    return root / "out" / "outputs" / "baseline_periodic_4"


def test_omniinteract_without_a_judge_needs_dry_run(tmp_path, cli, oi_outputs):
    cli("score", "omniinteract", "--data", demo_dir("omniinteract"), "--outputs", oi_outputs,
        "--out", tmp_path / "o.json").refused(2, "--judge", "--dry-run")
    assert not (tmp_path / "o.json").exists()


def _summary(path):
    return json.loads(Path(path).read_text())["summary"]


def test_omniinteract_reference_flags_directly_and_in_reference_args_agree(tmp_path, cli, oi_outputs):
    data = demo_dir("omniinteract")
    assert cli("score", "omniinteract", "--data", data, "--outputs", oi_outputs, "--dry-run",
               "--out", tmp_path / "plain.json").code == 0
    # the reference's own spelling: --batch_summary_json, --dry_run and scorer flags straight on the command line
    assert cli("score", "omniinteract", "--data", data, "--batch_summary_json", oi_outputs / "batch_summary.json",
               "--dry_run", "--no_unmatched_fp", "--w_ack", "0.3", "--out", tmp_path / "direct.json").code == 0
    # the same flags quoted in --reference-args, and a single flag given without '='
    assert cli("score", "omniinteract", "--data", data, "--outputs", oi_outputs, "--dry-run",
               "--reference-args", "--no_unmatched_fp --w_ack 0.3", "--out", tmp_path / "quoted.json").code == 0
    assert cli("score", "omniinteract", "--data", data, "--outputs", oi_outputs, "--dry-run",
               "--reference-args", "--no_unmatched_fp", "--out", tmp_path / "single.json").code == 0
    plain, direct, quoted, single = (_summary(tmp_path / f"{n}.json") for n in ("plain", "direct", "quoted", "single"))
    assert direct == quoted
    assert single["Global_FP"] == direct["Global_FP"] < plain["Global_FP"]  # unmatched chunks are not FPs


def test_unknown_reference_flag_is_a_usage_error(tmp_path, cli, oi_outputs):
    cli("score", "omniinteract", "--data", demo_dir("omniinteract"), "--outputs", oi_outputs, "--dry-run",
        "--reference-args", "--w_ack=0.3 --nonsense").refused(2, "--reference-args", "--nonsense")


def test_omniinteract_judge_flags_become_one_judge_spec_and_keys_stay_off_the_command_line(tmp_path, cli, oi_outputs):
    from runners.omniinteract.reference_flags import reference_argv
    argv = reference_argv(["score", "omniinteract", "--data", "d", "--judge_api_model", "gpt-x",
                           "--judge_api_url", "http://127.0.0.1:9/v1/chat/completions", "--judge_max_tokens", "64"])
    assert "--judge" in argv and argv[argv.index("--judge") + 1] == \
        "openai:gpt-x@http://127.0.0.1:9/v1?key_env=JUDGE_API_KEY"
    assert "--reference-args=--judge_max_tokens 64" in argv
    cli("score", "omniinteract", "--data", demo_dir("omniinteract"), "--outputs", oi_outputs,
        "--judge_api_key", "sk-secret").refused(2, "--judge_api_key", "JUDGE_API_KEY")


def test_mcq_key_without_a_value_is_the_datasets_key(tmp_path, cli, ib_demo, ib_preds):
    assert cli("score", "interactionbench", ib_preds, "--data", ib_demo, "--mcq-key",
               "--out", tmp_path / "o.json").code == 0
    config = json.loads((tmp_path / "o.json").read_text())["aggregate"]["config"]
    assert config["mcq_key"] == str(ib_demo / "mcq" / "mcq_key_v4.jsonl")
