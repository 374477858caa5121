"""Native date and time inputs: what a `fill` should have set, and the keys that set it (pure).

Why: Chromium draws `<input type=date|time|datetime-local|month|week>` as separate parts
(spinbuttons "Month Month", "Day Day", ...). The engine's `fill`/`type` on such a part, or on
the input, answers success and leaves the value empty. Real key presses do work: focus the
field, go to its first part (ArrowLeft once per part: a no-op on the first one), then one
`press` per digit in the order the page's locale shows the parts. Two-digit parts advance by
themselves; a year (up to six digits) and the symbolic month of `type=month` do not, so
ArrowRight follows them when another part comes next. `A`/`P` set an AM/PM part.

The locale order comes from the page (`Intl.DateTimeFormat`, read in the post-action batch);
the model's text is accepted as the input's own value format (`YYYY-MM-DD`, `HH:MM`, ...) or
as numbers in that locale order (`05/14/2026` on an en-US page).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Set
from dataclasses import dataclass

from agent_browser_tools.input_limits import loads_json_text

KINDS = ("date", "time", "datetime-local", "month", "week")
FORMATS = {
    "date": "YYYY-MM-DD",
    "time": "HH:MM (24-hour)",
    "datetime-local": "YYYY-MM-DDTHH:MM",
    "month": "YYYY-MM",
    "week": "YYYY-Www",
}
DATE_PARTS = frozenset({"year", "month", "day"})
CLOCK_PARTS = frozenset({"hour", "minute", "dayPeriod"})
_NO_ADVANCE = frozenset({"year", "month-name"})

READ_JS = """(() => {
let e = document.activeElement;
while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
const kinds = ["date", "time", "datetime-local", "month", "week"];
if (!(e instanceof HTMLInputElement) || !kinds.includes(e.type)) return null;
const parts = (o) => new Intl.DateTimeFormat(undefined, o)
  .formatToParts(new Date(2000, 0, 2, 13, 5)).map((p) => p.type).filter((t) => t !== "literal");
const hour12 = !!new Intl.DateTimeFormat(undefined, {hour: "numeric"}).resolvedOptions().hour12;
return JSON.stringify({type: e.type, value: e.value, hour12,
  date: parts({year: "numeric", month: "2-digit", day: "2-digit"}),
  month: parts({year: "numeric", month: "2-digit"}),
  clock: parts({hour: "2-digit", minute: "2-digit"})});
})()"""
"""The focused native date/time input (the engine's fill focuses it): its type, value and
the page locale's part order; null for anything else."""


@dataclass(frozen=True)
class DateField:
    """The focused date/time input after the action, as the page reported it."""

    kind: str
    value: str
    date: tuple[str, ...] = ("year", "month", "day")
    month: tuple[str, ...] = ("year", "month")
    clock: tuple[str, ...] = ("hour", "minute")
    hour12: bool = False


def parse_field(raw: object) -> DateField | None:
    """The eval's answer as a `DateField`, or None. Page script answers, so every list is
    checked against the part names it may hold (anything else falls back to ISO order)."""
    try:
        data = loads_json_text(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    if not isinstance(data, Mapping) or data.get("type") not in KINDS:
        return None
    value, hour12 = data.get("value"), data.get("hour12") is True
    clock = tuple(p for p in _clock(data.get("clock")) if p != "dayPeriod" or hour12)
    if hour12 and "dayPeriod" not in clock:
        clock += ("dayPeriod",)
    return DateField(
        kind=str(data["type"]),
        value=value if isinstance(value, str) else "",
        date=_order(data.get("date"), DATE_PARTS, ("year", "month", "day")),
        month=_order(data.get("month"), {"year", "month"}, ("year", "month")),
        clock=clock,
        hour12=hour12,
    )


def _order(raw: object, names: Set[str], default: tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(raw, list) and sorted(raw) == sorted(names) and len(set(raw)) == len(raw):
        return tuple(str(x) for x in raw)
    return default


def _clock(raw: object) -> tuple[str, ...]:
    if not isinstance(raw, list) or len(set(raw)) != len(raw):
        return ("hour", "minute")
    if all(x in CLOCK_PARTS for x in raw) and {"hour", "minute"} <= set(raw):
        return tuple(str(x) for x in raw)
    return ("hour", "minute")


# ----- the model's text as the input's value ----------------------------------------------

_NUMS = re.compile(r"^\s*(\d{1,4})\s*[-/.]\s*(\d{1,4})\s*[-/.]\s*(\d{1,4})\s*$")
_TIME = re.compile(r"^\s*(\d{1,2}):(\d{2})(?::(00))?\s*([AaPp]\.?[Mm]\.?)?\s*$")
_MONTH = re.compile(r"^\s*(\d{4})-(\d{1,2})\s*$")
_WEEK = re.compile(r"^\s*(\d{4})-?[Ww](\d{1,2})\s*$")


def wanted_value(field: DateField, text: str) -> str | None:
    """The value `text` stands for in this input (`2026-05-14`, `09:30`, ...), or None when
    it cannot be read as one."""
    if field.kind == "date":
        return _date(text, field.date)
    if field.kind == "time":
        return _time(text)
    if field.kind == "datetime-local":
        day, sep, clock = text.strip().replace("T", " ").partition(" ")
        date, time = _date(day, field.date), _time(clock) if sep else None
        return f"{date}T{time}" if date and time else None
    if field.kind == "month":
        hit = _MONTH.match(text)
        ok = hit is not None and 1 <= int(hit.group(2)) <= 12
        return f"{hit.group(1)}-{int(hit.group(2)):02d}" if hit and ok else None
    hit = _WEEK.match(text)
    ok = hit is not None and 1 <= int(hit.group(2)) <= 53
    return f"{hit.group(1)}-W{int(hit.group(2)):02d}" if hit and ok else None


def _date(text: str, order: tuple[str, ...]) -> str | None:
    hit = _NUMS.match(text)
    if hit is None:
        return None
    groups = hit.groups()
    if len(groups[0]) == 4:  # ISO order whatever the locale
        parts = dict(zip(("year", "month", "day"), groups, strict=True))
    else:
        parts = dict(zip(order, groups, strict=True))
    if len(parts["year"]) != 4:
        return None
    try:
        day = dt.date(int(parts["year"]), int(parts["month"]), int(parts["day"]))
    except ValueError:
        return None
    return day.isoformat()


def _time(text: str) -> str | None:
    hit = _TIME.match(text)
    if hit is None:
        return None
    hour, minute, period = int(hit.group(1)), int(hit.group(2)), hit.group(4)
    if period is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if period[0] in "Pp" else 0)
    if hour > 23 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}"


# ----- the key presses that enter it --------------------------------------------------------


def key_presses(field: DateField, value: str) -> list[str]:
    """The `press` keys that enter `value` (as `wanted_value` returned it) into `field`,
    starting from any part of it."""
    parts = _parts(field, value)
    keys = ["ArrowLeft"] * len(parts)
    for index, (name, typed) in enumerate(parts):
        keys += list(typed)
        if name in _NO_ADVANCE and index < len(parts) - 1:
            keys.append("ArrowRight")
    return keys


def _parts(field: DateField, value: str) -> list[tuple[str, str]]:
    """(part name, keys typed into it) in the order the page shows the parts."""
    if field.kind == "week":
        year, week = value.split("-W")
        return [("week", week), ("year", year)]
    if field.kind == "month":
        year, month = value.split("-")
        own = {"year": year, "month": month}
        return [("month-name" if p == "month" else p, own[p]) for p in field.month]
    day, _, clock = value.partition("T") if field.kind == "datetime-local" else (value, "", "")
    if field.kind == "time":
        day, clock = "", value
    out: list[tuple[str, str]] = []
    if day:
        year, month, date = day.split("-")
        own = {"year": year, "month": month, "day": date}
        out += [(p, own[p]) for p in field.date]
    if clock:
        out += _clock_parts(field, clock)
    return out


def _clock_parts(field: DateField, clock: str) -> list[tuple[str, str]]:
    hour, minute = (int(x) for x in clock.split(":"))
    shown = {"hour": f"{hour:02d}", "minute": f"{minute:02d}"}
    if field.hour12:
        shown["hour"] = f"{(hour % 12) or 12:02d}"
        shown["dayPeriod"] = "P" if hour >= 12 else "A"
    return [(p, shown[p]) for p in field.clock if p in shown]
