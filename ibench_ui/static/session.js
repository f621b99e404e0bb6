/* ibench-ui Session tab: plays one benchmark item at a time and logs every response with the media
 * time read from the <video> at the input event (pointerdown / keydown), never at Gradio's click.
 * Responses go straight to Python through gr.HTML server functions; a response is shown as logged
 * only after the server has committed it. Unacknowledged responses wait in localStorage and are
 * re-sent (idempotent ids), so a reload or a server restart loses nothing.
 * With a live model in the session, the page also reports its media clock (media events + 1 Hz) and
 * long-polls `wait_model`; pushed model rows go straight into the timeline's model lane, each with
 * the server's emit time and the time it hit the DOM (data-emit-ms / data-shown-ms).
 * See ../../shared/notes/ui_timing.md for the measurements behind these choices. */
(function () {
  "use strict";
  if (window.ibenchSession) return;

  const OUTBOX = "ibench.outbox";
  const LAST = "ibench.session";
  const uuid = () => (crypto.randomUUID ? crypto.randomUUID().replace(/-/g, "")
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), b => b.toString(16).padStart(2, "0")).join(""));
  const nowWall = () => performance.timeOrigin + performance.now();

  const S = {
    pageId: uuid(), server: null, root: null, sess: null, item: null, started: false, active: false,
    maxT: 0, frameT: null, inflight: new Set(), nRows: -1, finishing: false, typingT: null,
    mic: null, rec: null, asr: { status: "idle", message: "" }, logged: 0,
    model: "", human: true, cursor: 0, polling: false, rows: new Map(), speech: new Map(), shown: {}, modelN: 0,
    practice: false, countingDown: false, cal: null, thinking: null, modelReady: true,
  };

  const $ = (sel) => S.root ? S.root.querySelector(sel) : null;
  const video = () => $("#stream-video");

  /* ---------------------------------------------------------------- capture */
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
      if (ev.code === key || ev.code === "Space") { ev.preventDefault(); if (!ev.repeat) calReact(ev); }
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
      calReact(ev); return;
    }
    if (!S.root || !S.active || ev.button !== 0) return;
    const t = ev.target && ev.target.closest ? ev.target : null;
    if (!t) return;
    if (t.closest("#respond-btn")) respond(snap("button", ev));
    else if (t.closest("#send-btn")) sendText(snap("send", ev));
    else if (t.closest("#mic-btn")) { ev.preventDefault(); pttStart(ev); }
  }

  function onPointerUp() { if (S.rec && S.rec.source === "ptt") pttStop(); }

  /* ---------------------------------------------------------------- sending */
  function outbox() { try { return JSON.parse(localStorage.getItem(OUTBOX) || "{}"); } catch (e) { return {}; } }
  function saveOutbox(o) { try { localStorage.setItem(OUTBOX, JSON.stringify(o)); } catch (e) { /* quota: still sent */ } }

  function post(fn, payload, keep) {
    /* Send one response; keep it in the outbox until the server acknowledges it (retries on failure). */
    if (keep) { const o = outbox(); o[payload.rid] = { fn, payload }; saveOutbox(o); }
    setPending();
    const p = (async () => {
      let delay = 250;
      for (let attempt = 0; ; attempt++) {
        try {
          const res = ROUTES[fn] && !S.noRoute ? await postRoute(fn, withCreds(payload))
                                               : await S.server[fn](withCreds(payload));
          // Gradio's client resolves to undefined when the request failed (it only logs a warning)
          if (!res || typeof res.ok !== "boolean") throw new Error("no answer from the server");
          if (keep) { const o = outbox(); delete o[payload.rid]; saveOutbox(o); }
          // for scripts and benchmarks: the moment the page knows the response is durable
          document.dispatchEvent(new CustomEvent("ibench:logged", { detail: { rid: payload.rid, ok: res.ok,
            kind: payload.kind, input_ts_wall_ms: payload.input_ts_wall_ms, acked_wall_ms: nowWall(), t: res.t } }));
          return res;
        } catch (err) {
          // keep trying while the page lives (the outbox also survives a reload); never drop a response
          if (attempt >= 2) status(`Server unreachable: ${S.inflight.size} response(s) kept in this browser, retrying…`, true);
          await new Promise(r => setTimeout(r, delay)); delay = Math.min(delay * 2, 4000);
        }
      }
    })();
    S.inflight.add(p);
    p.finally(() => { S.inflight.delete(p); setPending(); });
    return p;
  }

  async function flushOutbox() {
    const o = outbox();
    for (const rid of Object.keys(o)) {
      const { fn, payload } = o[rid];
      post(fn, payload, true).then((res) => {
        if (S.item && payload.session_id === S.sess.id && payload.item_index === S.item.index) accepted(res);
      }, () => { /* kept for the next load */ });
    }
  }

  // the response path is also a plain JSON route beside this page (ibench_ui.host): the same checked
  // function as the server function, without Gradio's per-call dispatch
  const ROUTES = { respond: "api/respond" };

  async function postRoute(fn, body) {
    const url = new URL(ROUTES[fn], location.origin + location.pathname.replace(/[^/]*$/, ""));
    const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
                                 body: JSON.stringify(body), credentials: "same-origin" });
    if (r.status >= 400 && r.status < 500 && r.status !== 413) {
      // the route is not reachable as this page sees it (e.g. a proxy that rewrites Host): the same function
      // through Gradio's server-function call, for the rest of this page's life
      S.noRoute = true;
      return S.server[fn](body);
    }
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    return r.json();
  }

  function withCreds(payload) {
    /* The server checks who calls (issue 10): a study link's token, or the studio's staff sign-in. */
    const out = Object.assign({}, payload);
    const t = new URLSearchParams(location.search).get("t");
    if (t) out.t = t;
    const who = document.querySelector("#signin-status[data-token]");
    if (who) out.auth = who.dataset.token;
    return out;
  }

  async function call(fn, payload) {
    /* One server-function call; a failed request (undefined from Gradio's client) becomes an error. */
    const res = await S.server[fn](withCreds(payload));
    if (!res || typeof res.ok !== "boolean") throw new Error("The server did not answer; check the connection and try again.");
    return res;
  }

  function base(kind) {
    return { rid: "r_" + uuid().slice(0, 24), session_id: S.sess.id, item_index: S.item.index, item_id: S.item.id, kind };
  }

  function accepted(res) {
    if (!res) return;
    if (!res.ok) { status(res.error, true); return; }
    S.logged += res.duplicate ? 0 : 1;
    if (res.row) {  // the new row alone (the server no longer re-renders the item's whole log per press)
      if (S.item && res.row.item_index === S.item.index) { S.rows.set(res.row.rid, res.row); insertRow(res.row); }
    } else if (typeof res.n_rows === "number" && res.n_rows >= S.nRows) {
      S.nRows = res.n_rows;
      setTimeline(res.timeline_html);
    }
    const what = res.kind === "text" || res.kind === "speech" ? ` “${res.text || "…"}”` : "";
    status(res.warning || `Logged ${res.kind} at ${fmt(res.t)}${what}`, !!res.warning);
  }

  function respond(m) {
    if (!S.active) { startHint(); return; }
    if (!S.human) { status("In this session only the model responds.", true); return; }
    flash($("#respond-btn"));
    if (S.practice) { practiceSeen("press", m, ""); return; }
    post("respond", { ...base("press"), ...m }, true).then(accepted, () => {});
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
    const payload = { ...base("text"), ...m, text, typing_started_t: S.typingT };
    box.value = ""; S.typingT = null;
    if (S.practice) { practiceSeen("text", m, text); return; }
    post("respond", payload, true).then(accepted, () => {});
  }

  /* ---------------------------------------------------------------- microphone */
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
    if (S.realtime && S.active && S.human) toModel(mic, chunk);
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
    S.server.hear(withCreds(req)).then((res) => { if (res && res.ok) S.heard = (S.heard || 0) + (res.heard ? 1 : 0); }, () => null);
  }

  async function pttStart(ev) {
    if (S.asr.status !== "ready") { micUi(S.asr.message || "Voice responses are not available.", true); return; }
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
    const payload = { ...base("speech"), source: rec.source, sample_rate: outRate, pcm_b64: btoa(bin),
      chunk_ends: ends, start_media_t: startMedia, press_media_t: rec.pressMedia, page_id: S.pageId };
    post("speak", payload, false).then((res) => { accepted(res); if (res && res.ok) micUi(S.handsfree ? "Hands-free: listening" : "Hold to talk"); else if (res) micUi(res.error, true); },
      () => micUi("Could not send the recording.", true));
  }

  function micUi(msg, bad) { const el = $("#mic-status"); if (el) { el.textContent = msg || ""; el.classList.toggle("ib-bad", !!bad); } }

  function applyAsr(asr) {
    S.asr = asr || S.asr;
    const ok = S.asr.status === "ready";
    $("#mic-btn").disabled = !ok || !S.started || !S.human;
    $("#mic-handsfree").disabled = !ok;
    micUi(S.asr.message, S.asr.status === "error");
    $("#mic-status").title = S.asr.detail || "";
    if (S.asr.status === "loading") setTimeout(async () => {
      try { const r = await call("asr_status", { session_id: S.sess ? S.sess.id : "" }); applyAsr(r.asr); } catch (e) { /* try again on next item */ }
    }, 1500);
  }

  /* ---------------------------------------------------------------- session flow */
  function status(msg, bad) { const el = $("#session-status"); if (el) { el.textContent = msg || ""; el.classList.toggle("ib-bad", !!bad); } }
  function message(msg, bad) { const el = $("#session-message"); if (el) { el.textContent = msg || ""; el.classList.toggle("ib-bad", !!bad); } }
  function setPending() { const n = S.inflight.size; const el = $("#respond-btn"); if (el) el.dataset.pending = n; }
  function flash(el) { if (!el) return; el.classList.remove("ib-flash"); void el.offsetWidth; el.classList.add("ib-flash"); }
  function fmt(t) { if (t === null || t === undefined) return "–"; const m = Math.floor(t / 60); return `${String(m).padStart(2, "0")}:${(t - 60 * m).toFixed(3).padStart(6, "0")}`; }

  function urlParams() {
    const q = new URLSearchParams(location.search);
    // item ids contain '#'; an unencoded '#' in a study link arrives as the fragment
    if (q.has("items") && location.hash.length > 1 && !q.get("items").includes("#"))
      q.set("items", q.get("items") + decodeURIComponent(location.hash));
    return q;
  }

  function setUrlSession(id) {
    const q = new URLSearchParams(location.search);
    q.set("session", id);
    history.replaceState(null, "", location.pathname + "?" + q.toString());
    try {
      localStorage.setItem(LAST, id);
      if (S.pendingLink) { localStorage.setItem(S.pendingLink, id); S.pendingLink = null; }
    } catch (e) { /* private mode */ }
  }

  async function open(req) {
    message("Opening…");
    let res;
    try { res = await call("open_session", req); } catch (err) { message(String(err.message || err), true); return; }
    if (!res.ok) { message(res.error, true); return; }
    message("");
    show(res);
  }

  function show(res) {
    S.sess = res.session;
    const st = S.sess.settings || {};
    S.model = st.model || ""; S.human = !S.model || st.responders !== "model";
    if (S.model) pollLoop();
    setUrlSession(S.sess.id);
    $("#session-setup").hidden = true;
    const box = $("#ib-session");
    box.classList.toggle("ib-study", !!S.sess.study);
    box.classList.toggle("ib-model-only", !S.human);
    box.classList.toggle("ib-has-model", !!S.model);
    $("#study-step").hidden = true; $("#study-consent").hidden = true; $("#calibration").hidden = true;
    S.practice = false; S.cal = null;
    if (res.done && res.end_html !== undefined) { endScreen(res); return; }
    if (res.step === "consent") { consentStep(res); return; }
    if (res.step === "calibration") { calibrationStep(res); return; }
    $("#session-player").hidden = false;
    if (res.step === "practice") {
      S.practice = true;
      loadItem({ ...res, item: res.practice, timeline_html: "", n_rows: 0, resume_t: 0 });
      $("#session-header").textContent = `Practice video: try the controls. Nothing is recorded.`;
      applyAsr(res.asr);
      return;
    }
    if (res.done) {
      S.item = null; S.active = false;
      $("#item-result").hidden = false;
      $("#item-result").innerHTML = res.summary_html;
      $("#next-btn").hidden = true;
      $("#start-btn").hidden = true;
      $("#session-header").textContent = `${S.sess.participant} · ${S.sess.benchmark} · session complete`;
      for (const id of ["#respond-btn", "#send-btn", "#response-text", "#mic-btn"]) $(id).disabled = true;
      return;
    }
    loadItem(res);
    applyAsr(res.asr);
  }

  function loadItem(res) {
    const it = res.item;
    S.item = it; S.started = false; S.active = false; S.finishing = false; S.nRows = -1; S.frameT = null;
    S.countingDown = false;
    $("#start-hint").hidden = true;
    caption(""); modelState("");
    const stored = S.practice ? 0 : Number(localStorage.getItem(posKey()) || 0);
    const resume = Math.max(res.resume_t || 0, isFinite(stored) ? stored : 0);
    S.maxT = resume;
    const s = S.sess;
    $("#session-header").textContent = `${s.participant} · ${s.benchmark} · item ${it.index + 1} of ${s.n_items}` +
      (resume > 0 ? ` · resuming at ${fmt(resume)}` : "");
    $("#item-result").hidden = true; $("#item-result").innerHTML = "";
    $("#next-btn").hidden = true;
    S.rows = new Map(); S.speech = new Map(); stopModelAudio(); S.realtime = false; S.micOut = null;
    setTimeline(res.timeline_html); S.nRows = res.n_rows;
    $("#session-request").textContent = "";
    $("#session-request").dataset.shown = "0";
    const keyName = ((s.settings && s.settings.respond_key) || "Space").replace(/^(Key|Digit)/, "");
    $("#respond-btn").querySelector("small").textContent = `(${keyName})`;
    $("#pause-btn").hidden = !(s.settings && s.settings.pause_allowed);
    $("#model-status").hidden = !S.model;
    modelStatus(S.model ? `Model ${S.model} (${(s.settings.protocol || "benchmark protocol")}) watches ` +
      (S.human ? "beside you: press Start." : "this stream: press Start.") : "");
    for (const id of ["#respond-btn", "#send-btn", "#response-text"]) $(id).disabled = true;
    const v = video();
    v.removeAttribute("controls");
    v.muted = false;
    v.dataset.item = it.id;
    v.src = it.video_url;
    v.load();
    if (resume > 0) {
      const seek = () => { v.currentTime = Math.min(resume, (v.duration || resume)); };
      if (v.readyState >= 1) seek(); else v.addEventListener("loadedmetadata", seek, { once: true });
    }
    trackFrames(v);
    const st = $("#start-btn"); st.hidden = false; st.disabled = false;
    st.textContent = resume > 0 ? "Resume" : "Start";
    status(res.notice === "resumed" && res.n_rows ? `${res.n_rows} response(s) already logged on this item.` : "Press Start when ready.");
    $("#tts-row").hidden = !S.model;
    if (S.model) checkModel();
    // every item starts with the player at the top of the window: video, Respond and status in view
    const pl = $("#session-player");
    if (pl && pl.scrollIntoView) pl.scrollIntoView({ block: "start" });
  }

  async function checkModel() {
    /* Presenter: reach the model before the stream starts; Start waits for the answer. */
    const st = $("#start-btn");
    S.modelReady = false; st.disabled = true; st.textContent = "Checking the model…";
    modelState("checking", "checking the model…");
    let res = null;
    try { res = await call("model_check", { session_id: S.sess.id }); } catch (e) { res = { ok: false, error: String(e.message || e) }; }
    const okNow = res.ok && res.ready;
    S.modelReady = okNow;
    st.textContent = "Start"; st.disabled = !okNow;
    if (okNow) { modelState("ready", "ready"); modelStatus(`Model ${S.model} is ready: press Start.`); }
    else { modelState("error", "unreachable"); modelStatus(`Model ${S.model} is not reachable: ${res.reason || res.error}`, true); }
  }

  function posKey() { return S.sess && S.item ? `ibench.pos.${S.sess.id}.${S.item.index}` : "ibench.pos"; }

  function trackFrames(v) {
    if (!v.requestVideoFrameCallback) return;
    const cb = (now, md) => { if (video() === v) { S.frameT = md.mediaTime; v.requestVideoFrameCallback(cb); } };
    v.requestVideoFrameCallback(cb);
  }

  async function countdown(n) {
    /* Study items begin after a visible 3-2-1 so nobody is caught unready; nothing counts meanwhile. */
    const el = $("#countdown");
    S.countingDown = true; el.hidden = false;
    for (let k = n; k > 0; k--) { el.textContent = String(k); el.dataset.n = k; await new Promise(r => setTimeout(r, 1000)); }
    el.hidden = true; S.countingDown = false;
  }

  async function start() {
    const v = video();
    if (!S.item || S.started || (S.model && !S.modelReady)) return;
    S.started = true;
    $("#start-btn").hidden = true;
    $("#start-hint").hidden = true;
    const cd = S.sess.study ? Number((S.sess.settings && S.sess.settings.countdown) ?? 3) : 0;
    if (cd > 0) await countdown(Math.min(5, cd));
    // responses count from the Start click on: a press before the first frame plays still has its media time
    S.active = true;
    if (S.human) for (const id of ["#respond-btn", "#send-btn", "#response-text"]) $(id).disabled = false;
    try { await v.play(); } catch (err) {
      // a browser that refuses unmuted playback still plays muted; the participant is told
      v.muted = true; await v.play(); status("Playing muted: this browser blocked sound.", true);
    }
    applyAsr(S.asr);
    clockReport("start");
    status(S.human ? "Playing. Respond whenever you want." : "Playing. The model responds; watch its lane below.");
    showRequest();
  }

  function showRequest() {
    const it = S.item, v = video(), el = $("#session-request");
    if (!it || el.dataset.shown === "1") return;
    const r = it.request;
    if (r.modality === "audio") {   // said when this item's request is spoken, not while others' are
      if (v.currentTime >= (r.time || 0)) { el.textContent = "Listen: your request is being spoken now."; el.dataset.shown = "1"; }
      return;
    }
    if (r.modality === "standing" || v.currentTime >= (r.time || 0)) {
      el.textContent = r.text; el.dataset.shown = "1";
    }
  }

  async function ended() {
    if (!S.item || S.finishing) return;
    S.finishing = true; S.active = false;
    if (S.rec) finishRec();
    for (const id of ["#respond-btn", "#send-btn", "#response-text", "#mic-btn"]) $(id).disabled = true;
    if (S.practice) {
      $("#item-result").innerHTML = `<p id="practice-done">Practice done: ${S.practiceN || 0} response(s) seen. ` +
        "The real videos work the same way.</p>";
      $("#item-result").hidden = false;
      const nb = $("#next-btn"); nb.hidden = false; nb.textContent = "Continue";
      nb.scrollIntoView({ block: "nearest" });
      status("");
      return;
    }
    status("Item finished; saving and scoring…");
    await Promise.allSettled(Array.from(S.inflight));   // every press reaches the store before scoring
    if (S.model) await clockReport("ended", true);      // the model may still decide its last tick
    let res;
    try { res = await call("finish_item", { session_id: S.sess.id, item_index: S.item.index, item_id: S.item.id }); }
    catch (err) { status(String(err.message || err), true); S.finishing = false; setTimeout(ended, 3000); return; }
    if (!res.ok) { status(res.error, true); return; }
    try { localStorage.removeItem(posKey()); } catch (e) { /* ignore */ }
    $("#item-result").innerHTML = res.result_html;
    $("#item-result").hidden = false;
    const nb = $("#next-btn");
    nb.hidden = false;
    nb.textContent = res.has_next ? (S.sess.study ? "Next video" : "Next item") : "Finish session";
    nb.scrollIntoView({ block: "nearest" });   // the result and the way on are in view, not below the fold
    status("");
  }

  async function next() {
    if (S.practice) { await step({ session_id: S.sess.id, step: "practice" }); return; }
    await open({ session_id: S.sess.id });
  }

  async function step(req) {
    let res;
    try { res = await call("study_step", req); } catch (err) { message(String(err.message || err), true); return; }
    if (!res.ok) { message(res.error, true); return; }
    message(""); show(res);
  }

  /* ---------------------------------------------------------------- study steps */
  function stopVideo() {
    const v = video(); if (!v) return;
    v.pause(); v.removeAttribute("src"); v.load();
  }

  function consentStep(res) {
    S.item = null;
    $("#session-player").hidden = true; stopVideo();
    $("#study-step").hidden = false; $("#study-consent").hidden = false;
    $("#consent-text").innerHTML = res.consent_html;   // rendered on the server from Markdown, raw HTML off
    $("#consent-agree").checked = false;
    window.scrollTo(0, 0);
  }

  function endScreen(res) {
    S.item = null; S.active = false;
    stopVideo();
    $("#session-player").hidden = true;
    $("#study-step").hidden = true;
    const done = $("#study-done"); done.hidden = false; done.innerHTML = res.end_html;
    done.scrollIntoView({ block: "start" });
  }

  function calibrationStep(res) {
    S.item = null;
    $("#session-player").hidden = true; stopVideo();
    $("#study-step").hidden = false; $("#calibration").hidden = false;
    const cfg = res.calibration || { n_visual: 4, n_audio: 4 };
    S.calCfg = cfg;
    $("#cal-start-btn").hidden = false; $("#cal-start-btn").disabled = false;
    $("#cal-cue").textContent = "wait…"; $("#cal-cue").dataset.on = "0";
    $("#cal-progress").textContent = `${cfg.n_visual + cfg.n_audio} cues, about half a minute.`;
    window.scrollTo(0, 0);
  }

  function beep(ac, at) {
    const o = ac.createOscillator(), g = ac.createGain();
    o.frequency.value = 880; g.gain.value = 0.3;
    o.connect(g); g.connect(ac.destination);
    o.start(at); o.stop(at + 0.15);
  }

  async function runCalibration() {
    /* Cues at random gaps; each cue's onset is taken on the page clock (the paint after a flash, the
       audio output time of a beep) and the reaction at the key/pointer event's own timestamp. */
    const cfg = S.calCfg || { n_visual: 4, n_audio: 4 };
    $("#cal-start-btn").hidden = true;
    let ac = null;
    try { ac = new (window.AudioContext || window.webkitAudioContext)(); if (ac.state !== "running") await ac.resume(); } catch (e) { ac = null; }
    const cues = [];
    for (let i = 0; i < cfg.n_visual; i++) cues.push("visual");
    for (let i = 0; i < cfg.n_audio; i++) cues.push(ac ? "audio" : "visual");
    for (let i = cues.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [cues[i], cues[j]] = [cues[j], cues[i]]; }
    const box = $("#cal-cue"), trials = [];
    for (let i = 0; i < cues.length; i++) {
      const cue = cues[i];
      $("#cal-progress").textContent = `Cue ${i + 1} of ${cues.length}`;
      box.textContent = "wait…"; box.dataset.on = "0"; box.dataset.cue = ""; box.classList.remove("ib-cal-on");
      S.cal = { armed: false, onset: null, early: 0 };
      await new Promise(r => setTimeout(r, 1200 + Math.random() * 1600));
      const reacted = new Promise((resolve) => { S.cal.resolve = resolve; });
      if (cue === "visual") {
        box.classList.add("ib-cal-on"); box.textContent = "NOW";
        await new Promise(r => requestAnimationFrame(() => r()));
        S.cal.onset = performance.now();
      } else {
        const at = ac.currentTime + 0.05;
        beep(ac, at);
        let onset = performance.now() + 50;
        if (ac.getOutputTimestamp) {
          const ts = ac.getOutputTimestamp();
          if (ts && ts.performanceTime) onset = ts.performanceTime + (at - ts.contextTime) * 1000;
        }
        const wait = Math.max(0, onset - performance.now());
        await new Promise(r => setTimeout(r, wait));
        S.cal.onset = onset;
      }
      S.cal.armed = true; box.dataset.on = "1"; box.dataset.cue = cue;
      const timeout = new Promise(r => setTimeout(() => r(null), 2000));
      const at = await Promise.race([reacted, timeout]);
      trials.push({ cue, latency_ms: at === null ? null : Math.max(0, at - S.cal.onset) });
      box.classList.remove("ib-cal-on"); box.textContent = at === null ? "missed" : "✓"; box.dataset.on = "0";
      S.cal = { armed: false, onset: null };
      await new Promise(r => setTimeout(r, 400));
    }
    S.cal = null;
    if (ac) ac.close().catch(() => {});
    $("#cal-progress").textContent = "Saving…";
    let res;
    try { res = await call("calibrate", { session_id: S.sess.id, trials }); } catch (err) { res = { ok: false, error: String(err.message || err), retry: true }; }
    if (!res.ok) {
      $("#cal-progress").textContent = res.error; $("#cal-progress").classList.add("ib-bad");
      if (res.retry) { const b = $("#cal-start-btn"); b.hidden = false; b.textContent = "Try the reaction test again"; }
      return;
    }
    $("#cal-progress").classList.remove("ib-bad");
    show(res);
  }

  function calReact(ev) {
    const c = S.cal; if (!c) return;
    if (!c.armed) { c.early = (c.early || 0) + 1; $("#cal-progress").textContent = "Too early: wait for the cue."; return; }
    c.armed = false;
    if (c.resolve) c.resolve(ev.timeStamp || performance.now());
  }

  /* ---------------------------------------------------------------- guards and media events */
  function onMedia(ev) {
    const v = ev.target;
    if (v !== video()) return;
    if (ev.type === "timeupdate") {
      if (!v.seeking && v.currentTime > S.maxT) S.maxT = v.currentTime;
      showRequest();
      if (S.active) { try { localStorage.setItem(posKey(), String(S.maxT)); } catch (e) { /* ignore */ } }
    } else if (ev.type === "seeking") {
      if (v.currentTime > S.maxT + 0.3) v.currentTime = S.maxT;   // no lookahead
    } else if (ev.type === "pause") {
      const allowed = S.sess && S.sess.settings && S.sess.settings.pause_allowed;
      if (S.active && !v.ended && !allowed && !S.userPaused) v.play().catch(() => {});
    } else if (ev.type === "ended") {
      ended();
    }
  }

  function togglePause() {
    const v = video();
    if (!S.active) return;
    if (v.paused) { S.userPaused = false; v.play(); $("#pause-btn").textContent = "Pause"; }
    else { S.userPaused = true; v.pause(); $("#pause-btn").textContent = "Resume"; }
  }

  /* ---------------------------------------------------------------- transcript corrections */
  function onClick(ev) {
    const t = ev.target;
    if (!S.root || !t || !t.closest) return;
    if (t.closest("#start-btn")) { start(); return; }
    if (t.closest("#consent-btn")) {
      if (!$("#consent-agree").checked) { message("Tick the box to say you agree, then continue.", true); return; }
      step({ session_id: S.sess.id, step: "consent", agree: true }); return;
    }
    if (t.closest("#cal-start-btn")) { runCalibration(); return; }
    if (t.closest("#next-btn")) { next(); return; }
    if (t.closest("#pause-btn")) { togglePause(); return; }
    if (t.closest("#session-create-btn")) { create(); return; }
    const fix = t.closest(".ib-fix");
    if (fix && S.root.contains(fix)) {
      const li = fix.closest("li");
      const span = li.querySelector(".ib-tl-text");
      const box = document.createElement("input");
      box.className = "ib-fix-input"; box.value = span ? span.textContent : "";
      const save = document.createElement("button"); save.type = "button"; save.textContent = "Save";
      save.className = "ib-fix-save";
      save.onclick = async () => {
        let res;
        try { res = await call("correct", { session_id: S.sess.id, rid: fix.dataset.rid, text: box.value }); }
        catch (err) { status(String(err.message || err), true); return; }
        if (!res.ok) { status(res.error, true); return; }
        S.nRows = res.n_rows;
        const target = fix.closest("#item-result") ? null : $("#session-timeline");
        if (target) setTimeline(res.timeline_html); else { span.textContent = box.value; box.remove(); save.remove(); }
        status("Transcript corrected (its time is unchanged).");
      };
      fix.replaceWith(box, save); box.focus();
    }
  }

  function create() {
    const mode = $("#session-mode").value;
    const req = {
      participant: $("#session-participant").value, benchmark: $("#session-benchmark").value,
      pause: $("#session-pause").checked ? "1" : "", key: $("#session-key").value || "Space",
    };
    const model = ($("#session-model").value || "").trim();
    if (model) { req.model = model; req.who = $("#session-who").value; req.protocol = $("#session-protocol").value; }
    else if ($("#session-who").value !== "human") { message("Enter a model spec (e.g. baseline:motion) for the model to respond.", true); return; }
    if (mode === "ids") req.items = $("#session-ids").value;
    else { req.split = $("#session-split").value; if (mode === "random") req.n = $("#session-n").value; }
    if (mode === "ids" && !req.items.trim()) { message("List at least one item id.", true); return; }
    open(req);
  }

  async function refreshSets() {
    const sel = $("#session-split");
    try {
      const res = await call("item_sets", { benchmark: $("#session-benchmark").value });
      sel.innerHTML = "";
      if (!res.ok) { message(res.error, true); return; }
      for (const [name, n] of Object.entries(res.sets)) {
        const o = document.createElement("option"); o.value = name; o.textContent = `${name} (${n})`; sel.appendChild(o);
      }
    } catch (e) { /* the form still works with "all" */ }
  }

  function syncMode() {
    const mode = $("#session-mode").value;
    S.root.querySelectorAll(".ib-m").forEach(el => { el.hidden = !el.classList.contains("ib-m-" + mode); });
  }

  /* ---------------------------------------------------------------- live model */
  const CLOCK_EVENTS = ["playing", "pause", "seeked", "ratechange", "waiting"];

  function clockReport(type, force) {
    /* The page's media clock for the server's model worker: media time, paused/stalled, rate, wall. */
    const v = video();
    if (!S.model || !S.item || S.practice || !S.started || !v || (S.finishing && !force)) return Promise.resolve(null);
    const stalled = type === "waiting" || (v.readyState < 3 && !v.ended);
    const rep = { page_id: S.pageId, session_id: S.sess.id, item_index: S.item.index, item_id: S.item.id,
      media_t: v.currentTime, paused: v.paused || v.ended || stalled, rate: v.playbackRate,
      wall: nowWall() / 1000, event: type };
    return S.server.clock(withCreds(rep)).then((res) => {
      if (res && !res.ok) modelStatus(res.error, true);
      return res;
    }, () => null);
  }

  function onClockEvent(ev) { if (ev.target === video()) clockReport(ev.type); }

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
        try { res = await S.server.wait_model(withCreds({ page_id: S.pageId, cursor: S.cursor })); } catch (e) { res = null; }
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
        if (S.realtime && S.human) micOpen().catch((err) => micUi("Microphone unavailable: " + err.message, true));
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

  /* ---------------------------------------------------------------- presenter */
  function caption(text, ev) {
    const el = $("#model-caption"); if (!el) return;
    el.textContent = text || ""; el.hidden = !text;
    if (ev) { el.dataset.rid = ev.rid; el.dataset.emitMs = Number(ev.emit_wall_ms).toFixed(1); el.dataset.shownMs = nowWall().toFixed(1); }
  }

  // a "thinking" state stays on screen at least this long before the next one replaces it: an audience
  // cannot read a state shown for one frame (a scripted or fast model's call can take a few ms)
  const STATE_HOLD_MS = 300;

  function modelStateNow() {
    if (S.pendingState) return S.pendingState.state;
    const el = $("#model-state"); return el ? el.dataset.state || "" : "";
  }

  function modelState(state, text) {
    const el = $("#model-state"); if (!el) return;
    clearTimeout(S.stateTimer); S.pendingState = null;
    const wait = state && state !== "error" && state !== "thinking" ? (S.heldUntil || 0) - performance.now() : 0;
    if (wait > 0) {  // shown once the hold is over (a newer state replaces this pending one)
      S.pendingState = { state, text };
      S.stateTimer = setTimeout(() => modelState(state, text), wait);
      return;
    }
    if (state === "thinking" && el.dataset.state !== "thinking") S.heldUntil = performance.now() + STATE_HOLD_MS;
    else if (state !== "thinking") S.heldUntil = 0;
    el.dataset.state = state || ""; el.hidden = !state;
    el.textContent = state ? `${S.model}: ${text || state}` : "";
    el.classList.toggle("ib-bad", state === "error");
  }

  function tickThinking() {
    /* "thinking 340 ms": the model call in flight, counted on the page from the moment it was announced. */
    if (!S.thinking) return;
    modelState("thinking", `thinking ${Math.round(performance.now() - S.thinking.since)} ms`);
    setTimeout(tickThinking, 50);
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

  function playhead() {
    /* A vertical line in the lanes at the video's current time (presenter mode, and every live timeline). */
    const v = video(), tl = $("#session-timeline .ib-tl");
    if (!v || !tl) return;
    const track = tl.querySelector(".ib-tl-track"); if (!track) return;
    let ph = track.querySelector(".ib-tl-playhead");
    if (!ph) { ph = document.createElement("div"); ph.className = "ib-tl-playhead"; track.appendChild(ph); }
    const span = Number(tl.dataset.span) || v.duration || 1;
    ph.style.left = `${Math.max(0, Math.min(100, 100 * v.currentTime / span)).toFixed(2)}%`;
  }

  function playheadLoop() { if (S.item && S.started && !S.finishing) playhead(); requestAnimationFrame(playheadLoop); }

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

  /* ---------------------------------------------------------------- realtime model speech */
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

  /* ---------------------------------------------------------------- mount */
  function mount(element, server) {
    S.root = element; S.server = server;
    $("#session-mode").addEventListener("change", syncMode);
    $("#session-benchmark").addEventListener("change", refreshSets);
    $("#session-model").addEventListener("input", (ev) => {
      const who = $("#session-who"), has = !!ev.target.value.trim();
      if (has && who.value === "human") who.value = "both"; else if (!has) who.value = "human";
    });
    $("#mic-handsfree").addEventListener("change", async (ev) => {
      S.handsfree = ev.target.checked;
      if (S.handsfree) { try { await micOpen(); micUi("Hands-free: listening"); } catch (err) { ev.target.checked = false; S.handsfree = false; micUi("Microphone unavailable: " + err.message, true); } }
      else micUi("Hold to talk");
    });
    syncMode(); refreshSets();
    const q = urlParams();
    if (q.get("participant")) $("#session-participant").value = q.get("participant");
    if (q.get("benchmark")) $("#session-benchmark").value = q.get("benchmark");
    // responses a previous page could not deliver are re-sent (same ids: never twice), alongside opening
    opening(q).finally(flushOutbox);
  }

  const LINK_KEYS = ["participant", "benchmark", "items", "n", "split", "seed", "pause", "key", "model", "who", "protocol"];
  function linkKey(req) { return "ibench.link." + JSON.stringify(LINK_KEYS.map(k => req[k] || "")); }

  async function opening(q) {
    if (q.get("t")) { await open({}); return; }  // a study link: its token names the session
    if (q.get("session")) { await open({ session_id: q.get("session") }); return; }
    if (q.get("participant") || q.get("benchmark")) {
      const req = {}; for (const k of LINK_KEYS) if (q.has(k)) req[k] = q.get(k);
      // the same study link opened again in this browser continues its session instead of starting over
      let known = null; try { known = localStorage.getItem(linkKey(req)); } catch (e) { /* ignore */ }
      if (known) {
        try { const res = await call("open_session", { session_id: known }); if (res.ok) { show(res); return; } }
        catch (e) { /* fall through: open a new one */ }
      }
      S.pendingLink = linkKey(req);
      await open(req); return;
    }
    let last = null; try { last = localStorage.getItem(LAST); } catch (e) { /* ignore */ }
    if (last) {
      const a = document.createElement("a"); a.href = "?session=" + encodeURIComponent(last); a.textContent = "Resume your last session";
      $("#session-resume").appendChild(a);
    }
  }

  document.addEventListener("keydown", onKeyDown, true);
  document.addEventListener("pointerdown", onPointerDown, true);
  document.addEventListener("pointerup", onPointerUp, true);
  document.addEventListener("pointercancel", onPointerUp, true);
  document.addEventListener("click", onClick, false);
  for (const t of ["timeupdate", "seeking", "pause", "ended"]) document.addEventListener(t, onMedia, true);
  // media events do not bubble: capture-phase listeners see them; plus a 1 Hz heartbeat (paused too)
  for (const t of CLOCK_EVENTS) document.addEventListener(t, onClockEvent, true);
  setInterval(() => { if (S.model && S.started && !S.finishing) clockReport("beat"); }, 1000);
  requestAnimationFrame(playheadLoop);
  window.addEventListener("pagehide", () => { if (S.model && S.server) S.server.model_stop(withCreds({ page_id: S.pageId })).catch(() => {}); });
  document.addEventListener("contextmenu", (ev) => { if (ev.target && ev.target.id === "stream-video") ev.preventDefault(); }, true);

  window.ibenchSession = { mount, state: S, snap };
})();
