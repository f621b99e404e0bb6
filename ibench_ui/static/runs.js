/* ibench-ui Runs tab: click a run's row in the runs list to show its report (no typed run id): the row's run id
   goes to the server through the hidden #runs-open box (inpage.js). In the drill-down, a "×N" button unfolds the
   other rows of its run of identical decisions (and folds them again). */
(function () {
  "use strict";
  if (window.ibRuns) return;
  document.addEventListener('click', (ev) => {
    const btn = ev.target.closest && ev.target.closest('button.ib-times[data-group]');
    if (!btn) return;
    const open = btn.getAttribute('aria-expanded') !== 'true';
    btn.setAttribute('aria-expanded', String(open));
    btn.closest('table').querySelectorAll(`tr.ib-repeat[data-group="${btn.dataset.group}"]`)
      .forEach((r) => { r.hidden = !open; });
  });
  window.ibRuns = {
    /* Called by the runs list's gr.HTML (js_on_load) with its element; rows are redrawn (a run started, moved on
       or finished), so listen on it and mark the chosen run again after each redraw. */
    mount(element) {
      let chosen = '';
      const mark = () => element.querySelectorAll('tr[data-run]')
        .forEach((r) => r.classList.toggle('ib-run-chosen', r.dataset.run === chosen));
      element.addEventListener('click', (ev) => {
        const row = ev.target.closest('tr[data-run]');
        if (!row) return;
        chosen = row.dataset.run;
        mark();
        window.ibInPage.send('runs-open', chosen);
      });
      new MutationObserver(mark).observe(element, { childList: true, subtree: true });
    },
  };
})();
