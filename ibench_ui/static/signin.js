/* ibench-ui studio sign-in: the form posts to /auth/signin (ibench_ui.auth_routes), which sets an HttpOnly cookie;
 * the page never sees a token. Then the hidden #signin-refresh button redraws the status and the tabs that depend
 * on who is signed in. A refusal (wrong password, 429 while locked) is shown in #signin-status. */
(function () {
  "use strict";
  if (window.ibSignin) return;

  const field = (id) => document.querySelector(`#${id} input, #${id} textarea`);

  function say(msg) {
    const el = document.querySelector("#signin-status");
    if (el) { el.textContent = msg; el.classList.add("ib-bad"); }
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
    const name = field("signin-name"), pw = field("signin-password");
    const { res } = await post("/auth/signin", { name: name ? name.value : "", password: pw ? pw.value : "" });
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
