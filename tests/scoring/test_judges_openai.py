"""OpenAIJudge against a real local HTTP server speaking the Chat Completions API, through the real openai client."""
import asyncio
import json
import logging
import socket
import threading
import time

import pytest

import fastapi  # noqa: E402
import uvicorn  # noqa: E402

from scoring.judges import (CachingJudge, ChatTransport, JudgeUnavailable, MemoryVerdictCache, OpenAIJudge,
                            make_raw_transport, tally)

GOOD1 = '{"score": 1, "reason": "same answer"}'
GOOD0 = '{"score": 0, "reason": "different colour"}'
SECRET = "sk-test-SECRET-7f3a9c01"


class ScriptedServer:
    """A FastAPI app whose replies follow a script: {"reply": text}, {"status": code}, {"sleep": s, "reply": text},
    {"hold": True, "reply": text} (answers only once the test sets `release`; `held` counts the waiting handlers)."""

    def __init__(self):
        self.script = []
        self.default = {"reply": GOOD1}
        self.requests = []
        self.lock = threading.Lock()
        self.release = threading.Event()
        self.held = 0
        app = fastapi.FastAPI()

        @app.post("/v1/chat/completions")
        async def chat(request: fastapi.Request):
            body = await request.json()
            with self.lock:
                self.requests.append({"auth": request.headers.get("authorization"), "body": body})
                action = self.script.pop(0) if self.script else self.default
            if "sleep" in action:
                await asyncio.sleep(action["sleep"])
            if action.get("hold"):
                with self.lock:
                    self.held += 1
                try:
                    await asyncio.to_thread(self.release.wait, 300)
                finally:
                    with self.lock:
                        self.held -= 1
            if "status" in action:
                return fastapi.responses.JSONResponse(
                    {"error": {"message": "scripted failure", "type": "server_error"}}, status_code=action["status"])
            return {"id": "c1", "object": "chat.completion", "created": int(time.time()), "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": action["reply"]}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

        self.app = app

    def reset(self, *script, default=None):
        self.release.set()  # drain handlers an earlier test left waiting
        self.release = threading.Event()
        with self.lock:
            self.script = list(script)
            self.default = default or {"reply": GOOD1}
            self.requests = []


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    scripted = ScriptedServer()
    port = _free_port()
    config = uvicorn.Config(scripted.app, host="127.0.0.1", port=port, log_level="warning",
                            timeout_graceful_shutdown=1)
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 120  # generous: a loaded machine starts uvicorn slowly
    while not srv.started:
        assert time.time() < deadline, "scripted OpenAI server did not start"
        time.sleep(0.02)
    scripted.base_url = f"http://127.0.0.1:{port}/v1"
    yield scripted
    srv.should_exit = True
    thread.join(timeout=5)


def make_judge(server, **kw):
    opts = dict(timeout=5.0, max_retries=2, backoff_base=0.01)
    opts.update(kw)
    return OpenAIJudge("judge-model", server.base_url, **opts)


def test_good_reply_is_parsed_and_request_is_deterministic(server):
    server.reset({"reply": GOOD1}, {"reply": GOOD0})
    judge = make_judge(server, max_tokens=64)
    r = judge.judge("What colour is the ball?", "red", "It is red.")
    assert (r.score, r.error, r.raw) == (1.0, None, GOOD1)
    assert judge("What colour is the ball?", "red", "blue") == 0.0
    body = server.requests[0]["body"]
    assert body["temperature"] == 0 and body["max_tokens"] == 64 and body["model"] == "judge-model"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "It is red." in body["messages"][1]["content"] and "red" in body["messages"][1]["content"]
    assert server.requests[0]["auth"] == "Bearer EMPTY"  # no key env: a placeholder for local servers
    assert judge.stats.calls == 2 and judge.stats.scored == 2


def test_trivial_pairs_do_not_call_the_server(server):
    server.reset()
    judge = make_judge(server)
    assert judge.judge("q", "  ", "") .score == 1.0
    assert judge.judge("q", "red", " ").score == 0.0
    assert server.requests == []


def test_malformed_reply_is_reasked_once_then_unobtainable(server):
    server.reset({"reply": "Yes, they match."}, {"reply": '{"score": "yes"}'})
    judge = make_judge(server)
    r = judge.judge("q", "red", "crimson")
    assert r.score is None and "re-ask" in r.error and r.raw == '{"score": "yes"}'
    assert len(server.requests) == 2
    assert "could not be read" in server.requests[1]["body"]["messages"][1]["content"]
    assert judge.stats.reasks == 1 and judge.stats.unavailable == 1
    with pytest.raises(JudgeUnavailable):
        server.reset({"reply": "nope"}, {"reply": "nope"})
        judge("q", "red", "crimson")


def test_malformed_then_good_reply_scores(server):
    server.reset({"reply": "score: 1"}, {"reply": "```json\n" + GOOD1 + "\n```"})
    assert make_judge(server)("q", "red", "crimson") == 1.0
    assert len(server.requests) == 2


def test_timeout_is_retried_and_then_unobtainable(server):
    # a held request never answers until released, so the timeout is certain and needs no race with a sleep
    server.reset({"hold": True, "reply": GOOD1}, {"reply": GOOD0})
    judge = make_judge(server, timeout=2.0, max_retries=1)
    assert judge("q", "red", "blue") == 0.0  # first attempt timed out, the retry answered
    server.reset(default={"hold": True, "reply": GOOD1})
    done = {}
    th = threading.Thread(target=lambda: done.setdefault("r", judge.judge("q", "red", "blue")), daemon=True)
    th.start()
    th.join(timeout=120)  # generous: only a client that waits for the server stays here
    assert not th.is_alive(), "the judge waited for a server that never answered"
    r = done["r"]
    assert r.score is None and "timed out" in r.error
    assert not server.release.is_set()  # it gave up while the server still held both requests
    assert len(server.requests) == 2
    server.release.set()


def test_500_then_success_is_retried(server):
    server.reset({"status": 500}, {"status": 503}, {"reply": GOOD1})
    judge = make_judge(server, max_retries=2)
    r = judge.judge("q", "red", "red ball")
    assert r.score == 1.0 and r.error is None
    assert len(server.requests) == 3


def test_persistent_500_is_unobtainable_and_counted(server):
    server.reset(default={"status": 500})
    judge = make_judge(server, max_retries=2)
    results = [judge.judge("q", "red", "blue"), judge.judge("q", "red", "")]
    assert results[0].score is None and "HTTP 500" in results[0].error
    assert len(server.requests) == 3  # 1 + 2 retries, then it gave up
    t = tally(results)
    assert (t.n, t.n_scored, t.n_unavailable, t.mean) == (2, 1, 1, 0.0)
    assert judge.stats.unavailable == 1
    with pytest.raises(JudgeUnavailable, match="500"):
        judge("q", "red", "blue")


def test_4xx_is_not_retried(server):
    server.reset({"status": 400}, {"reply": GOOD1})
    r = make_judge(server, max_retries=3).judge("q", "red", "blue")
    assert r.score is None and "HTTP 400" in r.error and "not retried" in r.error
    assert len(server.requests) == 1


def test_api_key_sent_as_bearer_but_never_logged_stored_or_shown(server, monkeypatch, caplog):
    monkeypatch.setenv("IB_TEST_JUDGE_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    cache = MemoryVerdictCache()
    judge = CachingJudge(make_judge(server, api_key_env="IB_TEST_JUDGE_KEY"), cache)
    server.reset({"status": 500}, {"reply": GOOD1}, default={"status": 500})
    ok = judge.judge("q", "red", "red")
    failed = judge.judge("q", "red", "blue")
    assert ok.score == 1.0 and failed.score is None
    assert server.requests[0]["auth"] == f"Bearer {SECRET}"
    seen = [caplog.text, repr(judge), repr(judge.inner), repr(judge.inner.transport), judge.name,
            json.dumps(cache.rows()), repr(ok), repr(failed), str(failed.error)]
    assert "retry" in caplog.text  # our retries and the client's debug traffic were logged...
    assert any(r.name.startswith("openai") and r.levelno == logging.DEBUG for r in caplog.records)
    for text in seen:
        assert SECRET not in text  # ...but the key never was


def test_missing_key_env_names_the_variable(server, monkeypatch):
    monkeypatch.delenv("IB_TEST_MISSING_KEY", raising=False)
    judge = make_judge(server, api_key_env="IB_TEST_MISSING_KEY")
    with pytest.raises(ValueError, match="IB_TEST_MISSING_KEY"):
        judge.judge("q", "red", "blue")


def test_second_identical_call_is_served_from_cache(server):
    server.reset({"reply": GOOD1}, default={"status": 500})
    cache = MemoryVerdictCache()
    judge = CachingJudge(make_judge(server, max_retries=0), cache)
    assert judge("q", "red", "crimson") == 1.0
    assert judge("q", "red", "crimson") == 1.0
    assert len(server.requests) == 1 and (judge.hits, judge.misses) == (1, 1)
    row = cache.rows()[0]
    assert row["judge"] == f"openai:judge-model@{server.base_url}" and row["prompt_version"] == "ib-v2-containment"
    # an unobtainable verdict is not cached, so it is asked again next time
    assert judge.judge("q", "red", "blue").score is None
    assert judge.judge("q", "red", "blue").score is None
    assert len(server.requests) == 3 and len(cache) == 1


def test_raw_transport_for_prompt_owning_judges(server):
    server.reset({"reply": '{"flag": "Neutral", "score": 0.8}'}, default={"status": 500})
    cache = MemoryVerdictCache()
    raw = make_raw_transport(ChatTransport("judge-model", server.base_url, max_retries=0), cache)
    assert raw("early", "s1", "slot0", "sys", "user") == '{"flag": "Neutral", "score": 0.8}'
    assert raw("early", "s1", "slot0", "sys", "user") == '{"flag": "Neutral", "score": 0.8}'
    assert len(server.requests) == 1
    assert server.requests[0]["body"]["messages"] == [{"role": "system", "content": "sys"},
                                                      {"role": "user", "content": "user"}]
    with pytest.raises(JudgeUnavailable):
        raw("core", "s1", "slot0", "sys", "user")
