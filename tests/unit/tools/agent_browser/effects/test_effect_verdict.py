"""`effect_verdict`: a read-back holds what was asked, provably does not, or is unknown."""

from __future__ import annotations

from agent_browser_tools.tools.agent_browser.effects.date_entry import DateField
from agent_browser_tools.tools.agent_browser.effects.effect_verdict import (
    date_verdict,
    options_of,
    select_verdict,
    text_verdict,
    toggle_expected,
)

SELECT_HTML = """
  <option value="r">Red</option>
  <optgroup label="More"><option value="g">Light
     green</option><option>Blue</option></optgroup>"""


def test_a_field_that_holds_the_text_is_verified() -> None:
    assert text_verdict("Ada", "Ada", "", replaced=True) == ("Ada", True)
    # A mask reformats, an app upper-cases: letters and digits still match.
    assert text_verdict("5551234567", "(555) 123-4567", "", replaced=True)[1] is True
    assert text_verdict("save-10", "SAVE-10", "", replaced=True)[1] is True
    # `type` appends: the field holds more than the text.
    assert text_verdict(" II", "Ada II", "", replaced=False)[1] is True


def test_a_value_that_only_contains_the_text_is_not_claimed() -> None:
    """The fill may have done nothing to a field that already held more (review finding)."""
    assert text_verdict("a", "banana", "", replaced=True) == ("banana", None)
    assert text_verdict("5", "2051", "", replaced=False) == ("2051", None), "not at the end"


def test_a_field_that_does_not_hold_it_is_a_provable_no_op() -> None:
    assert text_verdict("2026-05-14", "", "", replaced=True) == ("", False)
    assert text_verdict("Hi", "", "Bye", replaced=True) == ("Bye", False), "a rich editor"
    assert text_verdict("abcdef", "abc", "", replaced=True)[1] is False, "a maxlength cut"
    assert text_verdict("75", "50", "", replaced=True)[1] is False, "a slider that ignored it"


def test_a_contenteditable_region_is_read_by_its_text() -> None:
    assert text_verdict("Hello", "", "Hello", replaced=True) == ("Hello", True)
    assert text_verdict("Hello  world", "", "Hello world\n", replaced=True)[1] is True
    # A fill replaces: an editor that kept its old text beside the new did not take it.
    assert text_verdict("Hello", "", "Helloselect * from t", replaced=True)[1] is False
    assert text_verdict("Hello", "", "old Hello", replaced=False)[1] is True


def test_nothing_read_is_unknown_and_an_empty_fill_must_clear() -> None:
    assert text_verdict("Ada", None, None, replaced=True) == (None, None)
    assert text_verdict("", "", "", replaced=True)[1] is True
    assert text_verdict("", "left", "", replaced=True)[1] is False
    assert text_verdict("", "left", "", replaced=False)[1] is None


def test_select_options_are_parsed_with_their_labels() -> None:
    assert options_of(SELECT_HTML) == [("r", "Red"), ("g", "Light green"), ("Blue", "Blue")]


def test_a_select_is_verified_by_value_or_label() -> None:
    assert select_verdict(["Light green"], "g", SELECT_HTML) == (["Light green"], True)
    assert select_verdict(["r"], "r", SELECT_HTML) == (["Red"], True)
    assert select_verdict(["Blue"], "r", SELECT_HTML) == (["Red"], False)
    assert select_verdict(["Blue"], None, SELECT_HTML) == (None, None)


def test_several_options_cannot_all_be_read_back() -> None:
    """`get value` names the first selected option only."""
    assert select_verdict(["Red", "Blue"], "r", SELECT_HTML) == (["Red"], None)
    assert select_verdict(["Red", "Blue"], "g", SELECT_HTML)[1] is False


def test_a_date_input_is_judged_by_its_value() -> None:
    us = ("month", "day", "year")
    empty = DateField("date", "", date=us)
    verdict = date_verdict(empty, "05/14/2026")
    assert (verdict.wanted, verdict.verified) == ("2026-05-14", False)
    assert date_verdict(DateField("date", "2026-05-14"), "2026-05-14").verified is True
    unreadable = date_verdict(empty, "soon")
    assert (unreadable.wanted, unreadable.verified) == (None, False)
    assert date_verdict(DateField("date", "2026-01-01"), "soon").verified is None


def test_what_a_click_should_leave_a_toggle_in() -> None:
    assert toggle_expected("radio", None) is True
    assert toggle_expected("checkbox", False) is True
    assert toggle_expected("switch", True) is False
    assert toggle_expected("checkbox", None) is None
