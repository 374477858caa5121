"""Dates the model may ask a date picker's text field for."""

from __future__ import annotations

import datetime as dt

import pytest

from agent_browser_tools.tools.agent_browser.widgets.calendar_date import asked_day


@pytest.mark.parametrize(
    "text",
    [
        "2027-03-15",
        " 2027-3-15 ",
        "March 15, 2027",
        "Mar 15 2027",
        "15 March 2027",
        "15th Mar. 2027",
    ],
)
def test_iso_and_written_dates_are_read(text: str) -> None:
    assert asked_day(text) == dt.date(2027, 3, 15)


@pytest.mark.parametrize(
    "text", ["03/15/2027", "2027-02-30", "Smarch 15, 2027", "next Tuesday", "", "15 2027"]
)
def test_ambiguous_impossible_or_unknown_dates_are_not(text: str) -> None:
    assert asked_day(text) is None
