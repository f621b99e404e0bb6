"""CSV cells safe from formulas (annotation.csv_cells), case by case: each trigger = + - @ tab CR at the start gets an
apostrophe; a negative number is data and is kept; a trigger anywhere but the start is harmless; reading back takes
off only the apostrophe the writer added."""
from __future__ import annotations

import pytest

from annotation.csv_cells import plain_cell, safe_cell, safe_dict, safe_row


@pytest.mark.parametrize("cell", ["=HYPERLINK(\"http://x\")", "+1", "+", "-", "@", "\t", "\r", "\r=1", "\t=1",
                                  "-1-1", "-1+A1", "--1", "-e5", "-1e", "-1.2.3", "- 1", "-1 ", "-1x", "-1\n",
                                  "-0x10", "-inf", "-nan", "+0.5", "=-1", "@-1", "-.", "-1e+",
                                  "-\u0661"])  # U+0661: an Arabic-Indic digit, no number to a spreadsheet
def test_every_formula_start_is_escaped(cell):
    assert safe_cell(cell) == "'" + cell
    assert plain_cell("'" + cell) == cell


@pytest.mark.parametrize("cell", ["-0.25", "-3", "-3.", "-.5", "-1e5", "-1E5", "-1.5e-3", "-2.5E+10", "-007"])
def test_a_negative_number_is_data(cell):
    assert safe_cell(cell) == cell and plain_cell(cell) == cell


@pytest.mark.parametrize("cell", ["a=b", "x+1", "1-2", "mail@x", "ok\t", "ok\r", "", " =1", "'", "1e5", "X=1",
                                  "XX@x", "X'=1"])
def test_a_trigger_after_the_first_character_is_harmless(cell):
    assert safe_cell(cell) == cell


@pytest.mark.parametrize("value", [-2, -0.5, 0, 3.5, None, True, b"=x", ("=x",)])
def test_values_that_are_not_text_are_written_as_they_are(value):
    assert safe_cell(value) is value and plain_cell(value) is value


@pytest.mark.parametrize("cell", ["'ok", "'-3", "'-0.25", "''", "'", "'a=b"])
def test_an_apostrophe_the_writer_did_not_add_is_kept(cell):
    """'-3 cannot come from safe_cell (which keeps -3), so the apostrophe is the author's."""
    assert plain_cell(cell) == cell


@pytest.mark.parametrize("text, written", [("'=x", "''=x"), ("''@a", "'''@a"), ("'+1", "''+1"), ("'\t", "''\t")])
def test_apostrophes_before_a_formula_start_get_one_more_so_the_text_reads_back_whole(text, written):
    """A text "'=x" written as is would read back as "=x" (its own apostrophe taken for the writer's)."""
    assert safe_cell(text) == written and plain_cell(written) == text


def test_rows_and_dicts_escape_every_cell():
    assert safe_row(iter(["=1", 2, "-2", "@a", "b"])) == ["'=1", 2, "-2", "'@a", "b"]
    assert safe_row(()) == []
    assert safe_dict({"who": "+P1", "t": -1.5, "note": "-ok", "n": "-1"}) == \
        {"who": "'+P1", "t": -1.5, "note": "'-ok", "n": "-1"}
