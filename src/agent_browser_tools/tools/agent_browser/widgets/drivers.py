"""The ways out the tool runs itself when an element action on a hard widget did not take.

Each runs only after the engine's own action, on the element the model named, and only to set
exactly the value the model asked for: a slider moved with its keys, an editor's text replaced
by select-all and an inserted text, a combobox's option of that name picked from its list, a
date picker's day clicked in its calendar. Every step is an engine command (focus, press,
click, keyboard); page scripts only read and mark the element the engine then clicks. Each
driver ends by reading the value back where it lives.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.input_limits import loads_json_text
from agent_browser_tools.redaction import redact_text, redact_url
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.action_lines import quoted_text
from agent_browser_tools.state.effects import Probe
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import helper_batch
from agent_browser_tools.tools.agent_browser.refs import refmap
from agent_browser_tools.tools.agent_browser.widgets import page_scripts as js
from agent_browser_tools.tools.agent_browser.widgets import slider_keys as sk
from agent_browser_tools.tools.agent_browser.widgets.calendar_date import asked_day
from agent_browser_tools.tools.agent_browser.widgets.outcome import Outcome, Reached, Stopped

PICK_WAIT_MS = 2000
"""How long a combobox's list may take to show the asked option (suggestions from a server)."""
LIST_QUIET_MS = 600
"""With no option showing at all after this long, no list is coming (a free-text combobox)."""
CALENDAR_MONTHS = 36
"""At most this many month-control clicks toward the asked day."""


async def _rows(call: DirectCall, rows: Sequence[Sequence[str]]) -> list[BatchRow] | None:
    """One fail-fast helper batch; None when it could not run at all."""
    sent = refmap.rows_to_engine(rows, call.ref_table)
    envelope = await helper_batch(call.rt, call.plan, sent, bail=True)
    return list(envelope.rows) if envelope is not None and envelope.rows is not None else None


def _answer(row: BatchRow | None) -> Any:
    """What a page script row answered (its JSON text parsed), else None."""
    if row is None or not row.success or not isinstance(row.result, dict):
        return None
    text = row.result.get("result")
    try:
        return loads_json_text(text) if isinstance(text, str) else None
    except ValueError:
        return None


def _all_ran(rows: list[BatchRow] | None, count: int) -> bool:
    return rows is not None and len(rows) == count and all(r.success for r in rows)


def _retry(prefix: list[str], operand: str, value: str, reason: str) -> na.NextAction:
    """`fill OPERAND VALUE`: the same way out again, with a value the widget can take."""
    return na.NextAction(
        id="fill-reachable-value",
        reason=reason,
        params={"args": [*prefix, "fill", operand, value]},
    )


# ----- sliders -----------------------------------------------------------------------------


async def slider(call: DirectCall, operand: str, want: float, prefix: list[str]) -> Outcome:
    """Focus the slider, learn its step if the page does not say it (one press), press the
    arrows (from an end when shorter), read `aria-valuenow` / the value back."""
    read = await _rows(call, [["focus", operand], ["eval", js.SLIDER_JS]])
    state = sk.Slider.parse(_answer(read[-1] if read else None))
    if state is None:
        return Stopped("the slider could not be focused and read; it takes key presses only.")
    step = state.step
    if step is None and state.now != want:
        key = "ArrowRight" if want > state.now else "ArrowLeft"
        moved = await _rows(call, [["press", key], ["eval", js.SLIDER_JS]])
        after = sk.Slider.parse(_answer(moved[-1] if moved else None))
        if after is None or after.now == state.now:
            return Stopped(f"the slider did not move with {key}; it takes no key presses.")
        step, state = abs(after.now - state.now), after
    keys = sk.presses(state, want, step or 1.0)
    if keys is None:
        return _unreachable(state, want, step or 1.0, operand, prefix)
    reads = [["get", "attr", operand, "aria-valuenow"], ["get", "value", operand]]
    rows = [["focus", operand], *(["press", k] for k in keys), *reads]
    done = await _rows(call, rows)
    held = [_field(row) for row in done[-2:]] if _all_ran(done, len(rows)) and done else []
    final = next((sk.number(v) for v in held if sk.number(v) is not None), None)
    if final is None or abs(final - want) > 1e-9:
        now = sk.shown(final) if final is not None else "an unknown value"
        return Stopped(f"after {len(keys)} key presses the slider holds {now}.")
    return Reached(sk.shown(final), f"set with {_keys_said(keys)}: fill cannot move a slider")


def _keys_said(keys: list[str]) -> str:
    counts: dict[str, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    said = ", ".join(f"{n} {k}" if n > 1 else k for k, n in counts.items())
    return f"key presses ({said})" if keys else "no key presses (it already held it)"


def _unreachable(
    state: sk.Slider, want: float, step: float, operand: str, prefix: list[str]
) -> Stopped:
    near = sk.nearest(state, want, step)
    low = sk.shown(state.low) if state.low is not None else "?"
    high = sk.shown(state.high) if state.high is not None else "?"
    error = (
        f"the slider holds {sk.shown(state.now)} now and cannot hold {sk.shown(want)}: its "
        f"range is {low} to {high} in steps of {sk.shown(step)}"
    )
    if not near:
        return Stopped(error + ".")
    said = " or ".join(sk.shown(v) for v in near)
    actions = [
        _retry(prefix, operand, sk.shown(v), f"Set the nearest value the slider can hold ({v:g}).")
        for v in near
    ]
    return Stopped(f"{error}; the nearest values are {said}.", actions)


# ----- editors -----------------------------------------------------------------------------


async def editor(call: DirectCall, operand: str, text: str) -> Outcome:
    """Select the editor's whole text and insert the asked text in its place (no key events:
    an editor's typing rules would close brackets and indent), then read its text back."""
    rows = [
        ["focus", operand],
        ["press", "Control+a"],
        ["keyboard", "inserttext", text],
        ["get", "text", operand],
    ]
    done = await _rows(call, rows)
    held = done[-1].result.get("text") if _all_ran(done, 4) and done else None
    if not isinstance(held, str):
        return Stopped("the editor's text could not be replaced and read back.")
    if _same_text(held, text):
        return Reached(text, "replaced with select-all and inserted text: fill left the old text")
    return Stopped(f"after select-all and inserting the text the editor holds {quoted_text(held)}.")


def _same_text(held: str, want: str) -> bool:
    return " ".join(held.split()) == " ".join(want.split())


# ----- comboboxes --------------------------------------------------------------------------


async def combobox(
    call: DirectCall, operand: str, name: str, *, took: bool, prefix: list[str]
) -> Outcome | None:
    """Pick the option named `name` from the combobox's list: open it first (a click) when the
    action typed nothing, type the name when the list needs a search, click the option, then
    read the combobox back. None when no list ever showed (a free-text combobox); when the
    text took and no option has its name, only advice (a search box keeps what was typed)."""
    open_first = not took
    nonce = js.new_nonce()
    look = ["eval", js.pick_option_js(name, nonce, PICK_WAIT_MS, LIST_QUIET_MS)]
    opened = [["click", operand]] if open_first else []
    found = await _pick(call, [*opened, look])
    if found is not None and found.get("picked") is None and open_first:
        found = await _pick(call, [["keyboard", "type", name], look])
    if found is None or (not found.get("names") and not open_first):
        return None
    if found.get("picked") is None:
        shown = [str(n) for n in found.get("names") or ()]
        return _no_such_option(operand, name, shown, prefix, advice=took)
    return await _commit(call, operand, str(found["picked"]), nonce)


def _no_such_option(
    operand: str, name: str, shown: list[str], prefix: list[str], *, advice: bool
) -> Stopped:
    """No option has the asked name: say which the list shows; picking one of them works.
    Page text never becomes a next action that could name a secret (`{{...}}`)."""
    shown = [redact_text(n) for n in shown]
    listed = f" (shown: {', '.join(quoted_text(n) for n in shown[:6])})" if shown else ""
    usable = [
        n for n in dict.fromkeys(shown) if n.strip() and "{{" not in n and shown.count(n) == 1
    ]
    actions = [
        _retry(prefix, operand, option, f"Choose the listed option {quoted_text(option)}.")
        for option in usable[:3]
    ]
    said = f"its list shows no option named {quoted_text(name)}{listed}"
    if advice:
        return Stopped(
            f"Typed text only: {said}; the page may want one of them chosen.", actions, True
        )
    return Stopped(f"{said}; nothing is chosen until an option of the list is picked.", actions)


async def _pick(call: DirectCall, rows: list[list[str]]) -> dict[str, Any] | None:
    done = await _rows(call, rows)
    found = _answer(done[-1] if done and len(done) == len(rows) else None)
    return found if isinstance(found, dict) else None


async def _commit(call: DirectCall, operand: str, picked: str, nonce: str) -> Outcome:
    rows = [
        ["click", js.marked(nonce)],
        ["eval", js.UNMARK_JS],
        ["get", "value", operand],
        ["get", "text", operand],
        ["get", "attr", operand, "aria-expanded"],
    ]
    done = await _rows(call, rows)
    if not done or not done[0].success:
        return Stopped(f"the option {quoted_text(picked)} could not be clicked.")
    if not _all_ran(done, len(rows)):
        return Stopped(f"the option {quoted_text(picked)} was clicked; the combobox is gone now.")
    value, text, expanded = (_field(done[i]) for i in (2, 3, 4))
    shows = any(" ".join((v or "").split()).lower() == picked.lower() for v in (value, text))
    if shows and expanded != "true":
        return Reached(picked, f"picked the option {quoted_text(picked)} from its list")
    return Stopped(
        f"after clicking the option {quoted_text(picked)} the combobox shows "
        f"{quoted_text(value or text or '')}."
    )


async def page_now(call: DirectCall) -> Probe | None:
    """The page's url and title after a way out clicked (not fail-fast: the click may have
    replaced the document the earlier rows read)."""
    sent = [["get", "url"], ["get", "title"]]
    envelope = await helper_batch(call.rt, call.plan, sent)
    rows = list(envelope.rows or ()) if envelope is not None else []
    url, title = (_said(row, key) for row, key in zip(rows, ("url", "title"), strict=False))
    if not url:
        return None
    return Probe(url=redact_url(url), title=redact_text(title) if title else None)


def _said(row: BatchRow, key: str) -> str | None:
    result = row.result if row.success and isinstance(row.result, dict) else {}
    value = result.get(key)
    return value if isinstance(value, str) and value else None


def _field(row: BatchRow) -> str | None:
    result = row.result if isinstance(row.result, dict) else {}
    for key in ("value", "text"):
        if isinstance(result.get(key), str):
            return str(result[key])
    return None


# ----- date pickers ------------------------------------------------------------------------


async def calendar(call: DirectCall, operand: str, day: dt.date, *, opened: bool) -> Outcome | None:
    """Click the asked day in the picker's calendar, moving month by month with its controls;
    open it with a click on the field when it is not showing. None when no calendar shows (the
    field is a plain text field)."""
    nonce = js.new_nonce()
    script = js.calendar_js(day.year, day.month, day.day, nonce)
    state = await _pick(call, [["eval", script]])
    if (state is None or not state.get("open")) and not opened:
        state = await _pick(call, [["click", operand], ["eval", script]])
    if state is None or not state.get("open"):
        return None
    for _ in range(CALENDAR_MONTHS):
        if state is None or state.get("marked") in (None, "day"):
            break
        state = await _pick(call, [["click", js.marked(nonce)], ["eval", script]])
    if state is None or state.get("marked") != "day":
        return Stopped(
            f"its calendar shows no day {day.isoformat()} and no month control that reaches it."
        )
    rows = [["click", js.marked(nonce)], ["eval", js.UNMARK_JS], ["get", "value", operand]]
    done = await _rows(call, rows)
    value = _field(done[-1]) if _all_ran(done, len(rows)) and done else None
    if value is None or not _names_day(value, day):
        shown = quoted_text(value or "")
        return Stopped(f"after clicking {day.isoformat()} in its calendar the field shows {shown}.")
    said = quoted_text(redact_text(str(state.get("label") or day.isoformat())))
    return Reached(value, f"picked {said} in its calendar")


def _names_day(value: str, day: dt.date) -> bool:
    """The field shows that day: as a date the model could have written, or as its year,
    month and day numbers in the page's own order ("15/03/2027")."""
    if asked_day(value) == day:
        return True
    numbers = sorted(int(n) for n in re.findall(r"\d+", value))
    return numbers == sorted((day.year, day.month, day.day))
