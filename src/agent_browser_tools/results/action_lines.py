"""The visible lines of an action result and of its next actions (pure).

Why: every character a result returns is paid for in tokens, and a raw `{"filled": "@e3"}`
says less than a sentence of the same length. An action result names the element and what it
holds now (`details.actionEffect`, read back after the action), and where a click left the
page; a routine "refresh refs" hint is one short line, while the next actions that lead out
of a failure or a special state keep their explanation. The full objects stay in `details`.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.results import page_data

ROUTINE_ACTIONS = frozenset({"inspect-after-mutation"})
"""Next actions that follow every successful mutation; on success they are one short line."""

SHOWN_CHARS = 80
"""Names and values longer than this are cut in the visible line (the whole is in details)."""

COMMAND_VERBS = {
    "fill": "filled",
    "type": "typed",
    "select": "selected",
    "check": "checked",
    "uncheck": "unchecked",
    "click": "clicked",
    "tap": "clicked",
}
"""An element action's command -> the verb of its effect line (direct calls and batch steps)."""

_VERB_LABEL = {
    "filled": "Filled",
    "typed": "Typed into",
    "selected": "Selected",
    "checked": "Checked",
    "unchecked": "Unchecked",
    "clicked": "Clicked",
}


def quoted_text(value: object) -> str:
    """One-line, fence-safe quoting of page-written text, cut to `SHOWN_CHARS`."""
    text = str(value)
    if len(text) > SHOWN_CHARS:
        text = text[:SHOWN_CHARS] + "..."
    return page_data.quoted(text)


def element_label(effect: Mapping[str, Any]) -> str:
    """`textbox "Email" (@e4)`, or as much of it as is known."""
    role, name, ref = effect.get("role"), effect.get("name"), effect.get("ref")
    parts = [str(role)] if role else []
    if name:
        parts.append(quoted_text(name))
    if ref:
        parts.append(f"({ref})" if parts else str(ref))
    return " ".join(parts) or "the element"


def _value_part(effect: Mapping[str, Any]) -> str:
    """` = "value"`, ` (value hidden)`, or nothing when the value was not read back."""
    if effect.get("valueHidden"):
        return " (value hidden)"
    value = effect.get("value")
    if value is None:
        return ""
    if isinstance(value, list):
        return " = " + ", ".join(quoted_text(v) for v in value)
    return f" = {quoted_text(value)}"


def _state_part(effect: Mapping[str, Any]) -> str:
    checked = effect.get("checked")
    if effect.get("verb") == "clicked" and isinstance(checked, bool):
        return ", now checked" if checked else ", now unchecked"
    return ""


def _page_part(nav: Mapping[str, Any] | None) -> str:
    """` -> page "Welcome" - URL (url changed)` when the action moved the page, ` -> URL
    changed to URL#part (same page)` when only its fragment moved (an in-page link)."""
    if not isinstance(nav, Mapping) or not nav.get("urlChanged") or not nav.get("url"):
        return ""
    if nav.get("sameDocument") is True:
        return f" -> URL changed to {nav['url']} (same page)"
    title = nav.get("title")
    shown = f"{quoted_text(title)} - " if title else ""
    return f" -> page {shown}{nav['url']} (url changed)"


def action_headline(effect: Mapping[str, Any], nav: Mapping[str, Any] | None) -> str:
    """`Filled textbox "Email" (@e4) = "ada@example.com"`, `Selected "Blue" in combobox
    "Colour" (@e7)`, `Clicked button "Sign up" (@e9) -> page "Welcome" - URL (url changed)`.
    """
    verb = str(effect.get("verb") or "")
    label = _VERB_LABEL.get(verb, verb.capitalize() or "Acted on")
    element = element_label(effect)
    if verb == "selected":
        value = effect.get("value")
        values = value if isinstance(value, list) else [value] if value else []
        picked = ", ".join(quoted_text(v) for v in values)
        line = f"{label} {picked} in {element}" if picked else f"{label} in {element}"
    elif verb in ("filled", "typed"):
        line = f"{label} {element}{_value_part(effect)}"
    else:
        line = f"{label} {element}{_state_part(effect)}"
    if effect.get("verified") is None and verb in ("filled", "typed", "selected"):
        line += " (not read back)"
    if isinstance(how := effect.get("how"), str) and how:
        line += f" ({how})"
    return line + _page_part(nav)


def _command(action: Mapping[str, Any]) -> str:
    """The call a next action makes, as the model would write it."""
    params = action.get("params")
    if not isinstance(params, Mapping):
        return f"file {action.get('artifactPath')}" if "artifactPath" in action else ""
    args = params.get("args")
    extra = {k: v for k, v in params.items() if k not in ("args", "sessionMode")}
    if action.get("tool", "agent_browser") != "agent_browser" or not isinstance(args, list):
        return f"{action.get('tool')} {json.dumps(dict(params), ensure_ascii=False)}"
    line = shlex.join(str(a) for a in args)
    if extra:
        line += " " + json.dumps(extra, ensure_ascii=False)
    return line


def next_action_lines(actions: Sequence[Mapping[str, Any]], *, success: bool) -> list[str]:
    """`Refs may have changed: snapshot -i` for the routine follow-up of a success (kept after
    a verified fill or check too: nothing measured whether the page around it re-rendered);
    every other next action on one line with its reason (exact params are in
    `details.nextActions`)."""
    routine = [a for a in actions if success and a.get("id") in ROUTINE_ACTIONS]
    others = [a for a in actions if a not in routine]
    lines = [f"Refs may have changed: {_command(a)}" for a in routine[:1]]
    if others:
        lines.append("Next actions:")
        lines += [f"- {a.get('id')}: {_command(a)} - {a.get('reason', '')}" for a in others]
    return lines
