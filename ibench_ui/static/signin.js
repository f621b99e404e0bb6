/* ibench-ui studio sign-in: the form posts to /auth/signin (ibench_ui.auth_routes), which sets an HttpOnly cookie;
 * the page never sees a token. Then the hidden #signin-refresh button redraws the status and the tabs that depend
 * on who is signed in. A refusal (wrong password, 429 while locked) is shown in #signin-status.
 * The Sign in and Sign out buttons are served disabled (Gradio adds this script without waiting for it, so a click
 * on a slow page could come before anything listens); this script enables them once its listeners are in place. */
(function () {
  "use strict";
  if (window.ibSignin) return;

  const field = (id) => document.querySelector(`#${id} input, #${id} textarea`);

  const BUTTONS = ["#signin-button", "#signout-button"];
  let pending = false;  // a sign-in is on its way: further clicks and Enter wait for its answer

  function say(msg, bad = true) {
    const el = document.querySelector("#signin-status");
    if (el) { el.textContent = msg; el.classList.toggle("ib-bad", bad); }
  }

  function arm() {
    /* Enable the buttons the server sent disabled; true once both are there and enabled. */
    let armed = 0;
    for (const sel of BUTTONS) {
      const b = document.querySelector(sel);
      if (b) { if (b.disabled) b.disabled = false; armed++; }
    }
    return armed === BUTTONS.length;
  }

  async function post(path, body) {
    const base = location.pathname.replace(/[^/]*$/, "");
    const r = await fetch(base + path.replace(/^\//, ""), { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
    let res = null; try { res = await r.json(); } catch (e) { /* not JSON: said below */ }
    return { status: r.status, res: res || { ok: false, error: `The server answered HTTP ${r.status}.` } };
  }

  function refreshed() { const b = document.querySelector("#signin-refresh"); if (b) b.click(); }

  async function signIn() {
    if (pending) return;
    pending = true;
    const name = field("signin-name"), pw = field("signin-password");
    say("Signing in…", false);  // checking a password takes a moment on purpose (argon2)
    let res;
    try {
      ({ res } = await post("/auth/signin", { name: name ? name.value : "", password: pw ? pw.value : "" }));
    } catch (e) {
      res = { ok: false, error: "The server could not be reached; try again." };
    } finally {
      pending = false;
    }
    if (pw) { pw.value = ""; pw.dispatchEvent(new Event("input", { bubbles: true })); }
    if (!res.ok) { say(res.error); return; }
    // the tabs' "sign in first" lines go at once (they hide their tab's controls); the refresh below redraws
    // the lines for the new account's role, so no tab waits on the server's queue to show its controls
    document.querySelectorAll(".ib-tab-access").forEach((el) => el.remove());
    refreshed();
  }

  async function signOut() {
    await post("/auth/signout", {});
    refreshed();
  }

  // loaded in the studio's <head>: the buttons and Enter in the password box, for the page's whole life
  window.ibSignin = { signIn, signOut };
  if (!arm()) {  // the header is not drawn yet: enable its buttons as soon as it is
    const watch = new MutationObserver(() => { if (arm()) watch.disconnect(); });
    watch.observe(document.documentElement, { childList: true, subtree: true });
  }
  document.addEventListener("click", (ev) => {
    const t = ev.target && ev.target.closest ? ev.target : null;
    if (!t) return;
    if (t.closest("#signin-button")) { ev.preventDefault(); signIn(); }
    else if (t.closest("#signout-button")) { ev.preventDefault(); signOut(); }
  }, true);
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && ev.target && ev.target.closest && ev.target.closest("#signin-password")) {
      ev.preventDefault(); signIn();
    }
  }, true);
})();
