/* ibench-ui Session, study flow: the setup form and study links, opening a session, each item from Start
 * (after a countdown on a study) to its result, consent, the reaction test, practice, the end screen and
 * transcript corrections.
 * One part of the page's session player: session.js makes the page object and calls this with it. */
(function (ns) {
  "use strict";
  ns.parts.flow = function (P) {
    const { state: S, $, fmt, message, status, video } = P;
    Object.assign(S, { started: false, active: false, finishing: false, practice: false, countingDown: false, cal: null,
      calCfg: null, pendingLink: null });

    const LAST = "ibench.session";
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
      try { res = await P.call("open_session", req); } catch (err) { message(String(err.message || err), true); return; }
      if (!res.ok) { message(res.error, true); return; }
      message("");
      show(res);
    }

    function show(res) {
      S.sess = res.session;
      const st = S.sess.settings || {};
      S.model = st.model || ""; S.human = !S.model || st.responders !== "model";
      if (S.model) P.pollLoop();
      setUrlSession(S.sess.id);
      $("#session-setup").hidden = true;
      if (S.sess.max_text) $("#response-text").maxLength = S.sess.max_text;  // the session's bound (server)
      const box = $("#ib-session");
      box.classList.toggle("ib-study", !!S.sess.study);
      box.classList.toggle("ib-model-only", !S.human);
      box.classList.toggle("ib-has-model", !!S.model);
      // presenter view (?view=present): the stream large, the transcript beside it, no studio chrome
      S.present = !!S.model && urlParams().get("view") === "present";
      box.classList.toggle("ib-present", S.present);
      document.documentElement.classList.toggle("ib-presenting", S.present);
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
        P.applyAsr(res.asr);
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
      P.applyAsr(res.asr);
    }

    function loadItem(res) {
      const it = res.item;
      S.item = it; S.started = false; S.active = false; S.finishing = false; S.nRows = -1; S.frameT = null;
      S.countingDown = false;
      $("#start-hint").hidden = true;
      P.caption(""); P.modelState("");
      const stored = S.practice ? 0 : Number(localStorage.getItem(P.posKey()) || 0);
      const resume = Math.max(res.resume_t || 0, isFinite(stored) ? stored : 0);
      S.maxT = resume;
      const s = S.sess;
      $("#session-header").textContent = `${s.participant} · ${s.benchmark} · item ${it.index + 1} of ${s.n_items}` +
        (resume > 0 ? ` · resuming at ${fmt(resume)}` : "");
      $("#item-result").hidden = true; $("#item-result").innerHTML = "";
      $("#next-btn").hidden = true;
      S.rows = new Map(); S.speech = new Map(); P.stopModelAudio(); S.realtime = false; S.micOut = null;
      P.setTimeline(res.timeline_html); S.nRows = res.n_rows;
      $("#session-request").textContent = "";
      $("#session-request").dataset.shown = "0";
      const keyName = ((s.settings && s.settings.respond_key) || "Space").replace(/^(Key|Digit)/, "");
      $("#respond-btn").querySelector("small").textContent = `(${keyName})`;
      $("#pause-btn").hidden = !(s.settings && s.settings.pause_allowed);
      $("#model-status").hidden = !S.model;
      P.modelStatus(S.model ? `Model ${S.model} (${(s.settings.protocol || "benchmark protocol")}) watches ` +
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
      P.trackFrames(v);
      const st = $("#start-btn"); st.hidden = false; st.disabled = false;
      st.textContent = resume > 0 ? "Resume" : "Start";
      status(res.notice === "resumed" && res.n_rows ? `${res.n_rows} response(s) already logged on this item.` : "Press Start when ready.");
      $("#tts-row").hidden = !S.model;
      const pv = $("#present-link");
      pv.hidden = !S.model || S.present;
      if (S.model) pv.href = "?" + new URLSearchParams({ view: "present", session: s.id }).toString();
      if (S.model) P.checkModel();
      // every item starts with the player at the top of the window: video, Respond and status in view
      const pl = $("#session-player");
      if (pl && pl.scrollIntoView) pl.scrollIntoView({ block: "start" });
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
      P.applyAsr(S.asr);
      P.clockReport("start");
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
      if (S.rec) P.finishRec();
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
      if (S.model) await P.clockReport("ended", true);      // the model may still decide its last tick
      let res;
      try { res = await P.call("finish_item", { session_id: S.sess.id, item_index: S.item.index, item_id: S.item.id }); }
      catch (err) { status(String(err.message || err), true); S.finishing = false; setTimeout(ended, 3000); return; }
      if (!res.ok && typeof res.retry_in === "number") {  // the item's clock has not reached its end yet (server)
        S.finishing = false; setTimeout(ended, Math.ceil(1000 * res.retry_in) + 100); return;
      }
      if (!res.ok) { status(res.error, true); return; }
      try { localStorage.removeItem(P.posKey()); } catch (e) { /* ignore */ }
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
      try { res = await P.call("study_step", req); } catch (err) { message(String(err.message || err), true); return; }
      if (!res.ok) { message(res.error, true); return; }
      message(""); show(res);
    }

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
      try { res = await P.call("calibrate", { session_id: S.sess.id, trials }); } catch (err) { res = { ok: false, error: String(err.message || err), retry: true }; }
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

    function togglePause() {
      const v = video();
      if (!S.active) return;
      if (v.paused) { S.userPaused = false; v.play(); $("#pause-btn").textContent = "Pause"; }
      else { S.userPaused = true; v.pause(); $("#pause-btn").textContent = "Resume"; }
    }

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
          try { res = await P.call("correct", { session_id: S.sess.id, rid: fix.dataset.rid, text: box.value }); }
          catch (err) { status(String(err.message || err), true); return; }
          if (!res.ok) { status(res.error, true); return; }
          S.nRows = res.n_rows;
          const target = fix.closest("#item-result") ? null : $("#session-timeline");
          if (target) P.setTimeline(res.timeline_html); else { span.textContent = box.value; box.remove(); save.remove(); }
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
        const res = await P.call("item_sets", { benchmark: $("#session-benchmark").value });
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

    function mountForm() {
      /* The setup form's controls, then whatever the link asks to open. */
      $("#session-setup").addEventListener("submit", (ev) => ev.preventDefault());
      $("#session-mode").addEventListener("change", syncMode);
      $("#session-benchmark").addEventListener("change", refreshSets);
      $("#session-model").addEventListener("input", (ev) => {
        const who = $("#session-who"), has = !!ev.target.value.trim();
        if (has && who.value === "human") who.value = "both"; else if (!has) who.value = "human";
      });
      $("#mic-handsfree").addEventListener("change", async (ev) => {
        S.handsfree = ev.target.checked;
        if (S.handsfree) { try { await P.micOpen(); P.micUi("Hands-free: listening"); } catch (err) { ev.target.checked = false; S.handsfree = false; P.micUi("Microphone unavailable: " + err.message, true); } }
        else P.micUi("Hold to talk");
      });
      syncMode(); refreshSets();
      const q = urlParams();
      if (q.get("participant")) $("#session-participant").value = q.get("participant");
      if (q.get("benchmark")) $("#session-benchmark").value = q.get("benchmark");
      // responses a previous page could not deliver are re-sent (same ids: never twice), alongside opening
      opening(q).finally(P.flushOutbox);
    }

    const LINK_KEYS = ["participant", "benchmark", "items", "n", "split", "seed", "pause", "key", "model", "who", "protocol"];
    function linkKey(req) { return "ibench.link." + JSON.stringify(LINK_KEYS.map(k => req[k] || "")); }

    async function opening(q) {
      // a study link: its cookie names the session; its query may carry a crowd platform's participant id
      if ($("#ib-session").dataset.participant) { await open({ query: location.search.slice(1) }); return; }
      if (q.get("session")) { await open({ session_id: q.get("session") }); return; }
      if (q.get("participant") || q.get("benchmark")) {
        const req = {}; for (const k of LINK_KEYS) if (q.has(k)) req[k] = q.get(k);
        // the same study link opened again in this browser continues its session instead of starting over
        let known = null; try { known = localStorage.getItem(linkKey(req)); } catch (e) { /* ignore */ }
        if (known) {
          try { const res = await P.call("open_session", { session_id: known }); if (res.ok) { show(res); return; } }
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

    document.addEventListener("click", onClick, false);
    return { calReact, ended, mountForm, showRequest };
  };
})(window.ibenchSession);
