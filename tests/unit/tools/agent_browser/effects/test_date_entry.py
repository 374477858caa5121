"""`date_entry`: the model's text as a date/time input value, and the key presses that enter
it in the page locale's part order."""

from __future__ import annotations

import json

import pytest

from agent_browser_tools.tools.agent_browser.effects.date_entry import (
    DateField,
    key_presses,
    parse_field,
    wanted_value,
)

US = DateField("date", "", date=("month", "day", "year"))
UK = DateField("date", "", date=("day", "month", "year"))
DIGITS = list("0123456789")


@pytest.mark.parametrize(
    ("field", "text", "value"),
    [
        (US, "2026-05-14", "2026-05-14"),
        (US, "05/14/2026", "2026-05-14"),
        (UK, "14.05.2026", "2026-05-14"),
        (UK, "2026/5/4", "2026-05-04"),
        (US, "14/05/2026", None),
        (US, "next Tuesday", None),
        (US, "2026-02-30", None),
        (DateField("time", ""), "14:45", "14:45"),
        (DateField("time", ""), "2:45 pm", "14:45"),
        (DateField("time", ""), "12:05 AM", "00:05"),
        (DateField("time", ""), "25:00", None),
        (DateField("datetime-local", "", date=US.date), "2026-05-14T09:30", "2026-05-14T09:30"),
        (DateField("datetime-local", "", date=US.date), "05/14/2026 9:30", "2026-05-14T09:30"),
        (DateField("month", ""), "2026-5", "2026-05"),
        (DateField("month", ""), "2026-13", None),
        (DateField("week", ""), "2026-W7", "2026-W07"),
    ],
)
def test_the_text_is_read_as_the_input_types_value(
    field: DateField, text: str, value: str | None
) -> None:
    assert wanted_value(field, text) == value


def test_a_date_is_typed_in_the_locale_order_from_the_first_part() -> None:
    """ArrowLeft once per part reaches the first part from any part; a year does not advance
    by itself, but it is last here."""
    assert key_presses(US, "2026-05-14") == ["ArrowLeft"] * 3 + list("05142026")
    assert key_presses(UK, "2026-05-14") == ["ArrowLeft"] * 3 + list("14052026")


def test_a_year_before_another_part_is_left_with_arrow_right() -> None:
    iso = DateField("date", "", date=("year", "month", "day"))
    assert key_presses(iso, "2026-05-14") == ["ArrowLeft"] * 3 + [
        *"2026",
        "ArrowRight",
        *"0514",
    ]
    local = DateField(
        "datetime-local",
        "",
        date=("month", "day", "year"),
        clock=("hour", "minute", "dayPeriod"),
        hour12=True,
    )
    assert key_presses(local, "2026-05-14T21:30") == ["ArrowLeft"] * 6 + [
        *"05142026",
        "ArrowRight",
        *"0930",
        "P",
    ]


def test_a_twelve_hour_clock_gets_its_hour_and_day_period() -> None:
    clock = DateField("time", "", clock=("hour", "minute", "dayPeriod"), hour12=True)
    assert key_presses(clock, "14:45") == ["ArrowLeft"] * 3 + [*"0245", "P"]
    assert key_presses(clock, "00:05") == ["ArrowLeft"] * 3 + [*"1205", "A"]
    assert key_presses(DateField("time", ""), "14:45") == ["ArrowLeft"] * 2 + list("1445")


def test_month_and_week_inputs() -> None:
    """The symbolic month part does not advance by itself; a week number does."""
    month = DateField("month", "", month=("month", "year"))
    assert key_presses(month, "2026-05") == ["ArrowLeft"] * 2 + [*"05", "ArrowRight", *"2026"]
    week = DateField("week", "")
    assert key_presses(week, "2026-W07") == ["ArrowLeft"] * 2 + list("072026")


def test_the_pages_answer_is_checked_before_it_is_used() -> None:
    """Page script answers the eval: an order that is not a permutation of the parts falls
    back to ISO order, a twelve-hour clock always has its day period."""
    raw = json.dumps(
        {
            "type": "date",
            "value": "",
            "hour12": True,
            "date": ["month", "month", "year"],
            "month": ["month", "year"],
            "clock": ["hour", "minute"],
        }
    )
    field = parse_field(raw)
    assert field is not None
    assert field.date == ("year", "month", "day")
    assert field.month == ("month", "year")
    assert field.clock == ("hour", "minute", "dayPeriod")
    assert parse_field(json.dumps({"type": "text", "value": "x"})) is None
    assert parse_field("not json") is None
    assert parse_field(None) is None


def test_only_digits_and_part_moves_are_pressed() -> None:
    keys = key_presses(US, "2026-05-14")
    assert set(keys) <= {"ArrowLeft", "ArrowRight", *DIGITS}
