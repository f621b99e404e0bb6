"""The score command with an LLM judge: verdicts come from a real local OpenAI-compatible server, are cached in
the store, and a second scoring asks the server nothing."""
import json
import sqlite3

from app import main
from annotation.loaders import demo_dir

VERDICT = '{"score": 1, "reason": "the answer is contained"}'


def test_interactionbench_llm_judge_verdicts_are_cached_in_the_store(openai_server, tmp_path):
    preds = tmp_path / "preds.jsonl"
    # an A-type item answered at its question time with text the lexical judge would not accept
    preds.write_text(json.dumps({"video_id": "color_scene", "item_index": 2,
                                 "emissions": [{"t": 23.2, "content": "It had turned a deep blue colour."}]}) + "\n")
    openai_server.reset(*[("text", VERDICT)] * 20)
    db = tmp_path / "db.sqlite"
    args = ["score", "interactionbench", "--data", str(demo_dir("interactionbench")), "--preds", str(preds),
            "--judge", f"openai:judge@{openai_server.base_url}", "--db", str(db), "--out", str(tmp_path / "a.json")]
    assert main(args) == 0
    first = len(openai_server.requests)
    assert first >= 1
    rows = sqlite3.connect(db).execute("select judge, prompt_version, score from verdicts").fetchall()
    assert rows and all(r[2] == 1.0 for r in rows)
    report = json.loads((tmp_path / "a.json").read_text())
    assert report["per_item"]["color_scene#2"]["accuracy"] == 100.0
    assert main(args[:-1] + [str(tmp_path / "b.json")]) == 0
    assert len(openai_server.requests) == first  # every verdict came from the store
    assert json.loads((tmp_path / "b.json").read_text())["per_item"] == report["per_item"]
