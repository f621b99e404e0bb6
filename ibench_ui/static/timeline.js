/* Annotator's workbench timeline (Verify and Review): a canvas with the stream's audio waveform (peaks
   computed on the server), zoom and pan, mm:ss.mmm ticks, the playhead, windows and anchors as handles
   (draggable for staff), marks as points, a loop region, playback rate 0.25-2x, and keyboard-first
   navigation and marking. No library is fetched: everything is in this file.

   The server renders <div class="ib-wb" data-video=...> with data-* attributes; this script finds
   those elements (Gradio patches them in place) and redraws. Time snapshots for marks are taken at
   the input event (keydown / pointerdown), never in Gradio's click handler (see notes/ui_timing.md). */
(function () {
  if (window.ibTimeline) return;
  const RATES = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2];
  const TICKS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600];
  const state = {};       // per video id: view, loop, last drag, last capture
  const fmt = (t) => {
    if (!isFinite(t)) return "–";
    const neg = t < 0; t = Math.abs(t);
    const m = Math.floor(t / 60), s = t - 60 * m;
    return (neg ? "-" : "") + String(m).padStart(2, "0") + ":" + s.toFixed(3).padStart(6, "0");
  };
  const wbOf = (id) => document.querySelector(`.ib-wb[data-video="${id}"]`);
  const video = (id) => document.getElementById(id);
  const st = (id) => (state[id] = state[id] || { v0: 0, v1: null, loop: false, drag: null, capture: null, range: null });
  const json = (el, key, dflt) => { try { return el && el.dataset[key] ? JSON.parse(el.dataset[key]) : dflt; } catch (e) { return dflt; } };
  function peaksOf(el) {
    if (el._peaksKey === el.dataset.peaks) return el._peaks;
    const raw = atob(el.dataset.peaks || ""); const out = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    el._peaksKey = el.dataset.peaks; el._peaks = out; return out;
  }
  function duration(id) {
    const el = wbOf(id), v = video(id);
    const d = el && parseFloat(el.dataset.duration);
    return d > 0 ? d : (v && isFinite(v.duration) ? v.duration : 1);
  }
  function view(id) {
    const s = st(id), d = duration(id), el = wbOf(id), item = el ? el.dataset.item : null;
    if (item !== s.item) { s.item = item; s.v1 = null; }  // a new item opens on the whole stream
    if (s.v1 === null || s.v1 > d + 1e-9 || s.v1 - s.v0 < 0.05) { s.v0 = 0; s.v1 = d; }
    return [s.v0, s.v1];
  }
  const P = window.ibPlayer = {
    video, fmt,
    fps(id) { const el = wbOf(id); return (el && parseFloat(el.dataset.fps)) || 25; },
    seek(id, t) { const v = video(id); if (!v) return; const d = isFinite(v.duration) ? v.duration : 1e9;
                  v.currentTime = Math.max(0, Math.min(d, t)); },
    step(id, dt) { const v = video(id); if (!v) return; v.pause(); this.seek(id, v.currentTime + dt); },
    frame(id, k) { const v = video(id); if (!v) return; v.pause(); const f = this.fps(id);
                   const i = Math.max(0, Math.floor(v.currentTime * f + 1e-6) + k); this.seek(id, i / f + 0.25 / f); },
    target(id, dir) { const el = wbOf(id), v = video(id); if (!el || !v) return;
                      const ts = json(el, "stops", []); const t = v.currentTime;
                      const n = dir > 0 ? ts.find(x => x > t + 0.01) : [...ts].reverse().find(x => x < t - 0.01);
                      if (n !== undefined) { v.pause(); this.seek(id, n); } },
    speed(id, r) { const v = video(id); r = Math.max(0.25, Math.min(2, parseFloat(r) || 1)); if (v) v.playbackRate = r;
                   const sel = document.querySelector(`.ib-wb[data-video="${id}"] .ib-wb-rate`); if (sel) sel.value = String(r); },
    rateStep(id, dir) { const v = video(id); if (!v) return; const i = RATES.indexOf(v.playbackRate);
                        const j = Math.max(0, Math.min(RATES.length - 1, (i < 0 ? 3 : i) + dir)); this.speed(id, RATES[j]); },
    toggle(id) { const v = video(id); if (!v) return; if (v.paused) { v.play(); } else { v.pause(); } },
    now(id) { const v = video(id); return v ? v.currentTime : null; },
    /* Play exactly [s, e): a frame-rate watch pauses at e and leaves the last frame of the interval on screen. */
    playRange(id, s, e, loop) {
      const v = video(id); if (!v) return; const S = st(id);
      S.range = { s, e, loop: !!loop, token: Math.random() }; const my = S.range.token;
      const el = wbOf(id); if (el) { el.dataset.rangeDone = ""; }
      v.pause(); v.currentTime = s;
      const startPlay = () => { v.removeEventListener("seeked", startPlay); v.play(); tick(); };
      const tick = () => {
        if (!S.range || S.range.token !== my) return;
        if (v.currentTime >= e - 0.002 || v.ended) {
          if (S.range.loop || S.loop) { v.currentTime = s; requestAnimationFrame(tick); return; }
          v.pause(); if (v.currentTime > e - 0.001) v.currentTime = Math.max(s, e - 0.001);
          S.range = null; if (el) el.dataset.rangeDone = `${s.toFixed(3)}-${e.toFixed(3)}`;
          return;
        }
        if (v.paused && !v.seeking) { S.range = null; return; }  // the user paused: stop watching
        if (v.requestVideoFrameCallback) v.requestVideoFrameCallback(tick); else requestAnimationFrame(tick);
      };
      v.addEventListener("seeked", startPlay);
    },
    /* The snapshot a mark is made from: the media time at the input event, whether the media played. */
    snapshot(id, source) { const v = video(id); if (!v) return null;
      const c = { t: v.currentTime, playing: !v.paused && !v.ended, source, rate: v.playbackRate, fresh: true,
                  nonce: Math.random() };
      st(id).capture = c; return c; },
    capture(id) { return st(id).capture; },
    lastDrag(id) { return st(id).drag; },
  };

  /* ------------------------------------------------------------------ drawing */
  function draw(el) {
    const id = el.dataset.video, v = video(id), cv = el.querySelector("canvas.ib-wb-canvas");
    if (!cv || el.offsetParent === null) return;
    const dpr = window.devicePixelRatio || 1, W = cv.clientWidth, H = cv.clientHeight;
    if (!W) return;
    const [sv0, sv1] = view(id);  // redraw only when something on it changed (the box has 2 cores)
    const sig = [W, H, sv0, sv1, v ? v.currentTime : -1, v ? v.playbackRate : 1, el.dataset.targets, el.dataset.marks,
                 el.dataset.region, el.dataset.tiers, el._peaksKey === el.dataset.peaks ? 1 : el.dataset.peaks.length].join("|");
    if (sig === el._sig) return;
    el._sig = sig;
    if (cv.width !== Math.round(W * dpr)) { cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr); }
    const g = cv.getContext("2d"); g.setTransform(dpr, 0, 0, dpr, 0, 0); g.clearRect(0, 0, W, H);
    const [v0, v1] = view(id), X = (t) => (t - v0) / (v1 - v0) * W;
    // ticks on top, the waveform band, then one labelled row per tier (ELAN-like): "targets" holds the
    // windows and anchors, every other tier the marks that name it
    const tiers = json(el, "tiers", [["marks", "marks"]]), TH = 16, TOP = 16;
    const WH = Math.max(20, H - TOP - 4 - TH * tiers.length), MID = TOP + WH / 2, BOT = TOP + WH;
    const rowOf = (key) => { const i = tiers.findIndex(t => t[0] === key); return i < 0 ? tiers.length - 1 : i; };
    const rowY = (i) => BOT + i * TH;
    g.fillStyle = "#f6f7f9"; g.fillRect(0, TOP, W, WH);
    tiers.forEach((t, i) => { g.fillStyle = i % 2 ? "#fbfbfc" : "#eef1f5"; g.fillRect(0, rowY(i), W, TH); });
    // region (loop / prefix interval)
    const reg = json(el, "region", null);
    if (reg) { g.fillStyle = "rgba(255, 196, 0, .28)"; g.fillRect(X(reg[0]), TOP, X(reg[1]) - X(reg[0]), BOT - TOP + TH * tiers.length); }
    // waveform
    const pk = peaksOf(el), pps = parseFloat(el.dataset.pps) || 0;
    if (pk.length && pps) {
      g.fillStyle = "#6b7c93";
      for (let x = 0; x < W; x++) {
        const a = Math.max(0, Math.floor((v0 + (x / W) * (v1 - v0)) * pps));
        const b = Math.min(pk.length, Math.max(a + 1, Math.ceil((v0 + ((x + 1) / W) * (v1 - v0)) * pps)));
        let m = 0; for (let i = a; i < b; i++) if (pk[i] > m) m = pk[i];
        const h = (m / 255) * (WH / 2 - 1); g.fillRect(x, MID - h, 1, Math.max(1, 2 * h));
      }
    } else { g.fillStyle = "#98a2b3"; g.font = "11px sans-serif"; g.fillText(el.dataset.nowave || "no audio", 6, MID + 4); }
    // ticks in mm:ss.mmm
    const span = v1 - v0, step = TICKS.find(s => span / s <= Math.max(3, W / 110)) || 600;
    g.fillStyle = "#333"; g.strokeStyle = "#999"; g.font = "10px monospace"; g.lineWidth = 1;
    for (let t = Math.ceil(v0 / step - 1e-9) * step; t <= v1 + 1e-9; t += step) {
      const x = Math.round(X(t)) + 0.5; g.beginPath(); g.moveTo(x, TOP - 5); g.lineTo(x, TOP + 4); g.stroke();
      const lab = fmt(t); if (x + 4 < W - 20) g.fillText(lab, Math.min(x + 2, W - g.measureText(lab).width - 2), 10);
    }
    // windows and anchors in the targets tier, faint over the waveform (the server leaves them out of a blind view)
    const ty = rowY(rowOf("targets"));
    for (const tg of json(el, "targets", [])) {
      if (tg.window) {
        const a = X(tg.window[0]), b = X(tg.window[1] === null ? duration(id) : tg.window[1]);
        g.fillStyle = "rgba(46,160,67,.12)"; g.fillRect(a, TOP, b - a, WH);
        g.fillStyle = "rgba(46,160,67,.45)"; g.fillRect(a, ty + 2, b - a, TH - 4);
        g.fillStyle = "#2ea043"; g.fillRect(a - 1, TOP, 3, WH); if (tg.window[1] !== null) g.fillRect(b - 1, TOP, 3, WH);
      }
      if (tg.anchor !== null && tg.anchor !== undefined) {
        const x = X(tg.anchor); g.fillStyle = "#d1242f"; g.fillRect(x - 1, TOP, 2, WH); g.fillRect(x - 1, ty, 2, TH);
        g.beginPath(); g.moveTo(x - 6, TOP); g.lineTo(x + 6, TOP); g.lineTo(x, TOP + 8); g.fill();
      }
    }
    // marks and responses as points in their tier, with a thin line over the waveform
    g.font = "10px sans-serif";
    for (const m of json(el, "marks", [])) {
      const x = X(m.t), y = rowY(rowOf(m.tier || "marks")) + TH / 2; g.fillStyle = m.color || "#1f6feb";
      g.beginPath(); g.arc(x, y, 4, 0, 2 * Math.PI); g.fill(); g.fillRect(x - 0.5, TOP, 1, WH);
      if (m.label) g.fillText(m.label, x + 6, y + 4);
    }
    // tier labels on the left, over everything but the playhead
    g.font = "bold 10px sans-serif";
    tiers.forEach((t, i) => { const w = g.measureText(t[1]).width + 8;
      g.fillStyle = "rgba(255,255,255,.85)"; g.fillRect(0, rowY(i) + 1, w, TH - 2);
      g.fillStyle = "#24292f"; g.fillText(t[1], 4, rowY(i) + TH - 4); });
    // playhead
    if (v) { const x = X(v.currentTime); g.fillStyle = "#000"; g.fillRect(x - 1, 0, 2, H); }
    const clock = document.getElementById(id + "-clock");
    if (clock && v) {
      const f = P.fps(id);
      clock.textContent = `t = ${v.currentTime.toFixed(3)} s (${fmt(v.currentTime)}) · frame ${Math.floor(v.currentTime * f + 1e-6)} · ${v.playbackRate}x · view ${fmt(v0)}–${fmt(v1)}`;
    }
  }
  /* A newly opened item brings its whole workbench (#<prefix>-workbench) into view, top first, when part of it
     is outside the window: the player, timeline, mark and walk controls are then on screen together. */
  function focusWorkbench(el) {
    if (el._focused === el.dataset.item || el.offsetParent === null) return;
    el._focused = el.dataset.item;
    const wb = document.getElementById(`${el.dataset.prefix}-workbench`); if (!wb) return;
    const r = wb.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) wb.scrollIntoView({ block: "start" });
  }
  function loop() {
    document.querySelectorAll(".ib-wb[data-video]").forEach(el => {
      wire(el); focusWorkbench(el);
      if (el.dataset.view && el.dataset.view !== el._viewKey) {  // the server asks for a view (a prefix interval)
        el._viewKey = el.dataset.view; const w = json(el, "view", null); if (w) { const s = st(el.dataset.video); s.v0 = w[0]; s.v1 = w[1]; }
      }
      draw(el);
    });
    autoPlayInterval();
    requestAnimationFrame(loop);
  }

  /* ------------------------------------------------------------------ interaction */
  function timeAt(el, clientX) {
    const cv = el.querySelector("canvas.ib-wb-canvas"), r = cv.getBoundingClientRect();
    const [v0, v1] = view(el.dataset.video); return v0 + (clientX - r.left) / r.width * (v1 - v0);
  }
  function handleAt(el, clientX) {
    if (el.dataset.editable !== "1") return null;
    const cv = el.querySelector("canvas.ib-wb-canvas"), r = cv.getBoundingClientRect();
    const [v0, v1] = view(el.dataset.video), px = (t) => r.left + (t - v0) / (v1 - v0) * r.width;
    let best = null, bestD = 7;
    for (const tg of json(el, "targets", [])) {
      const cand = [];
      if (tg.window && tg.window_field) { cand.push(["start", tg.window[0]]); if (tg.window[1] !== null) cand.push(["end", tg.window[1]]); }
      if (tg.anchor !== null && tg.anchor !== undefined && tg.anchor_field) cand.push(["anchor", tg.anchor]);
      for (const [kind, t] of cand) { const d = Math.abs(px(t) - clientX); if (d < bestD) { bestD = d; best = { tg, kind }; } }
    }
    return best;
  }
  function zoom(id, factor, at) {
    const [v0, v1] = view(id), d = duration(id), s = st(id);
    const c = at === undefined ? (video(id) ? video(id).currentTime : (v0 + v1) / 2) : at;
    let w = Math.max(0.05, Math.min(d, (v1 - v0) * factor));
    let a = c - (c - v0) * (w / (v1 - v0)); a = Math.max(0, Math.min(d - w, a)); s.v0 = a; s.v1 = a + w;
  }
  function pan(id, frac) { const [v0, v1] = view(id), d = duration(id), s = st(id), w = v1 - v0;
    const a = Math.max(0, Math.min(d - w, v0 + frac * w)); s.v0 = a; s.v1 = a + w; }
  function wire(el) {
    if (el._wired) return; el._wired = true;
    const id = el.dataset.video, cv = el.querySelector("canvas.ib-wb-canvas");
    cv.addEventListener("pointerdown", (e) => {
      const h = handleAt(el, e.clientX);
      if (h) { e.preventDefault(); cv.setPointerCapture(e.pointerId); el._drag = { ...h, t: null }; return; }
      P.seek(id, timeAt(el, e.clientX));
    });
    cv.addEventListener("pointermove", (e) => {
      const dr = el._drag; if (!dr) { cv.style.cursor = handleAt(el, e.clientX) ? "ew-resize" : "crosshair"; return; }
      const f = P.fps(id), t = Math.max(0, Math.round(timeAt(el, e.clientX) * 1000) / 1000);
      dr.t = t; const tg = dr.tg;
      if (dr.kind === "anchor") tg.anchor = t;
      else if (dr.kind === "start") tg.window[0] = Math.min(t, tg.window[1] === null ? t : tg.window[1]);
      else tg.window[1] = Math.max(t, tg.window[0]);
      const all = json(el, "targets", []).map(x => x.id === tg.id ? tg : x); el.dataset.targets = JSON.stringify(all);
    });
    cv.addEventListener("pointerup", (e) => {
      const dr = el._drag; el._drag = null; if (!dr || dr.t === null) return;
      const tg = dr.tg;
      const out = dr.kind === "anchor" ? { field: tg.anchor_field, value: tg.anchor.toFixed(3) }
        : { field: tg.window_field, value: `${tg.window[0].toFixed(3)}, ${tg.window[1] === null ? "" : tg.window[1].toFixed(3)}` };
      out.nonce = Math.random(); st(id).drag = out;
      const btn = document.querySelector(`#${el.dataset.prefix}-drag-apply`); if (btn) btn.click();
    });
    cv.addEventListener("wheel", (e) => { e.preventDefault();
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan(id, (e.deltaX || e.deltaY) > 0 ? 0.2 : -0.2);
      else zoom(id, e.deltaY > 0 ? 1.25 : 0.8, timeAt(el, e.clientX)); }, { passive: false });
    el.addEventListener("click", (e) => {
      const b = e.target.closest("[data-act]"); if (!b) return; e.preventDefault();
      const act = b.dataset.act;
      if (act === "zoom-in") zoom(id, 0.5); else if (act === "zoom-out") zoom(id, 2);
      else if (act === "fit") { const s = st(id); s.v0 = 0; s.v1 = duration(id); }
      else if (act === "pan-left") pan(id, -0.5); else if (act === "pan-right") pan(id, 0.5);
      else if (act === "loop") toggleLoop(id);
      else if (act === "keys") toggleKeys(id);
      else if (act === "keys-close") toggleKeys(id, false);
    });
    const sel = el.querySelector(".ib-wb-rate");
    if (sel) sel.addEventListener("change", () => P.speed(id, sel.value));
  }
  /* The key sheet is an overlay: `?` toggles it, Escape or its Close button shuts it. */
  function toggleKeys(id, show) {
    const sh = document.querySelector(`.ib-wb[data-video="${id}"] .ib-wb-keys`); if (!sh) return false;
    sh.hidden = show === undefined ? !sh.hidden : !show; return true;
  }
  function openKeys() { return [...document.querySelectorAll(".ib-wb-keys")].filter(sh => !sh.hidden); }
  function toggleLoop(id) {
    const el = wbOf(id), s = st(id); s.loop = !s.loop;
    const b = el && el.querySelector('[data-act="loop"]'); if (b) b.setAttribute("aria-pressed", String(s.loop));
    const reg = json(el, "region", null); const v = video(id);
    if (s.loop && reg && v) P.playRange(id, reg[0], reg[1], true);
    if (!s.loop && s.range) s.range.loop = false;
  }
  /* The prefix walk: a new interval on the page is played exactly (when auto-play is on). */
  function autoPlayInterval() {
    const cur = document.getElementById("verify-prefix-current");
    const key = cur ? `${cur.dataset.item}|${cur.dataset.start}|${cur.dataset.nonce}` : null;
    if (key && key !== window.ibTimeline._lastInterval) {
      window.ibTimeline._lastInterval = key;
      const auto = document.querySelector("#verify-prefix-auto input");
      if (!auto || auto.checked) P.playRange("verify-video", parseFloat(cur.dataset.start), parseFloat(cur.dataset.end));
    }
  }

  /* ------------------------------------------------------------------ keyboard (outside text fields) */
  const typing = (e) => { const t = e.target, tag = ((t && t.tagName) || "").toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || (t && t.isContentEditable); };
  const activeId = () => { for (const el of document.querySelectorAll(".ib-wb[data-video]"))
    if (el.offsetParent !== null && video(el.dataset.video)) return el.dataset.video; return null; };
  const shown = (b) => b.offsetParent !== null || (b.classList.contains("ib-hidden") && b.parentElement && b.parentElement.offsetParent !== null);
  const clickId = (sel) => { for (const b of document.querySelectorAll(sel)) if (shown(b)) { b.click(); return true; } return false; };
  /* Reaction-time calibration: the box turns green at random moments; the time from the paint to the
     key press (or click on the box) is one reaction; the median of five becomes the offset (server-side). */
  const calib = { on: false, flashAt: null, got: [], n: 5 };
  function calibFlash(box, status) {
    if (!calib.on) return;
    setTimeout(() => { box.style.background = "#2ea043";
      requestAnimationFrame(() => { calib.flashAt = performance.now(); }); }, 900 + Math.random() * 1400);
    status.textContent = ` ${calib.got.length} of ${calib.n}`;
  }
  function calibHit(ts) {
    const box = document.getElementById("verify-calib-flash"), status = document.getElementById("verify-calib-status");
    if (!calib.on || calib.flashAt === null || !box) return false;
    calib.got.push((ts - calib.flashAt) / 1000); calib.flashAt = null; box.style.background = "#ddd";
    if (calib.got.length >= calib.n) {
      calib.on = false; status.textContent = " done";
      window.ibTimeline.calibration = JSON.stringify({ reactions: calib.got, nonce: Math.random() });
      const b = document.getElementById("verify-calib-apply"); if (b) b.click();
    } else calibFlash(box, status);
    return true;
  }
  document.addEventListener("click", (e) => {
    const b = e.target.closest && e.target.closest("[data-calibrate]"); if (!b) return; e.preventDefault();
    const box = document.getElementById("verify-calib-flash"), status = document.getElementById("verify-calib-status");
    calib.on = true; calib.got = []; calib.flashAt = null; calibFlash(box, status);
  });
  document.addEventListener("pointerdown", (e) => {
    if (calib.on && e.target.closest && e.target.closest("#verify-calib-flash")) calibHit(e.timeStamp);
  }, true);
  document.addEventListener("keydown", (e) => {
    if (calib.on && e.key === "c") { if (calibHit(e.timeStamp)) e.preventDefault(); return; }
    if (e.key === "Escape" && openKeys().length) { openKeys().forEach(sh => { sh.hidden = true; }); e.preventDefault(); return; }
    if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) return;
    const id = activeId(); if (!id) return;
    const pre = id.split("-")[0], walk = id === "verify-video" && document.getElementById("verify-prefix-walk");
    const interval = walk && document.getElementById("verify-prefix-current");
    let done = true;
    switch (e.key) {
      case "ArrowLeft": P.step(id, e.shiftKey ? -0.1 : -1); break;
      case "ArrowRight": P.step(id, e.shiftKey ? 0.1 : 1); break;
      case ",": P.frame(id, -1); break;
      case ".": P.frame(id, 1); break;
      case "<": P.rateStep(id, -1); break;
      case ">": P.rateStep(id, 1); break;
      case "[": P.target(id, -1); break;
      case "]": P.target(id, 1); break;
      case "k": case " ": if (e.repeat) break; P.toggle(id); break;
      case "+": case "=": zoom(id, 0.5); break;
      case "-": zoom(id, 2); break;
      case "0": { const s = st(id); s.v0 = 0; s.v1 = duration(id); break; }
      case "l": toggleLoop(id); break;
      case "?": case "F1": done = toggleKeys(id); break;
      case "m": if (e.repeat) break; P.snapshot(id, "key"); done = clickId(`#${pre}-keymark`); break;
      case "j": done = clickId(`#${pre}-next`); break;
      case "p": done = clickId(`#${pre}-prev`); break;
      case "w": done = id === "verify-video" && clickId("#verify-prefix-start"); break;
      case "u": done = clickId(`#${pre}-withdraw`); break;
      case "y": done = !!interval && clickId("#verify-prefix-hit"); break;
      case "n": done = !!interval && clickId("#verify-prefix-clear"); break;
      case "b": case "Backspace": done = !!walk && clickId("#verify-prefix-back"); break;
      case "r": done = !!interval && clickId("#verify-prefix-play"); break;
      case "Enter":
        if (interval) done = clickId("#verify-prefix-clear");
        else done = clickId(`#${pre}-submit`);
        break;
      default: done = false;
    }
    if (done) e.preventDefault();
  }, true);
  /* "Use player time": the snapshot is taken when the pointer goes down, not when Gradio's click runs. */
  document.addEventListener("pointerdown", (e) => {
    const b = e.target.closest && e.target.closest("#verify-use-time, #review-use-time, #adjudicate-use-time");
    if (b) P.snapshot(b.id.startsWith("verify") ? "verify-video" : "review-video", "playhead");
  }, true);

  window.ibTimeline = { state, fmt, zoom, pan, view, toggleLoop, _lastInterval: null,
    /* the value a hidden Gradio button hands to the server: the last capture or drag, as JSON */
    take(id, what) { const s = st(id); const v = what === "drag" ? s.drag : s.capture; return v ? JSON.stringify(v) : ""; },
    pick(sel) { return window.ibTimeline._pick || ""; },
    /* the reaction-time calibration the page measured last (JSON), for the hidden apply button ("" before one) */
    takeCalibration() { return window.ibTimeline.calibration || ""; },
    /* "Use player time" (Review, adjudication): the time of the fresh snapshot taken at the button's pointerdown,
       else of the playhead now, as "t.ttt" ("" without a player). */
    useTime(id) { let c = P.capture(id); if (!c || !c.fresh) c = P.snapshot(id, "playhead"); if (!c) return "";
                  c.fresh = false; return c.t.toFixed(3); },
    /* A mark (Verify): [time, the snapshot as JSON] from the fresh snapshot of this source (the key's, the
       button's pointerdown), else from the playhead now (["", ""] without a player). */
    useMark(id, source) { let c = P.capture(id); if (!c || c.source !== source || !c.fresh) c = P.snapshot(id, source);
                          if (!c) return ["", ""]; c.fresh = false; return [c.t.toFixed(3), JSON.stringify(c)]; },
    /* Play the prefix walk's current interval (#verify-prefix-current) exactly. */
    playInterval(id) { const el = document.getElementById("verify-prefix-current");
                       if (el) P.playRange(id, parseFloat(el.dataset.start), parseFloat(el.dataset.end)); },
  };
  /* Clickable queue rows: a row with data-pick hands its value to the hidden picker of its table. */
  document.addEventListener("click", (e) => {
    const row = e.target.closest && e.target.closest("tr[data-pick]"); if (!row) return;
    const tbl = row.closest("[data-picker]"); if (!tbl) return;
    window.ibTimeline._pick = row.dataset.pick + "|" + Math.random();
    const b = document.getElementById(tbl.dataset.picker); if (b) b.click();
  });
  requestAnimationFrame(loop);
})();
