/* ibench-ui Browse player: one #stream-video per page. The Browse player carries that id until the Session
   tab is mounted; from then on the session player owns it and the Browse player is #browse-video. */
(function () {
  "use strict";
  if (window.ibBrowse) return;

  function arbitrate() {
    const b = document.querySelector('video[data-ib-player="browse"]');
    if (!b) return;
    const want = document.querySelector('#session-player video') ? 'browse-video' : 'stream-video';
    if (b.id !== want) b.id = want;
  }

  let watching = false;
  window.ibBrowse = {
    /* Called by the Browse player's gr.HTML (js_on_load): keep the ids right from now on. */
    mount() {
      if (watching) return;
      watching = true;
      new MutationObserver(arbitrate).observe(document.documentElement, { subtree: true, childList: true });
      arbitrate();
    },
  };
})();
