"""`python app.py run` end to end against a real local OpenAI-compatible server (scripted FastAPI app)."""
import json
import os

from annotation.store import Store
from app import main


def test_run_proactivebench_against_a_local_openai_server(openai_server, tmp_path, monkeypatch, capsys):
    openai_server.reset()  # empty script: every poll answers "DECISION: SPEAK / RESPONSE: ok"
    monkeypatch.setenv("IBENCH_TEST_KEY", "sk-local-test-123")
    out = tmp_path / "out"
    rc = main(["run", "--benchmark", "proactivebench", "--model", f"openai:scripted@{openai_server.base_url}",
               "--backend-option", "api_key_env=IBENCH_TEST_KEY", "--limit", "2", "--concurrency", "2",
               "--db", str(tmp_path / "db.sqlite"), "--out", str(out)])
    assert rc == 0
    report = json.loads((out / "report.json").read_text())
    assert report["run"]["model"].startswith("openai:scripted@") and report["aggregate"]["n_items"] == 2
    preds = [json.loads(x) for x in (out / "preds.jsonl").read_text().splitlines()]
    assert len(preds) == 2 and all(p["response_seconds"] for p in preds)
    # frames arrived as images, the key only as a bearer header, never in the store or outputs
    assert any(part.get("type") == "image_url" and part["image_url"]["url"].startswith("data:image/jpeg;base64,")
               for req in openai_server.requests for m in req["messages"] if isinstance(m.get("content"), list)
               for part in m["content"])
    assert openai_server.auth and all(a == "Bearer sk-local-test-123" for a in openai_server.auth)
    db_bytes = (tmp_path / "db.sqlite").read_bytes() + b"".join(
        p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert b"sk-local-test-123" not in db_bytes
    assert "sk-local-test-123" not in capsys.readouterr().out
    run = Store(tmp_path / "db.sqlite").runs()[0]
    assert run.status == "done" and run.n_done == 2
    assert "sk-local" not in json.dumps(run.config)
