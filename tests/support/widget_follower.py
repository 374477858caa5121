"""A generic follower over the widgets fixture (`tests/fixtures/widgets_app`), for the test and
the benchmark of issue 30.

The follower knows nothing about the pages: for each widget it sends the one action a model
would (`fill`/`select` on the widget's ref with the asked value) and, while the tool reports an
error, runs the tool's first next action exactly as given, at most `MAX_FOLLOWED` times. What
counts is what the page holds afterwards, read through the page itself
(`window.widgetValues()`, written by the fixture from each library's own API), never the
tool's read-back.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MAX_FOLLOWED = 4
PAGE = "/widgets/"
READ_VALUES = "JSON.stringify(window.widgetValues())"


@dataclass(frozen=True)
class WidgetCase:
    """One widget, how the snapshot names it, the action and value asked, and the key under
    which the page reports what it holds."""

    label: str
    role: str
    name: str
    command: str
    value: str
    key: str


CASES: tuple[WidgetCase, ...] = (
    WidgetCase("native range", "slider", "Volume", "fill", "37", "volume"),
    WidgetCase("native range, step 5", "slider", "Budget", "fill", "735", "budget"),
    WidgetCase("ARIA slider (div)", "slider", "Threads", "fill", "4", "threads"),
    WidgetCase("noUiSlider", "slider", "Temperature", "fill", "31.5", "temperature"),
    WidgetCase("CodeMirror 6", "textbox", "SQL query", "fill", "select name from authors", "sql"),
    WidgetCase("Quill", "textbox", "Release notes", "fill", "Fixed the crash on save", "notes"),
    WidgetCase("select2", "combobox", "---------", "select", "Emile Zola", "author"),
    WidgetCase("ARIA autocomplete", "combobox", "City", "fill", "Lyon", "city"),
    WidgetCase("flatpickr (read-only)", "textbox", "Departure", "fill", "2027-03-15", "departure"),
    WidgetCase("flatpickr (typed)", "textbox", "Return", "fill", "2026-12-24", "returnDate"),
    WidgetCase("native date", "spinbutton", "Day Day", "fill", "2026-05-14", "birthday"),
)

Call = Callable[[Mapping[str, Any]], Awaitable[Any]]
"""Sends one `agent_browser` call's params, returns its `ToolResult`."""


@dataclass(frozen=True)
class Followed:
    case: WidgetCase
    calls: int
    tool_error: bool
    held: str

    @property
    def reached(self) -> bool:
        return self.held == self.case.value


def ref_of(refs: Mapping[str, Any], role: str, name: str) -> str:
    """`@eN` of the one ref with this role and name in a snapshot's refs."""
    hits = [r for r, info in refs.items() if (info.get("role"), info.get("name")) == (role, name)]
    if len(hits) != 1:
        raise LookupError(f"{len(hits)} refs are {role} {name!r}")
    return "@" + hits[0]


def page_values(data: Any) -> dict[str, str]:
    """`widgetValues()` from an `eval` answer's data."""
    raw = data.get("result") if isinstance(data, Mapping) else None
    values = json.loads(raw) if isinstance(raw, str) else None
    if not isinstance(values, dict):
        raise ValueError(f"the page did not report its widget values: {data!r}")
    return {str(k): str(v) for k, v in values.items()}


async def follow(call: Call, case: WidgetCase, ref: str) -> tuple[int, bool]:
    """The action, then the first next action while the result is an error; (calls made,
    whether the last result was still an error)."""
    result = await call({"args": [case.command, ref, case.value]})
    calls = 1
    while result.is_error and calls <= MAX_FOLLOWED:
        actions: Sequence[Mapping[str, Any]] = result.details.get("nextActions") or ()
        if not actions or not isinstance(actions[0].get("params"), Mapping):
            break
        result = await call(dict(actions[0]["params"]))
        calls += 1
    return calls, bool(result.is_error)
