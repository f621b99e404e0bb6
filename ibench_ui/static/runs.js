/* ibench-ui Runs tab: click a run's row in the runs list to show its report (no typed run id): the row's run id
   goes to the server through the hidden #runs-open box (inpage.js). */
(function () {
  "use strict";
  if (window.ibRuns) return;
  window.ibRuns = {
    /* Called by the runs list's gr.HTML (js_on_load) with its element; rows are redrawn, so listen on it. */
    mount(element) {
      element.addEventListener('click', (ev) => {
        const row = ev.target.closest('tr[data-run]');
        if (!row) return;
        element.querySelectorAll('tr.ib-run-chosen').forEach(r => r.classList.remove('ib-run-chosen'));
        row.classList.add('ib-run-chosen');
        window.ibInPage.send('runs-open', row.dataset.run);
      });
    },
  };
})();
