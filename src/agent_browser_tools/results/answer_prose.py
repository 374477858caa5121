"""A command's engine answer as short prose, for answers no shaped body renders (pure).

Why: the engine answers many commands with the request echoed back as JSON (`{"closed":
true, "restoreStatus": ...}`, `{"clicked": "[data-agent-browser-located='true']"}`), which
costs tokens and, for `find`, shows the engine's own marker selector instead of what was
found. The model reads what happened in one sentence; the full answer stays in `details` and
caller `--json` still gets it. In order: the command's own sentence (its taxonomy `prose`
templates), an element action (`{"<verb>ed": target}`), then each field on a line of its own,
never a JSON object of the engine's. (`confirm` is the presenter's: it renders the approved
action's own answer.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.results.action_lines import quoted_text
from agent_browser_tools.taxonomy import CommandMatch, command

LOCATED_MARK = "data-agent-browser-located"
"""The attribute the engine puts on the element a `find` locator found, and the selector it
then answers with: an engine internal, never shown."""

QUIET_KEYS = frozenset({"lifecycle", "targetId", "webmcp", "origin"})
"""Engine bookkeeping (`origin` is where the command ran, which the `Page:` line says)."""

_ACTION_WORDS = {
    "clicked": "Clicked",
    "dblclicked": "Double-clicked",
    "tapped": "Tapped",
    "filled": "Filled",
    "typed": "Typed into",
    "hovered": "Hovered",
    "focused": "Focused",
    "checked": "Checked",
    "unchecked": "Unchecked",
    "pressed": "Pressed",
    "scrolled": "Scrolled",
}
"""The engine's action answer keys (`{"clicked": "#go"}`) and the sentence's verb."""

_LOCATOR_WORDS = {
    "text": "found by text",
    "label": "labelled",
    "placeholder": "with placeholder",
    "alt": "with alt text",
    "title": "with title",
    "testid": "with test id",
}
_FIELD_VERBS = frozenset({"filled", "typed"})


def answer_lines(
    path: Sequence[str], data: Mapping[str, Any], match: CommandMatch | None
) -> list[str]:
    """The sentence(s) for one command's answer `data` (lifecycle and other bookkeeping
    left out). `match` is the call as written, when known: a `find` names its locator."""
    visible = {k: v for k, v in data.items() if k not in QUIET_KEYS}
    spec = match.spec if match is not None else command(path)
    for template in spec.prose if spec is not None else ():
        if (line := _filled(template, visible)) is not None:
            return [line]
    if (action := _action_line(visible, match)) is not None:
        return [action]
    return field_lines(visible)


def _filled(template: str, data: Mapping[str, Any]) -> str | None:
    """`template` with the answer's fields, or None when one it names is missing or null."""
    values = {k: _plain(v) for k, v in data.items() if v is not None}
    try:
        return template.format_map(values)
    except (KeyError, IndexError, ValueError):
        return None


def _plain(value: Any) -> str:
    """One line of a value, cut to the visible size: a list of words as `a, b` (`none`)."""
    if isinstance(value, list) and not any(isinstance(v, Mapping | list) for v in value):
        value = ", ".join(str(v) for v in value) or "none"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= 200 else text[:200] + "..."


def _action_line(data: Mapping[str, Any], match: CommandMatch | None) -> str | None:
    """`Clicked #go.`, `Filled the field labelled "Email".` for a one-key action answer."""
    if len(data) != 1:
        return None
    ((key, target),) = data.items()
    verb = _ACTION_WORDS.get(key)
    if verb is None:
        return None
    if isinstance(target, str) and LOCATED_MARK in target:
        return f"{verb} {_located(key, match)}."
    if target is True or target in (None, ""):
        return f"{verb} the page." if key == "scrolled" else f"{verb}."
    return f"{verb} {_plain(target)}."


def _is_locator(match: CommandMatch) -> bool:
    """A `find`: its words name the element (the taxonomy's locator field)."""
    field = match.spec.field_value
    return field is not None and field.locator


def _located(key: str, match: CommandMatch | None) -> str:
    """What a `find` locator found, in the caller's own words."""
    noun = "the field" if key in _FIELD_VERBS else "the element"
    ops = match.operands if match is not None and _is_locator(match) else ()
    if len(ops) < 2:
        return f"{noun} found by the locator"
    kind, value = ops[0], ops[1]
    if kind in _LOCATOR_WORDS:
        return f"{noun} {_LOCATOR_WORDS[kind]} {quoted_text(value)}"
    if kind == "role":
        name = match.flag_value("--name") if match is not None else None
        named = f" named {quoted_text(name)}" if name else ""
        return f"{noun} with role {quoted_text(value)}{named}"
    if kind in ("first", "last"):
        return f"the {kind} element matching {quoted_text(value)}"
    if kind == "nth" and len(ops) > 2:
        return f"element {value} matching {quoted_text(ops[2])}"
    return f"{noun} found by {kind} {quoted_text(value)}"


def field_lines(data: Mapping[str, Any]) -> list[str]:
    """Each field on a line of its own (`visible: true`); a list of records one line each."""
    lines: list[str] = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            lines.append(f"{key} ({len(value)}):")
            lines += ["- " + _pairs(item) for item in value]
        elif isinstance(value, Mapping) and key != "result":
            lines.append(f"{key}: {_pairs(value)}" if value else f"{key}: (none)")
        else:
            lines.append(f"{key}: {_whole(value)}")
    return lines


def _whole(value: Any, *, one_line: bool = False) -> str:
    """A field's value in full: page data (an `eval` result, a cookie) is never cut or
    reflowed here; an oversized answer is spilled to a file by the answer budget instead."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text.replace("\n", "\\n") if one_line else text


def _pairs(record: Mapping[str, Any]) -> str:
    return "; ".join(
        f"{k}={_whole(v, one_line=True)}" for k, v in record.items() if k not in QUIET_KEYS
    )
