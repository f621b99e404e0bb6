/* ibench-ui Session tab: plays one benchmark item at a time and logs every response with the media
 * time read from the <video> at the input event (pointerdown / keydown), never at Gradio's click.
 * Responses go straight to Python through gr.HTML server functions; a response is shown as logged
 * only after the server has committed it. Unacknowledged responses wait in localStorage and are
 * re-sent (idempotent ids), so a reload or a server restart loses nothing.
 * With a live model in the session, the page also reports its media clock (media events + 1 Hz) and
 * long-polls `wait_model`; pushed model rows go straight into the timeline's model lane, each with
 * the server's emit time and the time it hit the DOM (data-emit-ms / data-shown-ms).
 * See ../../shared/notes/ui_timing.md for the measurements behind these choices.
 *
 * This file makes the page object: one state object for the page's session player and the helpers every
 * part uses. Each concern is a part in a file of its own (session_transport.js, session_input.js,
 * session_clock.js, session_model.js, session_flow.js), loaded after this one; `mount` hands the page object
 * to each part, which adds its fields to the state and returns the functions the other parts call on it. */
(function () {
  "use strict";
  if (window.ibenchSession) return;

  const PARTS = ["transport", "input", "clock", "model", "flow"];
  const uuid = () => (crypto.randomUUID ? crypto.randomUUID().replace(/-/g, "")
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), b => b.toString(16).padStart(2, "0")).join(""));
  const nowWall = () => performance.timeOrigin + performance.now();
  function fmt(t) { if (t === null || t === undefined) return "–"; const m = Math.floor(t / 60); return `${String(m).padStart(2, "0")}:${(t - 60 * m).toFixed(3).padStart(6, "0")}`; }

  let page = null;  // the page's session player: one per page, made at the first mount

  function newPage() {
    /* The state every part shares (the session, its item, who responds) and the helpers over it; each part
       then adds its own fields and functions. */
    const S = { pageId: uuid(), server: null, root: null, sess: null, item: null, model: "", human: true };
    const $ = (sel) => S.root ? S.root.querySelector(sel) : null;
    const video = () => $("#stream-video");
    function status(msg, bad) { const el = $("#session-status"); if (el) { el.textContent = msg || ""; el.classList.toggle("ib-bad", !!bad); } }
    function message(msg, bad) { const el = $("#session-message"); if (el) { el.textContent = msg || ""; el.classList.toggle("ib-bad", !!bad); } }
    const P = { state: S, $, video, uuid, nowWall, fmt, status, message };
    for (const name of PARTS) {
      if (!ns.parts[name]) throw new Error(`session_${name}.js is not loaded`);
      Object.assign(P, ns.parts[name](P));
    }
    return P;
  }

  function mount(element, server) {
    /* Called by the page's gr.HTML (js_on_load) with its element and its server functions. */
    page = page || newPage();
    page.state.root = element; page.state.server = server;
    page.mountForm();
  }

  const ns = window.ibenchSession = {
    parts: {}, mount,
    snap(source, ev) { return page ? page.snap(source, ev) : null; },
    get state() { return page ? page.state : null; },
  };
})();
