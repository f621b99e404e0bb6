"""A scripted OpenAI-Realtime-protocol server for tests: a real process on 127.0.0.1.

    python tests/runners/realtime_server.py CONFIG.json      # prints "LISTENING <port>" when ready

Its media clock is the audio it has received (input_audio_buffer.append samples / input_rate), so the
script is in media seconds of the session. CONFIG:

    {"speech": [{"t": 3.0, "text": "The ball appeared.", "wav": "/abs/a.wav"}],   # spoken when audio reaches t
     "latency": 0.0,            # wall seconds between reaching t and the first event of the response
     "transcript": true,        # send response.audio_transcript.delta events
     "input_rate": 24000,
     "drop": {"connections": [1], "at": 5.0},     # close these connections (1-based; "all") at media time
     "malformed": [{"at": 1.0, "kind": "not_json" | "no_type" | "bad_audio"}],
     "tool_calls": [{"t": 4.0, "name": "set_timer", "arguments": {"seconds": 30}}],   # function calls
     "log": "/abs/events.jsonl",                   # one line per client event (audio appends summarised)
     "dialect": "openai" | "minicpmo"}             # minicpmo: MiniCPM-o's gateway (queue, float32 1 s units)

Speech audio goes out as 24 kHz pcm16 in 0.1 s deltas, as fast as it is produced (as real servers send it),
each word's transcript delta just before the audio it starts in."""
from __future__ import annotations

import asyncio
import base64
import json
import sys

import numpy as np
import soundfile as sf
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

OUT_RATE = 24000


def load_pcm(path: str) -> np.ndarray:
    x, rate = sf.read(path, dtype="float32", always_2d=True)
    x = x.mean(axis=1)
    if rate != OUT_RATE:
        n = int(round(len(x) * OUT_RATE / rate))
        x = np.interp(np.arange(n) * (rate / OUT_RATE), np.arange(len(x)), x)
    return (np.clip(x, -1, 1) * 32767).astype("<i2")


class Scripted:
    def __init__(self, config: dict):
        self.c = config
        self.speech = [dict(s, pcm=load_pcm(s["wav"])) for s in config.get("speech", [])]
        self.n_conn = 0
        self.log = open(config["log"], "a", encoding="utf-8") if config.get("log") else None

    def write(self, row: dict) -> None:
        if self.log:
            self.log.write(json.dumps(row) + "\n")
            self.log.flush()

    async def handler(self, ws) -> None:
        self.n_conn += 1
        conn = self.n_conn
        rate = int(self.c.get("input_rate", 24000))
        drop = self.c.get("drop") or {}
        drops = drop.get("connections", [])
        drop_at = float(drop["at"]) if (drops == "all" or conn in drops) else None
        malformed = list(self.c.get("malformed", []))
        pending = list(self.speech)
        calls = list(self.c.get("tool_calls", []))
        received = 0
        tasks = []
        sq = []  # per-second sums of squares of the received audio (what the model heard)
        auth = ws.request.headers.get("Authorization")
        self.write({"conn": conn, "type": "connect", "path": ws.request.path, "auth": auth})
        mini = self.c.get("dialect") == "minicpmo"
        if mini:  # queued, then the worker is assigned; session.created answers session.update
            await ws.send(json.dumps({"type": "session.queued", "position": 1}))
            await ws.send(json.dumps({"type": "session.queue_done"}))
        else:
            await ws.send(json.dumps({"type": "session.created", "session": {"id": f"sess{conn}"}}))
        try:
            async for msg in ws:
                ev = json.loads(msg)
                kind = ev.get("type")
                t = received / rate
                if kind == "input_audio_buffer.append":
                    raw = base64.b64decode(ev["audio"])
                    x = np.frombuffer(raw, "<f4") if mini else np.frombuffer(raw, "<i2").astype(np.float32) / 32767
                    for i, v in enumerate(x.astype(np.float64) ** 2):
                        sec = (received + i) // rate
                        if sec >= len(sq):
                            sq.append(0.0)
                        sq[sec] += v
                    received += len(x)
                    t = received / rate
                    if mini:
                        self.write({"conn": conn, "type": "append", "t": round(t, 3),
                                    "frames": len(ev.get("video_frames") or [])})
                else:
                    row = {"conn": conn, "type": kind, "t": round(t, 3)}
                    if kind == "session.update":
                        row["session"] = ev.get("session")
                        reply = {"type": "session.created", "session_id": f"rt_{conn}"} if mini else \
                            {"type": "session.updated", "session": ev.get("session")}
                        await ws.send(json.dumps(reply))
                    elif kind == "conversation.item.create":
                        item = ev["item"]
                        row["item_type"] = item.get("type")
                        row["content"] = [p.get("type") for p in item.get("content", [])]
                        row["text"] = [p.get("text") for p in item.get("content", []) if p.get("type") == "input_text"]
                        if item.get("type") == "function_call_output":
                            row["call_id"] = item.get("call_id")
                    self.write(row)
                for m in [m for m in malformed if t >= m["at"]]:
                    malformed.remove(m)
                    await ws.send({"not_json": "{oops", "no_type": json.dumps({"delta": "x"}),
                                   "bad_audio": json.dumps({"type": "response.audio.delta", "response_id": "bad",
                                                            "delta": "!!not base64!!"})}[m["kind"]])
                for c in [c for c in calls if t >= c["t"]]:
                    calls.remove(c)
                    await self.call(ws, conn, c, len(tasks) + 1)
                    tasks.append(None)
                for s in [s for s in pending if t >= s["t"]]:
                    pending.remove(s)
                    speak = self.speak_minicpmo if mini else self.speak
                    tasks.append(asyncio.create_task(speak(ws, conn, s, len(tasks) + 1)))
                if drop_at is not None and t >= drop_at:
                    self.write({"conn": conn, "type": "drop", "t": round(t, 3)})
                    await ws.close(code=1011, reason="scripted drop")
                    return
        except ConnectionClosed:
            pass
        finally:
            self.write({"conn": conn, "type": "closed", "audio_s": round(received / rate, 3),
                        "rms": [round((v / rate) ** 0.5, 4) for v in sq]})
            for task in tasks:
                if task is not None:
                    task.cancel()

    async def call(self, ws, conn: int, c: dict, n: int) -> None:
        rid = f"resp_{conn}_{n}"
        await ws.send(json.dumps({"type": "response.created", "response": {"id": rid}}))
        await ws.send(json.dumps({"type": "response.function_call_arguments.done", "response_id": rid,
                                  "call_id": f"call_{conn}_{n}", "name": c["name"],
                                  "arguments": json.dumps(c["arguments"])}))
        await ws.send(json.dumps({"type": "response.done", "response": {"id": rid, "status": "completed"}}))

    async def speak_minicpmo(self, ws, conn: int, s: dict, n: int) -> None:
        """One turn as 1 s float32 units, each with the words that start in it, end_of_turn on the last."""
        await asyncio.sleep(float(self.c.get("latency", 0.0)))
        pcm = s["pcm"].astype(np.float32) / 32767.0
        words, off, starts = s["text"].split(), 0, []
        for w in words:
            idx = s["text"].index(w, off)
            starts.append(int(len(pcm) * idx / max(1, len(s["text"]))))
            off = idx + len(w)
        try:
            units = list(range(0, len(pcm), OUT_RATE))
            for i, a in enumerate(units):
                text = " ".join(w for w, st in zip(words, starts) if a <= st < a + OUT_RATE)
                unit = base64.b64encode(pcm[a:a + OUT_RATE].astype("<f4").tobytes()).decode()
                await ws.send(json.dumps({"type": "response.output_audio.delta", "text": (" " if i else "") + text,
                                          "audio": unit, "end_of_turn": i == len(units) - 1, "kv_cache_length": 100}))
            await ws.send(json.dumps({"type": "response.listen", "kv_cache_length": 100}))
            self.write({"conn": conn, "type": "spoke", "text": s["text"], "t": s["t"]})
        except ConnectionClosed:
            pass

    async def speak(self, ws, conn: int, s: dict, n: int) -> None:
        await asyncio.sleep(float(self.c.get("latency", 0.0)))
        rid = f"resp_{conn}_{n}"
        pcm = s["pcm"]
        words = s["text"].split()
        step = int(0.1 * OUT_RATE)
        # word k starts at the share of the audio its characters start at
        starts, off, total = [], 0, max(1, len(s["text"]))
        for w in words:
            idx = s["text"].index(w, off)
            starts.append(int(len(pcm) * idx / total))
            off = idx + len(w)
        try:
            await ws.send(json.dumps({"type": "response.created", "response": {"id": rid, "status": "in_progress"}}))
            wi = 0
            for a in range(0, len(pcm), step):
                while self.c.get("transcript", True) and wi < len(words) and starts[wi] < a + step:
                    await ws.send(json.dumps({"type": "response.audio_transcript.delta", "response_id": rid,
                                              "delta": ("" if wi == 0 else " ") + words[wi]}))
                    wi += 1
                await ws.send(json.dumps({"type": "response.audio.delta", "response_id": rid,
                                          "delta": base64.b64encode(pcm[a:a + step].tobytes()).decode()}))
            await ws.send(json.dumps({"type": "response.done", "response": {"id": rid, "status": "completed"}}))
            self.write({"conn": conn, "type": "spoke", "text": s["text"], "t": s["t"]})
        except ConnectionClosed:
            pass


async def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        config = json.load(f)
    scripted = Scripted(config)
    async with serve(scripted.handler, "127.0.0.1", 0, max_size=None) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"LISTENING {port}", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
