/* ibench-ui in-page requests: a click that should act on the server inside this page (not open a new page,
   which would lose the sign-in) writes its request into a hidden Gradio textbox of the same tab and fires its
   input event. */
(function () {
  "use strict";
  if (window.ibInPage) return;
  window.ibInPage = {
    /* Send `value` through the hidden box `#<boxId>`; false when the box is not on the page (the caller then
       lets a link open as a page). A nonce after '#' makes a repeated click an input too; the server ignores it. */
    send(boxId, value) {
      const box = document.querySelector(`#${boxId} textarea, #${boxId} input`);
      if (!box) return false;
      box.value = value + '#' + Date.now();
      box.dispatchEvent(new Event('input', { bubbles: true }));
      return true;
    },
  };
})();
