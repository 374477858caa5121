"""A date the model asked a text field for, as (year, month, day) (pure).

Why: a date picker's text field may refuse typed text (read-only, the calendar is the only
way in) or take the text without committing it; either way the way out clicks the calendar
cell of that day, which needs the day itself. ISO dates and the written forms pages show
("March 15, 2027", "15 March 2027") are read; a numeric date in another order is ambiguous
(03/04/2027) and left to the field.
"""

from __future__ import annotations

import datetime as dt
import re

_MONTHS = {
    name: number
    for number, names in enumerate(
        (("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
         ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
         ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
         ("dec", "december")),
        start=1,
    )
    for name in names
}  # fmt: skip
_ISO = re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*$")
_MONTH_FIRST = re.compile(r"^\s*([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\s*$")
_DAY_FIRST = re.compile(r"^\s*(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]+)\.?,?\s+(\d{4})\s*$")


def asked_day(text: str) -> dt.date | None:
    """The day `text` names, or None."""
    if hit := _ISO.match(text):
        year, month, day = (int(g) for g in hit.groups())
    elif hit := _MONTH_FIRST.match(text):
        month, day, year = _MONTHS.get(hit.group(1).lower(), 0), int(hit[2]), int(hit[3])
    elif hit := _DAY_FIRST.match(text):
        day, month, year = int(hit[1]), _MONTHS.get(hit.group(2).lower(), 0), int(hit[3])
    else:
        return None
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None
