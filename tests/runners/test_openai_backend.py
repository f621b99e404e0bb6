import base64
import threading

import cv2
import numpy as np
import pytest

from tests.runners.conftest import ib_item, read_code
from runners.backends import BackendFailure, load_backend
from runners.protocols import drive, get_protocol


def _decode_data_url(url: str) -> np.ndarray:
    assert url.startswith("data:image/jpeg;base64,")
    buf = np.frombuffer(base64.b64decode(url.split(",", 1)[1]), np.uint8)
    return cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def _backend(server, **kw):
    kw.setdefault("api_key_env", "IBENCH_TEST_KEY")
    return load_backend(f"openai:scripted@{server.base_url}", **kw)


def test_images_arrive_as_data_urls_and_replies_parse(fake_server, clip, monkeypatch):
    monkeypatch.setenv("IBENCH_TEST_KEY", "sk-secret-123")
    fake_server.push(("text", "DECISION: WAIT\nRESPONSE:"), ("text", "DECISION: SPEAK\nRESPONSE: It turned blue."))
    backend = _backend(fake_server)
    trace = drive(ib_item(clip, "B"), get_protocol("sliding", a_window=10), backend)
    assert trace.n_polls == 12 and len(fake_server.requests) == 12
    assert trace.emissions[0].t == 2.0 and trace.emissions[0].content == "It turned blue."
    body = fake_server.requests[3]  # t = 4
    user = body["messages"][-1]["content"]
    urls = [p["image_url"]["url"] for p in user if p["type"] == "image_url"]
    assert len(urls) == 8
    codes = [read_code(_decode_data_url(u)) for u in urls]
    assert codes == [int((0.25 + 0.5 * i) * clip.fps) for i in range(8)]
    assert body["messages"][0]["role"] == "system" and isinstance(body["messages"][0]["content"], str)
    assert body["model"] == "scripted" and body["max_tokens"] == 96 and body["temperature"] == 0.0
    assert fake_server.auth[0] == "Bearer sk-secret-123"
    assert "sk-secret" not in repr(backend) and "sk-secret" not in backend.name
    assert len(trace.poll_latencies) == 12


def test_500_is_retried(fake_server, clip):
    fake_server.push(("status", 500), ("status", 503), ("text", "DECISION: SPEAK\nRESPONSE: recovered"))
    backend = _backend(fake_server, retries=3, backoff=0.01)
    from runners.protocols.base import Decision
    d = Decision("x", "sliding", 1.0, [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], [], "hi")
    reply = backend.respond(d)
    assert reply.text.endswith("recovered") and reply.error is None and len(fake_server.requests) == 3


def test_timeout_is_retried_then_fails(fake_server):
    fake_server.push(("hold", "late"), ("hold", "late"))  # answered only after the client gave up
    backend = _backend(fake_server, timeout=2.0, retries=1, backoff=0.01)
    from runners.protocols.base import Decision
    d = Decision("x", "sliding", 1.0, [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], [], "hi")
    with pytest.raises(BackendFailure, match="2 attempts"):
        backend.respond(d)
    assert len(fake_server.requests) == 2


def test_client_error_is_not_retried_and_malformed_replies_do_not_crash(fake_server, clip):
    from runners.protocols.base import Decision
    d = Decision("x", "sliding", 1.0, [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], [], "hi")
    fake_server.push(("status", 400))
    with pytest.raises(BackendFailure, match="HTTP 400"):
        _backend(fake_server, backoff=0.01).respond(d)
    assert len(fake_server.requests) == 1
    fake_server.push(("malformed",), ("no_choices",), ("text", None))
    backend = _backend(fake_server, retries=0)
    for _ in range(3):
        r = backend.respond(d)
        assert r.text == "" and r.error and "malformed" in r.error
    # inside drive: malformed polls count as errors, the item keeps going
    fake_server.reset(("malformed",), ("text", "DECISION: SPEAK\nRESPONSE: fine"))
    trace = drive(ib_item(clip, "A", q=2.0), get_protocol("sliding", a_window=1.0), backend)
    assert trace.n_polls == 2 and trace.n_errors == 1 and [e.content for e in trace.emissions] == ["fine"]


def test_native_tool_calls_become_parseable_json(fake_server):
    from runners.parsing import parse_tool_call
    from runners.protocols.base import Decision
    fake_server.push(("tool", "set_timer", {"seconds": 30}))
    d = Decision("x", "interactscope", 1.0, [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], [], "hi",
                 tools=[{"name": "set_timer", "parameters": {"type": "object"}}])
    r = _backend(fake_server, native_tools=True).respond(d)
    assert parse_tool_call(r.text).name == "set_timer"
    assert fake_server.requests[0]["tools"][0]["function"]["name"] == "set_timer"


def test_concurrency_limit(fake_server):
    from runners.protocols.base import Decision
    fake_server.default_delay = 0.2
    backend = _backend(fake_server, concurrency=2)
    d = Decision("x", "sliding", 1.0, [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], [], "hi")
    threads = [threading.Thread(target=backend.respond, args=(d,)) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(fake_server.requests) == 6 and fake_server.max_in_flight == 2


def test_missing_key_message_names_the_variable(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    from runners.protocols.base import Decision
    b = load_backend("openai:gpt-4o", api_key_env="NO_SUCH_KEY_VAR")
    d = Decision("x", "sliding", 1.0, [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], [], "hi")
    with pytest.raises(ValueError, match="NO_SUCH_KEY_VAR"):
        b.respond(d)
