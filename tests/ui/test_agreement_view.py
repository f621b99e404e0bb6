"""The Agreement tab's table below and at the minimum n: below 10 pairs the mean's interval and ICC / α / κ
read '—' with the reason (never "α = 0.000" for one pair, never an interval below 0); hand-worked tables."""
from annotation import agreement as ag
from annotation.verification import AgreementReport
from ibench_ui.verify import agreement_html


def _cells(html: str, rater: str) -> list[str]:
    row = html.split(f"<td>{rater}</td>", 1)[1].split("</tr>", 1)[0]
    return [c.split("</td>", 1)[0] for c in row.split("<td>")[1:]]


def test_one_pair_shows_dashes_with_the_reason_and_the_minimum():
    # one event: |Δ| = |7.29 - 8.0| = 0.71; within .25/.5: no, within 1/2: yes
    p = ag.pair_agreement("ann", {"x": 7.29}, "proposed", {"x": 8.0}, {"x": 10.0})
    rep = AgreementReport("demo", [p], [], alpha_all=0.0, prefix=None, n_events=1, revised=0, alpha_n=1)
    html = agreement_html([rep])
    cells = _cells(html, "ann")
    # vs, n, mean, CI, median, 4 shares, ICC, α interval, κ, α nominal, warning
    assert cells[:5] == ["proposed", "1", "0.710", "—", "0.710"]
    assert cells[9:13] == ["—", "—", "—", "—"]
    assert cells[13].startswith("n = 1 pairs &lt; 10: not computed")
    assert 'id="agreement-alpha-demo">—</b> (n = 1 events marked by two or more &lt; 10: not computed)' in html
    assert "need at least 10 pairs" in html


def test_ten_pairs_show_the_figures_and_an_interval_inside_the_range():
    # |Δ| = nine 0s and one 5 (see test_agreement: the bootstrap interval is 0 to 1.5, mean 0.5)
    a = {k: 10.0 for k in range(10)}
    b = {k: (15.0 if k == 9 else 10.0) for k in range(10)}
    p = ag.pair_agreement("ann", a, "bob", b, {k: 20.0 for k in range(10)})
    rep = AgreementReport("demo", [], [p], alpha_all=None, prefix=None, n_events=20, revised=0)
    cells = _cells(agreement_html([rep]), "ann")
    assert cells[:5] == ["bob", "10", "0.500", "0.000–1.500", "0.000"]
    assert "—" not in cells[10] and cells[13] == ""  # α on times is shown; no warning at n = 10
