/* ibench-ui Session, input: Respond button, respond key, typed answers and the microphone (push-to-talk,
 * hands-free). Every response takes its media time from the <video> at the input event itself (snap), never
 * at Gradio's click.
 * One part of the page's session player: session.js makes the page object and calls this with it. */
(function (ns) {
  "use strict";
  ns.parts.input = function (P) {
    const { state: S, $, fmt, nowWall, status, video } = P;
    Object.assign(S, { typingT: null, mic: null, rec: null, asr: { status: "idle", message: "" }, handsfree: false, practiceN: 0 });

    function snap(source, ev) {
      const v = video();
      const wall = nowWall();
      return {
        source, media_t: v ? v.currentTime : null, paused: v ? v.paused : null,
        rate: v ? v.playbackRate : null, ready_state: v ? v.readyState : null, frame_t: S.frameT,
        client_wall_ms: wall, input_ts_wall_ms: ev && ev.timeStamp ? performance.timeOrigin + ev.timeStamp : wall,
        page_id: S.pageId,
      };
    }

    function isTyping(el) {
      if (!el) return false;
      const tag = (el.tagName || "").toUpperCase();
      return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
    }

    function onKeyDown(ev) {
      const tgt = ev.target;
      if (S.root && tgt && tgt.id === "session-key") {  // pick the respond key
        ev.preventDefault();
        tgt.value = ev.code || "Space";
        return;
      }
      if (!S.root || !S.sess) return;
      const key = (S.sess.settings && S.sess.settings.respond_key) || "Space";
      if (S.cal && S.cal.armed !== undefined && !isTyping(tgt)) {   // the reaction test listens for the key
        if (ev.code === key || ev.code === "Space") { ev.preventDefault(); if (!ev.repeat) P.calReact(ev); }
        return;
      }
      if (!S.active) {
        // before Start (or during the countdown) the key does nothing but say what to do; the page does not scroll
        if (S.item && ev.code === key && !isTyping(tgt) && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
          ev.preventDefault(); ev.stopPropagation();
          if (!S.started && !S.finishing) startHint();
        }
        return;
      }
      if (tgt && tgt.id === "response-text") {
        if (ev.key === "Enter" && !ev.isComposing && !ev.repeat) {
          ev.preventDefault(); sendText(snap("enter", ev));
          tgt.blur();   // the answer is sent: Space responds again instead of typing into the box
        } else if (ev.code === key && !tgt.value && !ev.isComposing) {
          // Space in the empty answer box is a response, not a leading blank
          ev.preventDefault(); ev.stopPropagation();
          if (!ev.repeat) respond(snap("key:" + key, ev));
        } else if (S.typingT === null && ev.key.length === 1) { const v = video(); S.typingT = v ? v.currentTime : null; }
        return;
      }
      if (tgt && tgt.id === "send-btn" && ev.key === "Enter") {  // Space stays the respond key everywhere
        ev.preventDefault();
        if (!ev.repeat) sendText(snap("send-key", ev));
        return;
      }
      if (isTyping(tgt)) return;
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      const onButton = tgt && tgt.id === "respond-btn" && ev.key === "Enter";
      if (ev.code === key || onButton) {
        ev.preventDefault();
        ev.stopPropagation();
        if (!ev.repeat) respond(snap(onButton ? "key:Enter" : "key:" + key, ev));
      }
    }

    function onPointerDown(ev) {
      if (S.root && S.cal && S.cal.armed !== undefined && ev.target && ev.target.closest && ev.target.closest("#cal-cue")) {
        P.calReact(ev); return;
      }
      if (!S.root || !S.active || ev.button !== 0) return;
      const t = ev.target && ev.target.closest ? ev.target : null;
      if (!t) return;
      if (t.closest("#respond-btn")) respond(snap("button", ev));
      else if (t.closest("#send-btn")) sendText(snap("send", ev));
      else if (t.closest("#mic-btn")) { ev.preventDefault(); pttStart(ev); }
    }

    function onPointerUp() { if (S.rec && S.rec.source === "ptt") pttStop(); }

    function respond(m) {
      if (!S.active) { startHint(); return; }
      if (!S.human) { status("In this session only the model responds.", true); return; }
      flash($("#respond-btn"));
      if (S.practice) { practiceSeen("press", m, ""); return; }
      P.post("respond", { ...P.base("press"), ...m }, true).then(P.accepted, () => {});
    }

    function practiceSeen(kind, m, text) {
      /* Practice: confirm at once on the page; nothing is sent or recorded. */
      S.practiceN = (S.practiceN || 0) + 1;
      status(`Practice: ${kind === "text" ? `answer “${text}”` : "response"} seen at ${fmt(m.media_t)} (practice is not recorded).`);
      document.dispatchEvent(new CustomEvent("ibench:practice", { detail: { kind, t: m.media_t } }));
    }

    function startHint() {
      const h = $("#start-hint");
      if (h) { h.hidden = false; h.textContent = S.countingDown ? "Get ready…" : "Press Start to begin."; }
      status(S.countingDown ? "Get ready…" : "Press Start first.", !S.countingDown);
    }

    function sendText(m) {
      if (!S.active) { startHint(); return; }
      if (!S.human) { status("In this session only the model responds.", true); return; }
      const box = $("#response-text");
      const text = (box.value || "").trim();
      if (!text) { status("Type a response before sending; nothing was logged.", true); box.focus(); return; }
      const payload = { ...P.base("text"), ...m, text, typing_started_t: S.typingT };
      box.value = ""; S.typingT = null;
      if (S.practice) { practiceSeen("text", m, text); return; }
      P.post("respond", payload, true).then(P.accepted, () => {});
    }

    async function micOpen() {
      if (S.mic) return S.mic;
      const stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true } });
      const ac = new (window.AudioContext || window.webkitAudioContext)();
      const src = ac.createMediaStreamSource(stream);
      const node = ac.createScriptProcessor(1024, 1, 1);
      const mic = { stream, ac, src, node, rate: ac.sampleRate, ring: [], ringLen: 0, floor: 0.003, hot: 0, cold: 0 };
      node.onaudioprocess = (e) => onAudio(mic, e.inputBuffer.getChannelData(0));
      src.connect(node); node.connect(ac.destination);
      if (ac.state !== "running") await ac.resume();
      S.mic = mic;
      return mic;
    }

    function onAudio(mic, x) {
      const v = video();
      const chunk = { data: new Float32Array(x), media: v ? v.currentTime : 0 };
      mic.ring.push(chunk); mic.ringLen += chunk.data.length;  // ~0.5 s of pre-roll for hands-free
      while (mic.ringLen - mic.ring[0].data.length > mic.rate * 0.5) mic.ringLen -= mic.ring.shift().data.length;
      if (S.rec) {
        S.rec.chunks.push(chunk);
        S.rec.len += chunk.data.length;
        if (S.rec.len > mic.rate * (S.rec.source === "ptt" ? 30 : 15)) finishRec();
      }
      if (S.realtime && S.active && S.human) P.toModel(mic, chunk);
      if (!S.handsfree || !S.active || !S.human) return;
      let e = 0; for (let i = 0; i < x.length; i++) e += x[i] * x[i];
      const rms = Math.sqrt(e / x.length);
      const thr = Math.max(0.01, mic.floor * 4);
      if (rms > thr) { mic.hot++; mic.cold = 0; } else { mic.cold++; mic.hot = 0; if (!S.rec) mic.floor = 0.98 * mic.floor + 0.02 * rms; }
      if (!S.rec && mic.hot >= 3) {          // ~60 ms of voice: start a segment with the pre-roll
        S.rec = { source: "vad", chunks: mic.ring.slice(), len: mic.ringLen, pressMedia: chunk.media };
        micUi("Listening… (hands-free)");
      } else if (S.rec && S.rec.source === "vad" && mic.cold * 1024 > mic.rate * 0.8) {
        finishRec();                          // 0.8 s of quiet ends it
      }
    }

    async function pttStart(ev) {
      if (S.asr.status !== "ready") { micUi(S.asr.message || "Voice responses are not available.", false); return; }
      if (S.handsfree || !S.human) return;
      const pressMedia = video() ? video().currentTime : 0;
      S.rec = { source: "ptt", chunks: [], len: 0, pressMedia, opening: true };
      micUi("Recording… release to send");
      $("#mic-btn").classList.add("ib-on");
      try { await micOpen(); } catch (err) { S.rec = null; micUi("Microphone unavailable: " + err.message, true); }
      if (S.rec) S.rec.opening = false;
    }

    function pttStop() { $("#mic-btn").classList.remove("ib-on"); finishRec(); }

    function finishRec() {
      const rec = S.rec; S.rec = null;
      if (!rec || !S.mic) return;
      if (rec.len < S.mic.rate * 0.15) { micUi("Too short: hold the button while you speak."); return; }
      micUi(rec.source === "vad" ? "Hands-free: listening" : "Transcribing…");
      const rate = S.mic.rate;
      const factor = rate % 16000 === 0 ? rate / 16000 : 1;       // send 16 kHz when the rate allows
      const outRate = rate / factor;
      const pcm = new Int16Array(Math.floor(rec.len / factor));
      const ends = [];
      let inPos = 0, acc = 0, k = 0, outPos = 0;
      for (const c of rec.chunks) {
        for (let i = 0; i < c.data.length; i++) {
          acc += c.data[i]; k++;
          if (k === factor) { const s = Math.max(-1, Math.min(1, acc / factor)); if (outPos < pcm.length) pcm[outPos++] = s * 32767; acc = 0; k = 0; }
        }
        inPos += c.data.length;
        ends.push([Math.floor(inPos / factor), c.media]);
      }
      const first = rec.chunks[0];
      const startMedia = Math.max(0, first.media - first.data.length / rate);
      const bytes = new Uint8Array(pcm.buffer);
      let bin = ""; for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      const payload = { ...P.base("speech"), source: rec.source, sample_rate: outRate, pcm_b64: btoa(bin),
        chunk_ends: ends, start_media_t: startMedia, press_media_t: rec.pressMedia, page_id: S.pageId };
      P.post("speak", payload, false).then((res) => { P.accepted(res); if (res && res.ok) micUi(S.handsfree ? "Hands-free: listening" : "Hold to talk"); else if (res) micUi(res.error, true); },
        () => micUi("Could not send the recording.", true));
    }

    function micUi(msg, bad) { const el = $("#mic-status"); if (el) { el.textContent = msg || ""; el.classList.toggle("ib-bad", !!bad); } }

    function applyAsr(asr) {
      S.asr = asr || S.asr;
      const ok = S.asr.status === "ready";
      // a participant or an audience never sees a microphone that cannot work, nor why (the operator's business)
      const none = ((S.sess && S.sess.study) || S.present) && !(ok && S.human && !S.present);
      $("#mic-btn").hidden = none; $("#mic-handsfree").closest("label").hidden = none; $("#mic-status").hidden = none;
      $("#mic-btn").disabled = !ok || !S.started || !S.human;
      $("#mic-handsfree").disabled = !ok;
      // staff read the missing speech model as a note on how to turn voice on, never as a red error
      micUi(none ? "" : S.asr.message, false);
      $("#mic-status").classList.toggle("ib-note", !none && S.asr.status !== "ready" && !!S.asr.message);
      $("#mic-status").title = none ? "" : S.asr.detail || "";
      if (S.asr.status === "loading") setTimeout(async () => {
        try { const r = await P.call("asr_status", { session_id: S.sess ? S.sess.id : "" }); applyAsr(r.asr); } catch (e) { /* try again on next item */ }
      }, 1500);
    }

    function flash(el) { if (!el) return; el.classList.remove("ib-flash"); void el.offsetWidth; el.classList.add("ib-flash"); }

    document.addEventListener("keydown", onKeyDown, true);
    document.addEventListener("pointerdown", onPointerDown, true);
    document.addEventListener("pointerup", onPointerUp, true);
    document.addEventListener("pointercancel", onPointerUp, true);
    document.addEventListener("contextmenu", (ev) => { if (ev.target && ev.target.id === "stream-video") ev.preventDefault(); }, true);
    return { applyAsr, finishRec, micOpen, micUi, snap };
  };
})(window.ibenchSession);
