/* ibench-ui Compare tab: Plotly's graph div gets an event emitter; a click on a response seeks the Compare
   player to its time. Every new plot in the tab gets the handler. */
(function () {
  "use strict";
  if (window.ibCompare) return;

  let timer = null;
  function attach() {
    document.querySelectorAll('#compare-plot .js-plotly-plot').forEach(gd => {
      if (gd.__ibSeek || typeof gd.on !== 'function') return;
      gd.__ibSeek = true;
      gd.on('plotly_click', ev => {
        const p = ev && ev.points && ev.points[0];
        if (!p) return;
        const t = Array.isArray(p.customdata) ? Number(p.customdata[0]) : Number(p.x);
        const v = document.querySelector('#compare-video');
        if (v && isFinite(t)) { v.pause(); v.currentTime = Math.max(0, t); v.dataset.seeked = String(t); }
      });
    });
  }

  window.ibCompare = {
    /* Called by the Compare player's gr.HTML (js_on_load): look for new plots from now on. */
    mount() { if (timer === null) timer = setInterval(attach, 400); },
  };
})();
