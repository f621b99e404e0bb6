"""Property-based fuzzing of the command line (hypothesis): damaged prediction files, damaged datasets and bad
argument lists for every verb. Each must be refused with exit 1 or 2, exactly one `error:` line naming the
file or flag, no traceback, and nothing created (no output file, folder, store or run row). Bounded in time:
a fixed number of examples per property, no per-example deadline (the machine may be loaded)."""
import contextlib
import io
import json
import math
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.loaders import demo_dir, load
from app import main

FUZZ = settings(max_examples=int(os.environ.get("IBENCH_FUZZ_EXAMPLES", "30")), deadline=None,
                derandomize=not os.environ.get("IBENCH_FUZZ_RANDOM"),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
IB_DEMO = demo_dir("interactionbench")
IB_ITEMS = [it.native for it in load("interactionbench", IB_DEMO, probe_media=False).items]


def run_main(argv, stdin_text=None):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def tree(root):
    return {str(p.relative_to(root)) for p in Path(root).rglob("*")}


def assert_refused(code, err, *needles):
    lines = [x for x in err.splitlines() if x.startswith("error:")]
    assert code in (1, 2), (code, err)
    assert "Traceback" not in err, err
    assert len(lines) == 1, err
    for n in needles:
        assert str(n) in lines[0], (n, lines[0])


@contextlib.contextmanager
def scratch():
    d = tempfile.mkdtemp(prefix="ibfuzz-")
    cwd = os.getcwd()
    os.chdir(d)
    try:
        yield Path(d)
    finally:
        os.chdir(cwd)
        shutil.rmtree(d, ignore_errors=True)


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                     max_size=3), max_leaves=6)

# ---------------------------------------------------------------- damaged prediction files

bad_times = st.one_of(st.just(float("nan")), st.just(float("inf")), st.just(float("-inf")),
                      st.floats(max_value=-1e-6, allow_nan=False, allow_infinity=False),
                      st.floats(min_value=1e4, allow_nan=False, allow_infinity=False),
                      st.text(max_size=5), st.booleans(), st.none(), st.lists(st.integers(), max_size=2))
bad_emissions = st.one_of(st.text(max_size=5), st.integers(), st.dictionaries(st.text(max_size=3), st.integers(),
                                                                               max_size=2),
                          st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=4)), min_size=1, max_size=3))
bad_index = st.one_of(st.text(min_size=1, max_size=5), st.floats(allow_nan=True).filter(lambda x: x != 0),
                      st.integers(max_value=-1), st.lists(st.integers(), max_size=2), st.booleans().filter(bool))
bad_video_id = st.one_of(st.none(), st.integers(), st.just(""), st.lists(st.text(max_size=2), max_size=2),
                         st.text(alphabet="xyz", min_size=1, max_size=6).map(lambda s: "ghost_" + s))

mutations = st.one_of(
    st.tuples(st.just("t"), bad_times),
    st.tuples(st.just("emissions"), bad_emissions),
    st.tuples(st.just("item_index"), bad_index),
    st.tuples(st.just("video_id"), bad_video_id),
    st.tuples(st.just("line"), st.one_of(st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2),
                                         st.none())),
    st.tuples(st.just("truncate"), st.floats(min_value=0.05, max_value=0.95)),
    st.tuples(st.just("bytes"), st.binary(min_size=1, max_size=4).map(lambda b: b"\xff" + b)),
    st.tuples(st.just("empty"), st.just(None)),
)


def _pred_lines():
    return [{"video_id": r["video_id"], "item_index": r["item_index"], "emissions": [{"t": 5.0, "content": "four"}]}
            for r in IB_ITEMS]


def damaged_preds(path: Path, which: int, mutation) -> None:
    kind, value = mutation
    lines = _pred_lines()
    k = which % len(lines)
    raw = None
    if kind == "t":
        lines[k]["emissions"][0]["t"] = value
    elif kind in ("emissions", "item_index", "video_id"):
        lines[k][kind] = value
    elif kind == "line":
        lines[k] = value
    text = "\n".join(json.dumps(x) for x in lines) + "\n"
    data = text.encode()
    if kind == "truncate":
        line = json.dumps(lines[k])
        cut = max(1, min(len(line) - 1, int(len(line) * value)))
        data = "\n".join([json.dumps(x) for x in lines[:k]] + [line[:cut]]).encode()
    elif kind == "bytes":
        raw = data + value
    elif kind == "empty":
        data = b""
    path.write_bytes(raw if raw is not None else data)


@FUZZ
@given(which=st.integers(min_value=0, max_value=100), mutation=mutations)
def test_fuzz_score_damaged_prediction_file(which, mutation):
    with scratch() as d:
        preds = d / "preds.jsonl"
        damaged_preds(preds, which, mutation)
        before = tree(d)
        code, _, err = run_main(["score", "interactionbench", "--data", IB_DEMO, "--preds", preds,
                                 "--out", d / "report.json", "--strict"])  # (issue 22: tolerated ones warn)
        assert_refused(code, err, preds)
        assert tree(d) == before


# ---------------------------------------------------------------- damaged datasets

GOOD_DOC = {"video_id": "v1", "domain": "d", "duration_s": 30.0, "items": [
    {"capability": "PTR", "time_type": "B", "question": "when?", "answers": [{"time_s": 5, "content": "now"}]},
    {"capability": "IVQA", "time_type": "A", "question": "what?", "question_time_s": 3,
     "answers": [{"time_s": 4, "content": "a ball"}]}]}

dataset_damage = st.one_of(
    st.tuples(st.just("doc"), st.one_of(st.lists(st.integers(), max_size=2), st.integers(), st.text(max_size=4))),
    st.tuples(st.just("items"), st.one_of(st.none(), st.integers(), st.text(max_size=4),
                                          st.dictionaries(st.text(max_size=2), st.integers(), max_size=2))),
    st.tuples(st.just("item"), st.one_of(st.none(), st.integers(), st.text(max_size=4), st.lists(st.integers()))),
    st.tuples(st.just("capability"), st.text(alphabet="QWXZ", min_size=1, max_size=5)),
    st.tuples(st.just("answers"), st.one_of(st.integers(), st.text(max_size=4), st.none(),
                                            st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=3)),
                                                     min_size=1, max_size=3))),
    st.tuples(st.just("time_s"), st.one_of(st.text(min_size=1, max_size=4), st.booleans(),
                                           st.floats(max_value=-1e-3, allow_nan=False), st.lists(st.integers()))),
    st.tuples(st.just("duration_s"), st.one_of(st.text(min_size=1, max_size=4).filter(lambda s: not _num(s)),
                                               st.floats(max_value=-1e-3, allow_nan=False), st.booleans())),
    st.tuples(st.just("truncate"), st.floats(min_value=0.05, max_value=0.95)),
    st.tuples(st.just("nested"), st.integers(min_value=2000, max_value=50000)),
    st.tuples(st.just("bytes"), st.binary(min_size=1, max_size=3).map(lambda b: b"\xfe" + b)),
)


def _num(s):
    try:
        return math.isfinite(float(s))
    except ValueError:
        return False


def damaged_dataset(root: Path, damage, which: int) -> Path:
    kind, value = damage
    doc = json.loads(json.dumps(GOOD_DOC))
    k = which % len(doc["items"])
    f = root / "annotations" / "d" / "v1.json"
    f.parent.mkdir(parents=True, exist_ok=True)
    text = None
    if kind == "doc":
        doc = value
    elif kind == "items":
        doc["items"] = value
    elif kind == "item":
        doc["items"][k] = value
    elif kind in ("capability", "answers"):
        doc["items"][k][kind] = value
    elif kind == "time_s":
        doc["items"][k]["answers"][0]["time_s"] = value
    elif kind == "duration_s":
        doc["duration_s"] = value
    elif kind == "truncate":
        full = json.dumps(doc)
        text = full[: max(1, int(len(full) * value))]
    elif kind == "nested":
        text = '{"video_id": "v1", "items": ' + "[" * value + "]" * value + "}"
    if kind == "bytes":
        f.write_bytes(json.dumps(doc).encode() + value)
    else:
        f.write_text(text if text is not None else json.dumps(doc))
    return f


@FUZZ
@given(damage=dataset_damage, which=st.integers(min_value=0, max_value=5))
def test_fuzz_damaged_dataset_is_reported_by_validate_and_refused_by_score(damage, which):
    with scratch() as d:
        data = d / "ds"
        f = damaged_dataset(data, damage, which)
        code, out, err = run_main(["validate", "interactionbench", data, "--no-media"])
        assert code == 1 and "Traceback" not in err + out and "annotations/d/v1.json" in out
        preds = d / "preds.jsonl"
        preds.write_text(json.dumps({"video_id": "v1", "item_index": 0, "emissions": []}) + "\n")
        before = tree(d)
        code, _, err = run_main(["score", "interactionbench", "--data", data, "--preds", preds,
                                 "--out", d / "report.json", "--strict"])  # (issue 22: tolerated ones warn)
        assert_refused(code, err)
        assert f.name in err or str(data) in err or str(preds) in err
        assert tree(d) == before


# ---------------------------------------------------------------- argument lists for every verb

def _base_commands(d: Path):
    """A valid command line per verb (the base the fuzzer damages), with the files each needs."""
    from annotation.store import Store
    preds = d / "preds.jsonl"
    preds.write_text("\n".join(json.dumps(x) for x in _pred_lines()) + "\n")
    db = d / "db.sqlite"
    Store(db).close()
    return {
        "validate": ["validate", "interactionbench", IB_DEMO, "--no-media"],
        "list": ["list", "interactionbench", "--data", IB_DEMO],
        "score": ["score", "interactionbench", "--data", IB_DEMO, "--preds", preds, "--out", d / "o.json",
                  "--strict"],  # (issue 22: settings the reference computes with, e.g. --delta 0, warn)
        "run": ["run", "--benchmark", "interactionbench", "--model", "baseline:silent", "--db", db, "--limit", "1",
                "--out", d / "runout"],
        "export": ["export", "responses", "--db", db, "--out", d / "rows.jsonl"],
        "export-dataset": ["export", "dataset", "--benchmark", "interactionbench", "--db", db, "--format", "csv",
                           "--out", d / "ds.csv"],
        "report": ["report", "--db", db, "--out", d / "rep", "--no-figures"],
        "users": ["users", "list", "--db", db],
    }


# flag -> values that must be refused for it (paths are made relative to the scratch folder)
BAD_VALUES = {
    "--limit": ["-1", "0", "x", "1.5", "nan"],
    "--concurrency": ["0", "-3", "many"],
    "--option": ["interval=NaN", "interval=-1", "interval=inf", "max_frames=0", "nonsense=3", "novalue",
                 "sample_fps=\"x\"", "blind=3"],
    "--protocol": ["nope", ""],
    "--judge": ["nope", "cache:@nowhere/*.jsonl", "openai:", "api:", "hf:"],
    "--model": ["nope", "baseline:zzz", "plugin:nomodule", "openai"],
    "--db": ["@missing/deep/db.sqlite", "@folder", "@textfile"],
    "--data": ["@missing", "@textfile"],
    "--preds": ["@missing.jsonl", "@folder", "@emptyfile"],
    "--out": ["@folder/deep/new/x", "@textfile/x"],
    "--items": ["@missing.txt", "@emptyfile", "@folder"],
    "--delta": ["-1", "0", "nan", "inf", "x"],
    "--pre-tol": ["-1", "nan", "x"],
    "--resamples": ["0", "-5", "x"],
    "--level": ["0", "1", "1.5", "nan"],
    "--max-items": ["-1", "x"],
    "--format": ["xml"],
    "--benchmark": ["nope"],
    "--session": ["s_nope"],
    "--unknown-flag": ["1"],
}
VERB_FLAGS = {
    "validate": ["--unknown-flag"],
    "list": ["--data", "--unknown-flag"],
    "score": ["--limit", "--judge", "--data", "--preds", "--out", "--items", "--delta", "--pre-tol", "--db",
              "--unknown-flag"],
    "run": ["--limit", "--concurrency", "--option", "--protocol", "--judge", "--model", "--db", "--data", "--out",
            "--items", "--benchmark", "--unknown-flag"],
    "export": ["--db", "--out", "--format", "--session", "--data", "--unknown-flag"],
    "export-dataset": ["--db", "--data", "--format", "--benchmark", "--unknown-flag"],
    "report": ["--db", "--resamples", "--level", "--max-items", "--benchmark", "--unknown-flag"],
    "users": ["--db", "--unknown-flag"],
}


def _resolve(value: str, d: Path) -> str:
    if not value.startswith("@"):
        return value
    name = value[1:]
    head = name.split("/")[0]
    if head == "folder":
        (d / "folder").mkdir(exist_ok=True)
    elif head == "textfile":
        (d / "textfile").write_text("just text\n")
    elif head == "emptyfile":
        (d / "emptyfile").write_text("")
    return str(d / name)


def _with(argv: list, flag: str, value: str) -> list:
    """argv with flag set to value (replacing an existing value, else appended)."""
    argv = list(argv)
    if flag in argv and flag not in ("--option",):
        i = argv.index(flag)
        argv[i + 1] = value
        return argv
    return argv + [flag, value]


@FUZZ
@given(verb=st.sampled_from(sorted(VERB_FLAGS)), data=st.data())
def test_fuzz_bad_argument_for_every_verb(verb, data):
    flag = data.draw(st.sampled_from(VERB_FLAGS[verb]), label="flag")
    value = data.draw(st.sampled_from(BAD_VALUES[flag]), label="value")
    with scratch() as d:
        base = _base_commands(d)[verb]
        argv = _with(base, flag, _resolve(value, d))
        before = tree(d)
        runs_before = _runs(d / "db.sqlite")
        code, _, err = run_main(argv)
        assert_refused(code, err)
        line = [x for x in err.splitlines() if x.startswith("error:")][0]
        shown = _resolve(value, d) if value.startswith("@") else None
        assert flag in line or (shown and (shown in line or str(Path(shown).parent) in line)) or \
            flag.lstrip("-") in line or "unrecognized arguments" in line or value in line, line
        after = tree(d) - {"db.sqlite-wal", "db.sqlite-shm"}
        assert after == before - {"db.sqlite-wal", "db.sqlite-shm"}, (after ^ before)
        assert _runs(d / "db.sqlite") == runs_before


def _runs(db: Path):
    import sqlite3
    if not db.is_file():
        return None
    conn = sqlite3.connect(db)
    try:
        has = conn.execute("SELECT 1 FROM sqlite_master WHERE name='runs'").fetchone()
        return conn.execute("SELECT id, status FROM runs").fetchall() if has else []
    finally:
        conn.close()


@FUZZ
@given(tokens=st.lists(st.one_of(st.sampled_from(["--db", "--out", "--data", "--preds", "--limit", "--judge",
                                                  "interactionbench", "omniinteract", "proactivebench",
                                                  "interactscope", "-1", "NaN", "@folder", "@textfile"]),
                                 st.text(alphabet="abc-=:./", min_size=1, max_size=6)), max_size=6),
       verb=st.sampled_from(["validate", "list", "score", "run", "export", "report", "users"]))
def test_fuzz_random_argument_lists_never_trace(verb, tokens):
    """Arbitrary token lists: whatever happens, no traceback, and a non-zero exit is one error line."""
    with scratch() as d:
        argv = [verb] + [_resolve(t, d) for t in tokens]
        if verb in ("run", "export", "users", "report") and "--db" not in tokens:
            argv += ["--db", str(d / "never.sqlite")]
        code, out, err = run_main(argv)
        assert "Traceback" not in err and "Traceback" not in out
        if code != 0:
            assert code in (1, 2, 130), (code, err)
            assert len([x for x in err.splitlines() if x.startswith("error:")]) == 1, err
        if verb != "users" or tokens[:1] != ["add"]:
            assert not (d / "never.sqlite").exists() or code == 0


# ---------------------------------------------------------------- the other benchmarks' prediction files

def _native_lines(bench):
    """One valid native prediction line per demo item (ProactiveBench preds.jsonl, InteractScope responses.jsonl)."""
    ds = load(bench, demo_dir(bench), probe_media=False)
    if bench == "proactivebench":
        return [{"item_id": it.id, "response_seconds": [2]} for it in ds.items]
    return [{"interaction_id": it.id, "responses": [{"id": "r1", "t": 1.0, "kind": "speech", "text": "hi"}]}
            for it in ds.items]


FIELD = {"proactivebench": ("item_id", "response_seconds"), "interactscope": ("interaction_id", "responses")}
bad_field_values = st.one_of(st.none(), st.integers(), st.text(max_size=4), st.floats(),
                             st.lists(st.one_of(st.none(), st.text(max_size=3), st.floats(max_value=-1e-3),
                                                st.just(float("nan"))), min_size=1, max_size=3))


@FUZZ
@given(bench=st.sampled_from(["proactivebench", "interactscope"]), which=st.integers(0, 50),
       field_pick=st.integers(0, 1), value=bad_field_values, truncate=st.booleans())
def test_fuzz_score_damaged_native_prediction_files(bench, which, field_pick, value, truncate):
    with scratch() as d:
        lines = _native_lines(bench)
        k = which % len(lines)
        name = "preds.jsonl" if bench == "proactivebench" else "responses.jsonl"
        path = d / name
        if truncate:
            text = json.dumps(lines[k])
            body = [json.dumps(x) for x in lines[:k]] + [text[: max(1, len(text) // 2)]]
        else:
            key = FIELD[bench][field_pick]
            if key == "response_seconds" and value == []:
                value = None
            lines[k][key] = value
            body = [json.dumps(x) for x in lines]
        path.write_text("\n".join(body) + "\n")
        before = tree(d)
        code, _, err = run_main(["score", bench, "--data", demo_dir(bench), "--preds", path, "--out", d / "o.json"])
        if code == 0:  # a value that happens to be valid (e.g. an id string naming no item is refused below)
            return
        assert_refused(code, err, path)
        assert tree(d) == before


@FUZZ
@given(damage=st.one_of(st.just("missing"), st.just("not json"), st.just("list"), st.just("no results"),
                        st.just("results not a list"), st.just("folder")))
def test_fuzz_score_omniinteract_damaged_outputs_folder(damage):
    with scratch() as d:
        outputs = d / "outputs"
        outputs.mkdir()
        summary = outputs / "batch_summary.json"
        if damage == "not json":
            summary.write_text("{results: [")
        elif damage == "list":
            summary.write_text("[]")
        elif damage == "no results":
            summary.write_text("{}")
        elif damage == "results not a list":
            summary.write_text('{"results": 3}')
        elif damage == "folder":
            summary.mkdir()
        before = tree(d)
        code, _, err = run_main(["score", "omniinteract", "--data", demo_dir("omniinteract"), "--outputs", outputs,
                                 "--dry-run", "--out", d / "o.json"])
        assert_refused(code, err, "batch_summary.json")
        assert tree(d) == before


@FUZZ
@given(damage=dataset_damage, which=st.integers(min_value=0, max_value=5))
def test_fuzz_run_on_a_damaged_dataset_creates_no_store_and_no_run(damage, which):
    with scratch() as d:
        data = d / "ds"
        damaged_dataset(data, damage, which)
        before = tree(d)
        code, _, err = run_main(["run", "--benchmark", "interactionbench", "--model", "baseline:silent",
                                 "--data", data, "--db", d / "db.sqlite", "--out", d / "out"])
        assert_refused(code, err)
        assert "v1.json" in err or str(data) in err
        assert tree(d) == before
