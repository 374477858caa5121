"""An element action whose read-back provably did not take: the failure and its way out.

Why a failure and not a warning: the engine said success, so a model reading "success" moves
on with a form that is missing a value. The error says what was asked and what the element
holds now; the next action is one that sets it (key presses for a native date/time input,
real keystrokes for a text control that ignored a programmatic fill) or, for toggles and
selects that the page refused, a snapshot to see why. Category `upstream-error`, as for the
click-dispatch miss: the engine reported an effect that did not happen.
"""

from __future__ import annotations

import json
from typing import Any

from agent_browser_tools.redaction import redact_text
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.action_lines import element_label, quoted_text
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.effects.date_entry import FORMATS, key_presses
from agent_browser_tools.tools.agent_browser.effects.effect_verdict import Asked, DateVerdict

KEYSTROKE_ROLES = frozenset({None, "textbox", "searchbox", "combobox", "generic"})
"""Roles where real keystrokes are the way to enter text a programmatic fill could not."""
TEXT_COMMANDS = frozenset({"fill", "type", "select"})
"""Actions that set a value: after one that did not take, a snapshot alone is no way out."""
_INSPECT = "inspect-after-no-op"
PRESS_LIMIT = 64
"""Longer text is not offered as one `press` per character."""


def describe(target: Asked) -> str:
    """`textbox "Email" (@e4)` (the headline's own wording), or the selector as given."""
    if target.info is None or target.ref is None:
        return redact_text(target.operand)
    name = redact_text(target.info.name) if target.info.name else None
    role = target.info.role or "element"
    return element_label({"role": role, "name": name, "ref": "@" + target.ref})


def _q(value: object) -> str:
    """Page-written text on one line, fence-safe (a value cannot start a line of its own)."""
    return quoted_text(redact_text(str(value)))


def fail(
    call: DirectCall,
    obs: Observation,
    target: Asked,
    effect: dict[str, Any],
    date: DateVerdict | None,
) -> None:
    """Turn the successful-looking result into the read-back failure."""
    prefix = na.session_prefix(call.plan.session.key, not call.plan.session.used_implicit_session)
    if date is not None and effect.get("valueHidden"):
        # A credential date (card expiry): neither its value nor its digits as key presses.
        error = f"{target.command} did not set {describe(target)} (a credential field)."
        actions = [_inspect(prefix)]
    elif date is not None:
        error, actions = _date(prefix, target, date)
    elif target.text is not None:
        error, actions = _text(prefix, target, effect)
    elif target.command == "select":
        held = ", ".join(_q(v) for v in effect.get("value") or ()) or "nothing"
        asked = ", ".join(_q(v) for v in effect.get("expected") or ())
        error = f"select did not take: {describe(target)} shows {held} now, not {asked}."
        actions = [_inspect(prefix)]
    else:
        error, actions = _toggle(prefix, target, effect)
    if target.command in TEXT_COMMANDS and [a.id for a in actions] == [_INSPECT]:
        # A look at the page sets nothing: a value no key press may enter (a credential, a
        # select the page refuses) gets the error alone, which says what the field holds.
        actions = []
    obs.success, obs.success_category = False, None
    obs.failure_category = FailureCategory.UPSTREAM_ERROR
    obs.error = error
    obs.next_actions += actions


def stopped(
    call: DirectCall, obs: Observation, target: Asked, why: str, actions: list[na.NextAction]
) -> None:
    """The widget's way out (`widgets`) ran and could not reach the value: why, and its next
    actions (each works when followed literally), a look at the page after them."""
    prefix = na.session_prefix(call.plan.session.key, not call.plan.session.used_implicit_session)
    obs.success, obs.success_category = False, None
    obs.failure_category = FailureCategory.UPSTREAM_ERROR
    obs.error = f"{target.command} did not set {describe(target)}: {why}"
    if not actions:
        # A look at the page alone sets nothing (no `snapshot -i` as the only way out).
        obs.error += " Look at the widget before trying again."
        return
    obs.next_actions += [*actions, _inspect(prefix)]


def _date(prefix: list[str], target: Asked, date: DateVerdict) -> tuple[str, list[na.NextAction]]:
    kind, now = date.field.kind, date.field.value
    head = (
        f"{target.command} did not set the {kind} input: {describe(target)} belongs to an "
        f"<input type={kind}> that holds {_q(now)} now"
    )
    if date.wanted is None:
        return (
            f"{head}, and the text is not a {kind} value. Give it as {FORMATS[kind]} (or as "
            f"numbers in the order the field shows), e.g. `{target.command} {target.operand} "
            f"{_example(kind)}`; the result then offers the key presses that set it.",
            [],
        )
    keys = key_presses(date.field, date.wanted)
    rows = [["focus", target.operand], *(["press", key] for key in keys)]
    error = (
        f'{head} (asked: "{date.wanted}"). The engine\'s fill/type cannot enter it there; '
        "the next action types it as key presses into the field's parts."
    )
    return error, [
        na.NextAction(
            id="enter-date-by-keys",
            reason=f"Set {date.wanted} with real key presses (focus, first part, digits).",
            params={"args": [*prefix, "batch", "--bail"], "stdin": json.dumps(rows)},
        )
    ]


def _example(kind: str) -> str:
    return {
        "date": "2026-05-14",
        "time": "09:30",
        "datetime-local": "2026-05-14T09:30",
        "month": "2026-05",
        "week": "2026-W20",
    }[kind]


def _text(
    prefix: list[str], target: Asked, effect: dict[str, Any]
) -> tuple[str, list[na.NextAction]]:
    if effect.get("valueHidden"):
        held = "another value now (not shown: credential field)"
    else:
        held = f"{_q(effect.get('value') or '')} now"
        held += f", not {_q(effect.get('expected'))}" if effect.get("expected") else ""
    error = f"{target.command} did not take: {describe(target)} holds {held}."
    actions = [_inspect(prefix)]
    if target.role == "slider" and target.command != "fill" and target.text:
        # `fill` on a slider is the tool's own way out (keys, read back): offer exactly that.
        way = na.NextAction(
            id="set-slider-with-fill",
            reason="fill moves a slider with its keys and reads it back.",
            params={"args": [*prefix, "fill", target.operand, target.text]},
        )
        return error, [way, *actions]
    if target.role not in KEYSTROKE_ROLES or effect.get("valueHidden") or not target.text:
        return error, actions
    clear = ["press", "Control+a"] if target.command == "fill" else ["press", "End"]
    if _pressable(target):
        rows = [["focus", target.operand], clear, *(["press", c] for c in target.text)]
        error += " The field may take only key events; the next action presses the keys."
        way = na.NextAction(
            id="retype-with-keystrokes",
            reason="Enter the text with real key presses instead of a programmatic fill.",
            params={"args": [*prefix, "batch", "--bail"], "stdin": json.dumps(rows)},
        )
    else:
        rows = [["focus", target.operand], clear, ["keyboard", "inserttext", target.text]]
        error += " The next action inserts the text as typing would (no key events)."
        way = na.NextAction(
            id="insert-text-as-typed",
            reason="Insert the text into the focused field, as an input method would.",
            params={"args": [*prefix, "batch", "--bail"], "stdin": json.dumps(rows)},
        )
    return error, [way, *actions]


def _pressable(target: Asked) -> bool:
    """Text the engine's `press` can enter one key at a time: printable ASCII (it drops other
    characters silently; its `keyboard type` inserts text without key events)."""
    text = target.text or ""
    return 0 < len(text) <= PRESS_LIMIT and all(" " <= char <= "~" for char in text)


def _toggle(
    prefix: list[str], target: Asked, effect: dict[str, Any]
) -> tuple[str, list[na.NextAction]]:
    state = "checked" if effect.get("checked") else "unchecked"
    error = (
        f"{target.command} did not change {describe(target)}: it is still {state}. The page "
        "kept its state (a handler may cancel the click, or other state drives the control); "
        "look at the page before trying again."
    )
    return error, [_inspect(prefix)]


def _inspect(prefix: list[str]) -> na.NextAction:
    return na.NextAction(
        id=_INSPECT,
        reason="See the control's state now and any message next to it before trying again.",
        params={"args": [*prefix, "snapshot", "-i"]},
    )
