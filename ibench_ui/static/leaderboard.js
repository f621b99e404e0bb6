/* ibench-ui Leaderboard tab: click a header to sort by it (numbers by data-sort, text otherwise); click again
   to reverse. Click a score (a ?view=compare link) to open Compare inside this page: the link's query goes into
   the Leaderboard's hidden #leaderboard-open box (inpage.js), whose input event selects the tab and its responders on the server
   (a new page would lose the sign-in). A modified click still opens the link as a page. */
(function () {
  "use strict";
  if (window.ibLeaderboard) return;

  function openInPage(a) {
    return window.ibInPage.send('leaderboard-open', a.getAttribute('href') || '');
  }

  function click(ev) {
    const a = ev.target.closest('a.ib-compare-link');
    if (a) {
      if (ev.button === 0 && !ev.ctrlKey && !ev.metaKey && !ev.shiftKey && openInPage(a)) ev.preventDefault();
      return;
    }
    sort(ev);
  }

  function sort(ev) {
    const th = ev.target.closest('th[data-col]');
    if (!th) return;
    const table = th.closest('table'); const body = table.tBodies[0];
    const col = Number(th.dataset.col);
    const dir = th.dataset.dir === 'desc' ? 'asc' : 'desc';
    table.querySelectorAll('th').forEach(h => delete h.dataset.dir);
    th.dataset.dir = dir;
    const key = tr => { const td = tr.children[col]; const v = td ? td.dataset.sort : undefined;
                        return v === undefined || v === '' ? null : (isNaN(Number(v)) ? v : Number(v)); };
    const rows = Array.from(body.rows);
    rows.sort((a, b) => { const x = key(a), y = key(b);
      if (x === null && y === null) return 0; if (x === null) return 1; if (y === null) return -1;
      const c = (typeof x === 'number' && typeof y === 'number') ? x - y : String(x).localeCompare(String(y));
      return dir === 'asc' ? c : -c; });
    rows.forEach(r => body.appendChild(r));
  }

  window.ibLeaderboard = {
    /* Called by the board's gr.HTML (js_on_load) with its element: its tables sort by a clicked header. */
    sortable(element) { element.addEventListener('click', click); },
  };
})();
