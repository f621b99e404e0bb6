/* ibench-ui Session, model lane: the live timeline (rows pushed by the server drawn in their lane at once, each
 * with its emit and shown times), a live model's long-poll, state and caption on the video (presenter), its
 * speech played at its media time, and the open microphone streamed to a duplex model.
 * One part of the page's session player: session.js makes the page object and calls this with it. */
(function (ns) {
  "use strict";
  ns.parts.model = function (P) {
    const { state: S, $, fmt, nowWall, video } = P;
    Object.assign(S, { cursor: 0, polling: false, rows: new Map(), speech: new Map(), shown: {}, nRows: -1, thinking: null,
      modelReady: true, realtime: false, micOut: null, heard: 0, ac: null, sources: new Set(), stateTimer: null,
      want: null, shownAt: 0 });

    function toModel(mic, chunk) {
      /* Duplex: stream the open microphone to the server (~0.2 s pieces at their media time), which mixes it
         into what the realtime model hears. Nothing here is logged; spoken responses still go through speak. */
      const out = S.micOut || (S.micOut = { parts: [], len: 0, t0: null });
      if (out.t0 === null) out.t0 = Math.max(0, chunk.media - chunk.data.length / mic.rate);
      out.parts.push(chunk.data); out.len += chunk.data.length;
      if (out.len < mic.rate * 0.2) return;
      const pcm = new Int16Array(out.len);
      let k = 0;
      for (const p of out.parts) for (let i = 0; i < p.length; i++) pcm[k++] = Math.max(-1, Math.min(1, p[i])) * 32767;
      const bytes = new Uint8Array(pcm.buffer);
      let bin = ""; for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      const req = { page_id: S.pageId, session_id: S.sess.id, item_index: S.item.index, item_id: S.item.id,
        media_t: out.t0, sample_rate: mic.rate, pcm_b64: btoa(bin) };
      S.micOut = null;
      S.server.hear(P.withCreds(req)).then((res) => { if (res && res.ok) S.heard = (S.heard || 0) + (res.heard ? 1 : 0); }, () => null);
    }

    async function checkModel() {
      /* Presenter: reach the model before the stream starts; Start waits for the answer. */
      const st = $("#start-btn");
      S.modelReady = false; st.disabled = true; st.textContent = "Checking the model…";
      modelState("checking", "checking the model…");
      let res = null;
      try { res = await P.call("model_check", { session_id: S.sess.id }); } catch (e) { res = { ok: false, error: String(e.message || e) }; }
      const okNow = res.ok && res.ready;
      S.modelReady = okNow;
      st.textContent = "Start"; st.disabled = !okNow;
      if (okNow) { modelState("ready", "ready"); modelStatus(`Model ${S.model} is ready: press Start.`); }
      else { modelState("error", "unreachable"); modelStatus(`Model ${S.model} is not reachable: ${res.reason || res.error}`, true); }
    }

    function modelStatus(msg, bad) {
      const el = $("#model-status"); if (!el) return;
      el.textContent = msg || ""; el.classList.toggle("ib-bad", !!bad);
    }

    async function pollLoop() {
      /* Long-poll the server for this page's model events; each call returns at once when there is news. */
      if (S.polling) return;
      S.polling = true;
      let fails = 0;
      try {
        while (S.model) {
          let res = null;
          try { res = await S.server.wait_model(P.withCreds({ page_id: S.pageId, cursor: S.cursor })); } catch (e) { res = null; }
          if (!res || !res.ok) { fails++; await new Promise(r => setTimeout(r, Math.min(4000, 200 * 2 ** fails))); continue; }
          fails = 0;
          if (res.cursor < S.cursor) S.cursor = 0;  // the server restarted: its events start again at 0
          for (const ev of res.events || []) onModelEvent(ev);
          S.cursor = res.cursor;
        }
      } finally { S.polling = false; }
    }

    function onModelEvent(ev) {
      if (!S.sess || !S.item || ev.session_id !== S.sess.id || ev.item_index !== S.item.index) return;
      if (ev.type === "response") { S.rows.set(ev.rid, ev); insertRow(ev); spoke(ev); return; }
      if (ev.type === "speech") { speechPiece(ev); return; }
      if (ev.type === "call") {
        if (ev.state === "thinking") { S.thinking = { since: performance.now(), t: ev.t }; tickThinking(); }
        else if (S.thinking) { S.thinking = null; if (modelStateNow() !== "spoke") modelState("watching", "watching"); }
        return;
      }
      if (ev.type === "status") {
        if (ev.state === "running") {
          modelState("watching", "watching"); S.realtime = ev.protocol === "realtime";
          // duplex: the person may talk to a realtime model at any time, so its microphone opens with it
          if (S.realtime && S.human) P.micOpen().catch((err) => P.micUi("Microphone unavailable: " + err.message, true));
        }
        else if (ev.state === "error") modelState("error", "error: " + (ev.reason || "failed"));
        else if (ev.state === "done") modelState("done", "finished");
        const what = { running: `Model ${ev.spec} is watching (${ev.protocol}).`,
          done: `Model ${ev.spec} finished this item (${ev.emitted} response(s)).`,
          cancelled: `Model ${ev.spec} stopped (${ev.reason || "cancelled"}).`,
          error: `Model ${ev.spec} failed: ${ev.reason}` }[ev.state] || "";
        modelStatus(what, ev.state === "error");
      }
    }

    function caption(text, ev) {
      const el = $("#model-caption"); if (!el) return;
      el.textContent = text || ""; el.hidden = !text;
      if (ev) { el.dataset.rid = ev.rid; el.dataset.emitMs = Number(ev.emit_wall_ms).toFixed(1); el.dataset.shownMs = nowWall().toFixed(1); }
    }

    // The state badge changes only when a state lasts: a new state is shown once it has been the latest for
    // SETTLE_MS (a model call of a few ms never flashes "thinking"), and a shown state stays at least HOLD_MS, so
    // an audience can read it. "spoke" (an event) needs no settling; errors and clearing show at once.
    const SETTLE_MS = 700, HOLD_MS = 1200;

    function modelStateNow() { return S.want ? S.want.state : ""; }

    function modelState(state, text) {
      /* Ask for a state; the badge follows when the rules above allow (a newer request replaces this one). */
      state = state || "";
      if (S.want && S.want.state === state) { S.want.text = text; showText(); return; }
      S.want = { state, text, since: performance.now() };
      settle();
    }

    function settle() {
      clearTimeout(S.stateTimer);
      const el = $("#model-state"), w = S.want; if (!el || !w) return;
      if ((el.dataset.state || "") === w.state) { showText(); return; }
      const now = performance.now();
      const at = !w.state || w.state === "error" || !el.dataset.state ? now
        : Math.max(w.since + (w.state === "spoke" ? 0 : SETTLE_MS), S.shownAt + HOLD_MS);
      if (at > now) { S.stateTimer = setTimeout(settle, at - now); return; }
      S.shownAt = now;
      el.dataset.since = now.toFixed(1);   // for tests and scripts: when the badge took this state
      el.dataset.state = w.state; el.hidden = !w.state;
      el.classList.toggle("ib-bad", w.state === "error");
      showText();
    }

    function showText() {
      const el = $("#model-state"), w = S.want;
      if (el && w && (el.dataset.state || "") === w.state) el.textContent = w.state ? `${S.model}: ${w.text || w.state}` : "";
    }

    function tickThinking() {
      /* "thinking 1.4 s": the model call in flight, counted on the page from the moment it was announced. */
      if (!S.thinking) return;
      modelState("thinking", `thinking ${((performance.now() - S.thinking.since) / 1000).toFixed(1)} s`);
      setTimeout(tickThinking, 100);
    }

    function spoke(ev) {
      S.thinking = null;
      const words = ev.text || (ev.kind === "press" ? "(responds)" : "");
      caption(words, ev);
      modelState("spoke", `spoke at ${fmt(ev.t)}`);
      const tts = $("#tts-toggle");
      if (tts && tts.checked && ev.text && window.speechSynthesis && !S.speech.size) {  // a realtime model speaks itself
        try { speechSynthesis.cancel(); speechSynthesis.speak(new SpeechSynthesisUtterance(ev.text)); } catch (e) { /* no voice */ }
      }
      document.dispatchEvent(new CustomEvent("ibench:caption", { detail: { rid: ev.rid, emit: ev.emit_wall_ms, shown: nowWall() } }));
    }

    function cssEsc(x) {
      /* A value quoted inside an attribute selector. */
      return (window.CSS && CSS.escape) ? CSS.escape(x) : String(x).replace(/["\\]/g, "\\$&");
    }

    function insertRow(ev) {
      /* Draw one row now, as the server renders it: a mark in its lane (or on the plain track) and a list
         row in time order. Rows are a pushed model response or the acknowledgement of this page's own. */
      const tl = $("#session-timeline .ib-tl");
      if (!tl) return;
      const model = ev.emit_wall_ms !== undefined;
      if (tl.querySelector(`li[data-rid="${cssEsc(ev.rid)}"]`)) { if (model) noteShown(tl); return; }
      const lane = tl.querySelector(`.ib-tl-lane[data-lane="${cssEsc(ev.lane || ev.responder)}"]`)
        || (tl.querySelector(".ib-tl-lane") ? null : tl.querySelector(".ib-tl-track"));
      if (lane && !lane.querySelector(`[data-rid="${cssEsc(ev.rid)}"]`)) lane.insertAdjacentHTML("beforeend", ev.mark_html);
      const list = tl.querySelector(".ib-tl-list");
      const tmp = document.createElement("ol");
      tmp.innerHTML = ev.row_html;
      const li = tmp.firstElementChild;
      let before = null;
      for (const x of list.children) { if (Number(x.dataset.t) < ev.t) { before = x; break; } }
      list.insertBefore(li, before);
      const n = list.children.length;
      tl.dataset.n = n;
      const cnt = tl.querySelector(".ib-tl-count"); if (cnt) cnt.textContent = `${n} response(s) logged`;
      if (!model) return;
      const shown = nowWall();
      if (!S.shown[ev.rid]) S.shown[ev.rid] = { emit: ev.emit_wall_ms, shown, t: ev.t, via: "push" };
      li.dataset.emitMs = Number(ev.emit_wall_ms).toFixed(1);
      li.dataset.shownMs = S.shown[ev.rid].shown.toFixed(1);
      document.dispatchEvent(new CustomEvent("ibench:model", { detail: { ...S.shown[ev.rid], rid: ev.rid } }));
    }

    function speechPiece(ev) {
      /* One piece of a realtime model's audio, placed by the server at media time ev.t..ev.end: grow that
         utterance's span in the model lane and play the piece at its media time. */
      const sp = S.speech.get(ev.rid) || { start: ev.t, end: ev.t, lane: ev.lane, span: ev.span, pieces: 0 };
      sp.end = Math.max(sp.end, ev.end); sp.pieces++;
      S.speech.set(ev.rid, sp);
      drawSpan(ev.rid, sp);
      playPiece(ev);
      modelState("speaking", `speaking at ${fmt(sp.start)}`);
    }

    function drawSpan(rid, sp) {
      const tl = $("#session-timeline .ib-tl"); if (!tl) return;
      const lane = tl.querySelector(`.ib-tl-lane[data-lane="${cssEsc(sp.lane)}"]`); if (!lane) return;
      let el = lane.querySelector(`.ib-tl-speech[data-rid="${cssEsc(rid)}"]`);
      if (!el) { el = document.createElement("div"); el.className = "ib-tl-speech"; el.dataset.rid = rid; lane.appendChild(el); }
      const span = Number(tl.dataset.span) || Number(sp.span) || 1;
      const pct = (t) => Math.max(0, Math.min(100, 100 * t / span));
      el.dataset.start = sp.start.toFixed(3); el.dataset.end = sp.end.toFixed(3); el.dataset.pieces = sp.pieces;
      el.style.left = `${pct(sp.start).toFixed(3)}%`;
      el.style.width = `${Math.max(0.2, pct(sp.end) - pct(sp.start)).toFixed(3)}%`;
      el.title = `${S.model} speaks ${fmt(sp.start)}–${fmt(sp.end)}`;
    }

    function playPiece(ev) {
      /* Web Audio: schedule the piece where its media time falls on the audio clock (late: the unheard rest). */
      const v = video(); if (!v || !ev.pcm16) return;
      const AC = window.AudioContext || window.webkitAudioContext; if (!AC) return;
      try {
        if (!S.ac) S.ac = new AC();
        const ac = S.ac, bin = atob(ev.pcm16), n = bin.length >> 1;
        if (!n) return;
        const buf = ac.createBuffer(1, n, ev.rate), ch = buf.getChannelData(0);
        for (let i = 0; i < n; i++) { const x = bin.charCodeAt(2 * i) | (bin.charCodeAt(2 * i + 1) << 8); ch[i] = (x > 32767 ? x - 65536 : x) / 32768; }
        const rate = v.playbackRate || 1, src = ac.createBufferSource();
        src.buffer = buf; src.playbackRate.value = rate; src.connect(ac.destination);
        const lead = (ev.t - v.currentTime) / rate, late = Math.max(0, -lead) * rate;
        if (late >= buf.duration) return;  // already past in the stream: never heard
        src.start(ac.currentTime + Math.max(0, lead), late);
        const sp = S.speech.get(ev.rid); if (sp) sp.played = (sp.played || 0) + 1;
        (S.sources = S.sources || new Set()).add(src);
        src.onended = () => S.sources.delete(src);
      } catch (e) { /* no audio device: the span and the caption still show */ }
    }

    function stopModelAudio() {
      for (const src of (S.sources || [])) { try { src.stop(); } catch (e) { /* already stopped */ } }
      S.sources = new Set();
    }

    function noteShown(tl) {
      /* Model rows that reached the DOM in a server-rendered timeline: keep (or record) when they first showed. */
      const now = nowWall();
      tl.querySelectorAll("li.ib-tl-model").forEach((li) => {
        const rid = li.dataset.rid;
        if (!S.shown[rid]) S.shown[rid] = { emit: Number(li.dataset.emitMs), shown: now, t: Number(li.dataset.t), via: "render" };
        li.dataset.shownMs = S.shown[rid].shown.toFixed(1);
      });
    }

    function setTimeline(html) {
      /* Replace the live timeline with the server's rendering, keeping pushed model rows it may not have yet. */
      const box = $("#session-timeline");
      box.innerHTML = html;
      const tl = box.querySelector(".ib-tl");
      if (!tl) return;
      noteShown(tl);
      for (const ev of S.rows.values()) insertRow(ev);
      for (const [rid, sp] of S.speech) drawSpan(rid, sp);
    }

    window.addEventListener("pagehide", () => { if (S.model && S.server) S.server.model_stop(P.withCreds({ page_id: S.pageId })).catch(() => {}); });
    return { caption, checkModel, insertRow, modelState, modelStatus, pollLoop, setTimeline, stopModelAudio, toModel };
  };
})(window.ibenchSession);
