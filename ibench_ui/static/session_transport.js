/* ibench-ui Session, transport: every call to the server. A response waits in localStorage (the outbox) until
 * the server acknowledges it and is re-sent with the same id after a failure or a reload, so nothing is lost or
 * logged twice; the response path goes to the plain JSON route beside the page (ibench_ui.host), other calls
 * through gr.HTML server functions, each carrying the caller's credentials.
 * One part of the page's session player: session.js makes the page object and calls this with it. */
(function (ns) {
  "use strict";
  ns.parts.transport = function (P) {
    const { state: S, $, fmt, nowWall, status, uuid } = P;
    Object.assign(S, { inflight: new Set(), logged: 0, noRoute: false });

    const OUTBOX = "ibench.outbox";
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
      /* The server checks who calls from the request's HttpOnly cookie (a study link's or the studio's sign-in,
         ibench_ui.auth_routes): the page holds no credentials, it only sends a copy of the payload. */
      return Object.assign({}, payload);
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
        if (S.item && res.row.item_index === S.item.index) { S.rows.set(res.row.rid, res.row); P.insertRow(res.row); }
      } else if (typeof res.n_rows === "number" && res.n_rows >= S.nRows) {
        S.nRows = res.n_rows;
        P.setTimeline(res.timeline_html);
      }
      const what = res.kind === "text" || res.kind === "speech" ? ` “${res.text || "…"}”` : "";
      status(res.warning || `Logged ${res.kind} at ${fmt(res.t)}${what}`, !!res.warning);
    }

    function setPending() { const n = S.inflight.size; const el = $("#respond-btn"); if (el) el.dataset.pending = n; }

    return { accepted, base, call, flushOutbox, post, withCreds };
  };
})(window.ibenchSession);
