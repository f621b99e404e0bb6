"""A scripted OpenAI-compatible chat server (FastAPI + uvicorn in a daemon thread on 127.0.0.1).

Each request pops the next scripted action: ("text", reply), ("status", code), ("sleep", s, reply),
("malformed",) for a 200 that is not JSON, ("no_choices",), ("tool", name, args). With an empty
script it answers DECISION: SPEAK / RESPONSE: ok. Every request body and auth header is recorded."""

import asyncio
import json
import socket
import threading
import time
from collections import deque


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ScriptedServer:
    def __init__(self):
        self.script: deque = deque()
        self.requests: list[dict] = []
        self.auth: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.default_delay = 0.0
        self._lock = threading.Lock()
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._server = None
        self._thread = None

    def reset(self, *actions) -> None:
        with self._lock:
            self.script = deque(actions)
            self.requests.clear()
            self.auth.clear()
            self.in_flight = self.max_in_flight = 0
            self.default_delay = 0.0

    def push(self, *actions) -> None:
        with self._lock:
            self.script.extend(actions)

    def app(self):
        from fastapi import FastAPI, Request
        from fastapi.responses import JSONResponse, PlainTextResponse

        app = FastAPI()

        @app.get("/v1/models")
        async def models():
            return {"object": "list", "data": [{"id": "scripted", "object": "model"}]}

        @app.post("/v1/chat/completions")
        async def chat(request: Request):
            body = await request.json()
            with self._lock:
                self.requests.append(body)
                self.auth.append(request.headers.get("authorization", ""))
                action = self.script.popleft() if self.script else ("text", "DECISION: SPEAK\nRESPONSE: ok")
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                if self.default_delay:
                    await asyncio.sleep(self.default_delay)
                kind = action[0]
                if kind == "status":
                    return JSONResponse({"error": {"message": f"scripted {action[1]}"}}, status_code=action[1])
                if kind == "sleep":
                    await asyncio.sleep(action[1])
                    return JSONResponse(_completion(action[2]))
                if kind == "malformed":
                    return PlainTextResponse("this is not json {", media_type="application/json")
                if kind == "no_choices":
                    return JSONResponse({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                         "choices": []})
                if kind == "tool":
                    return JSONResponse(_completion(None, tool=(action[1], action[2])))
                return JSONResponse(_completion(action[1]))
            finally:
                with self._lock:
                    self.in_flight -= 1

        return app

    def start(self) -> None:
        import uvicorn

        config = uvicorn.Config(self.app(), host="127.0.0.1", port=self.port, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.time() + 15
        while not self._server.started:
            if time.time() > deadline:
                raise RuntimeError("scripted OpenAI server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            self._thread.join(timeout=5)


def _completion(text, tool=None) -> dict:
    message = {"role": "assistant", "content": text}
    if tool is not None:
        message["tool_calls"] = [{"id": "call_1", "type": "function",
                                  "function": {"name": tool[0], "arguments": json.dumps(tool[1])}}]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
