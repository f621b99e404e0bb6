"""A scripted OpenAI-compatible chat server: FastAPI + uvicorn in its own process on 127.0.0.1.

Each request pops the next scripted action: ("text", reply), ("status", code[, headers]), ("sleep", s, reply),
("hold", reply) for a request answered only after its client has gone (a timeout that is certain, whatever
the client's timeout and however loaded the machine),
("malformed",) for a 200 that is not JSON, ("no_choices",), ("tool", name, args). With an empty script it
answers the default reply after the configured latency, or the reply of an `after(t, reply)` rule once the
prompt's stream time reaches t (a model that notices an event). Periodic faults: `every(n, action)` gives every n-th
request (1-based) that action. Every request body and auth header is recorded.

Tests drive it through `ScriptedServer` (start/stop the process, push actions, read what it saw) over a
small control API under /_control; `reset()` starts a new counter set, so a handler left sleeping by an
earlier test can never change the counts of the next one."""

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections import deque
from pathlib import Path

DEFAULT_REPLY = "DECISION: SPEAK\nRESPONSE: ok"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Counters:
    """One test's view: what it scripted and what the server saw."""

    def __init__(self, actions=(), latency: float = 0.0, reply: str = DEFAULT_REPLY):
        self.script = deque(tuple(a) for a in actions)
        self.requests: list[dict] = []
        self.auth: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.latency = float(latency)
        self.reply = reply
        self.every: list[tuple[int, tuple]] = []
        self.after: list[tuple[float, str]] = []  # (stream time, reply): a "model" that reacts to the time
        self.n = 0

    def state(self) -> dict:
        return {"requests": self.requests, "auth": self.auth, "in_flight": self.in_flight,
                "max_in_flight": self.max_in_flight, "n": self.n, "left": len(self.script)}


def create_app():
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse, PlainTextResponse

    app = FastAPI()
    lock = threading.Lock()
    box = {"c": _Counters()}

    @app.get("/v1/models")
    async def models():
        return {"object": "list", "data": [{"id": "scripted", "object": "model"}]}

    @app.post("/_control/reset")
    async def reset(request: Request):
        body = await request.json()
        with lock:
            box["c"] = _Counters(body.get("actions", ()), body.get("latency", 0.0), body.get("reply", DEFAULT_REPLY))
        return {"ok": True}

    @app.post("/_control/configure")
    async def configure(request: Request):
        body = await request.json()
        with lock:
            c = box["c"]
            c.script.extend(tuple(a) for a in body.get("push", ()))
            if "latency" in body:
                c.latency = float(body["latency"])
            if "reply" in body:
                c.reply = body["reply"]
            for n, action in body.get("every", ()):
                c.every.append((int(n), tuple(action)))
            for t, reply in body.get("after", ()):
                c.after.append((float(t), reply))
        return {"ok": True}

    @app.get("/_control/state")
    async def state():
        with lock:
            return box["c"].state()

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        body = await request.json()
        with lock:
            c = box["c"]  # this request's counters, even if a reset happens while it sleeps
            c.requests.append(body)
            c.auth.append(request.headers.get("authorization", ""))
            c.n += 1
            periodic = next((a for n, a in c.every if c.n % n == 0), None)
            action = periodic or (c.script.popleft() if c.script else ("text", _react(c, body)))
            c.in_flight += 1
            c.max_in_flight = max(c.max_in_flight, c.in_flight)
            latency = c.latency
        try:
            if latency:
                await asyncio.sleep(latency)
            kind = action[0]
            if kind == "status":
                headers = action[2] if len(action) > 2 else None
                return JSONResponse({"error": {"message": f"scripted {action[1]}"}}, status_code=action[1],
                                    headers=headers)
            if kind == "sleep":
                await asyncio.sleep(action[1])
                return JSONResponse(_completion(action[2]))
            if kind == "hold":
                for _ in range(6000):  # up to 5 minutes: a client's timeout ends it long before
                    if await request.is_disconnected():
                        break
                    await asyncio.sleep(0.05)
                return JSONResponse(_completion(action[1]))
            if kind == "malformed":
                return PlainTextResponse("this is not json {", media_type="application/json")
            if kind == "no_choices":
                return JSONResponse({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                     "choices": []})
            if kind == "tool":
                return JSONResponse(_completion(None, tool=(action[1], action[2])))
            return JSONResponse(_completion(action[1]))
        finally:
            with lock:
                c.in_flight -= 1

    return app


def _stream_time(body: dict):
    """The "Stream time: X s" a protocol wrote into the last user turn (None when there is none)."""
    import re
    for m in reversed(body.get("messages") or []):
        content = m.get("content")
        texts = [content] if isinstance(content, str) else [p.get("text", "") for p in content or []
                                                             if isinstance(p, dict)]
        for text in texts:
            found = re.search(r"Stream time: ([0-9.]+) s", text or "")
            if found:
                return float(found.group(1))
    return None


def _react(c: "_Counters", body: dict) -> str:
    """The reply of the latest `after` rule whose time the request's stream time has reached, else the default."""
    t = _stream_time(body) if c.after else None
    if t is not None:
        hits = [reply for since, reply in c.after if t >= since - 1e-9]
        if hits:
            return hits[-1]
    return c.reply


def _completion(text, tool=None) -> dict:
    message = {"role": "assistant", "content": text}
    if tool is not None:
        message["tool_calls"] = [{"id": "call_1", "type": "function",
                                  "function": {"name": tool[0], "arguments": json.dumps(tool[1])}}]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


class ScriptedServer:
    """The test-side handle: runs the server as a subprocess and scripts it over HTTP."""

    def __init__(self):
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._root = f"http://127.0.0.1:{self.port}"
        self._proc = None

    # -- process ------------------------------------------------------------------------------
    def start(self, deadline_s: float = 120.0) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self._proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--port", str(self.port)],
                                      env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + deadline_s
        while True:
            if self._proc.poll() is not None:
                raise RuntimeError("scripted OpenAI server exited: " + self._proc.stderr.read().decode()[-2000:])
            try:
                self._get("/v1/models")
                return
            except OSError:
                if time.time() > deadline:
                    raise RuntimeError("scripted OpenAI server did not start") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    # -- scripting ----------------------------------------------------------------------------
    def reset(self, *actions, latency: float = 0.0, reply: str = DEFAULT_REPLY) -> None:
        """A fresh script and fresh counters (in-flight handlers of earlier tests keep their own)."""
        self._post("/_control/reset", {"actions": [list(a) for a in actions], "latency": latency, "reply": reply})

    def push(self, *actions) -> None:
        self._post("/_control/configure", {"push": [list(a) for a in actions]})

    def every(self, n: int, action) -> None:
        """Every n-th request from now on (counting from the last reset) gets `action`."""
        self._post("/_control/configure", {"every": [[n, list(action)]]})

    def after(self, t: float, reply: str) -> None:
        """From stream time t on (read from the prompt's "Stream time: X s"), answer `reply`."""
        self._post("/_control/configure", {"after": [[t, reply]]})

    @property
    def default_delay(self) -> float:
        raise AttributeError("write-only: the server's latency for unscripted replies")

    @default_delay.setter
    def default_delay(self, seconds: float) -> None:
        self._post("/_control/configure", {"latency": seconds})

    def state(self) -> dict:
        return self._get("/_control/state")

    @property
    def requests(self) -> list[dict]:
        return self.state()["requests"]

    @property
    def auth(self) -> list[str]:
        return self.state()["auth"]

    @property
    def max_in_flight(self) -> int:
        return self.state()["max_in_flight"]

    # -- http ---------------------------------------------------------------------------------
    def _get(self, path: str) -> dict:
        with urllib.request.urlopen(self._root + path, timeout=30) as r:
            return json.loads(r.read())

    def _post(self, path: str, body: dict) -> dict:
        req = urllib.request.Request(self._root + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())


def main() -> None:
    import uvicorn

    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    a = ap.parse_args()
    uvicorn.run(create_app(), host="127.0.0.1", port=a.port, log_level="warning", lifespan="off")


if __name__ == "__main__":
    main()
