/* ibench-ui Session, media clock: what the player may do (no seeking ahead, no pausing unless allowed), how far
 * it got (kept per item for a reload), the frame on screen, the clock reported to the server for a live model
 * (media events and a 1 Hz heartbeat) and the playhead in the lanes.
 * One part of the page's session player: session.js makes the page object and calls this with it. */
(function (ns) {
  "use strict";
  ns.parts.clock = function (P) {
    const { state: S, $, nowWall, video } = P;
    Object.assign(S, { maxT: 0, frameT: null, userPaused: false });

    function posKey() { return S.sess && S.item ? `ibench.pos.${S.sess.id}.${S.item.index}` : "ibench.pos"; }

    function trackFrames(v) {
      if (!v.requestVideoFrameCallback) return;
      const cb = (now, md) => { if (video() === v) { S.frameT = md.mediaTime; v.requestVideoFrameCallback(cb); } };
      v.requestVideoFrameCallback(cb);
    }

    function onMedia(ev) {
      const v = ev.target;
      if (v !== video()) return;
      if (ev.type === "timeupdate") {
        if (!v.seeking && v.currentTime > S.maxT) S.maxT = v.currentTime;
        P.showRequest();
        if (S.active) { try { localStorage.setItem(posKey(), String(S.maxT)); } catch (e) { /* ignore */ } }
      } else if (ev.type === "seeking") {
        if (v.currentTime > S.maxT + 0.3) v.currentTime = S.maxT;   // no lookahead
      } else if (ev.type === "pause") {
        const allowed = S.sess && S.sess.settings && S.sess.settings.pause_allowed;
        if (S.active && !v.ended && !allowed && !S.userPaused) v.play().catch(() => {});
      } else if (ev.type === "ended") {
        P.ended();
      }
    }

    const CLOCK_EVENTS = ["playing", "pause", "seeked", "ratechange", "waiting"];

    function clockReport(type, force) {
      /* The page's media clock for the server: its playback position (responses far behind it are refused) and,
         with a model, what drives the model's worker: media time, paused/stalled, rate, wall. */
      const v = video();
      if (!S.item || S.practice || !S.started || !v || (S.finishing && !force)) return Promise.resolve(null);
      const stalled = type === "waiting" || (v.readyState < 3 && !v.ended);
      const rep = { page_id: S.pageId, session_id: S.sess.id, item_index: S.item.index, item_id: S.item.id,
        media_t: v.currentTime, paused: v.paused || v.ended || stalled, rate: v.playbackRate,
        wall: nowWall() / 1000, event: type };
      return S.server.clock(P.withCreds(rep)).then((res) => {
        if (res && !res.ok && S.model) P.modelStatus(res.error, true);
        return res;
      }, () => null);
    }

    function onClockEvent(ev) { if (ev.target === video()) clockReport(ev.type); }

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

    for (const t of ["timeupdate", "seeking", "pause", "ended"]) document.addEventListener(t, onMedia, true);
    // media events do not bubble: capture-phase listeners see them; plus a 1 Hz heartbeat (paused too)
    for (const t of CLOCK_EVENTS) document.addEventListener(t, onClockEvent, true);
    // the heartbeat: every second with a model, every 3 s otherwise (the position alone)
    let beats = 0;
    setInterval(() => { beats++; if (S.started && !S.finishing && (S.model || beats % 3 === 0)) clockReport("beat"); }, 1000);
    requestAnimationFrame(playheadLoop);
    return { clockReport, posKey, trackFrames };
  };
})(window.ibenchSession);
