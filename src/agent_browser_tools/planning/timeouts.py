"""The watchdog for one call (pure).

Precedence: the caller's `timeoutMs`; else a duration the command itself asks for (`wait <ms>`,
`wait --timeout <ms>`, `webmcp invoke|result --timeout <ms>`) plus a grace window, never less
than the default; else a short bound for dialog commands and dialog-trigger-like clicks/evals
(a blocking dialog otherwise stalls the engine for the full default); else the default.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_browser_tools.state.models import RefInfo

WAIT_GRACE_MS = 5_000
_DIALOG_WORDS = re.compile(r"\b(alert|confirm|prompt|dialog)\b", re.IGNORECASE)
_REF = re.compile(r"^(?:@|ref=)?(e\d+)$")


@dataclass(frozen=True)
class TimeoutPlan:
    timeout_ms: int
    source: str  # "caller" | "derived-wait" | "dialog" | "dialog-trigger" | "default"


def _int(token: str | None) -> int | None:
    if token is None or not token.isdigit():
        return None
    return int(token)


def _flag(tokens: Sequence[str], name: str) -> int | None:
    for index, token in enumerate(tokens[:-1]):
        if token == name:
            return _int(tokens[index + 1])
    return None


def requested_duration_ms(tokens: Sequence[str]) -> int | None:
    """Milliseconds the command itself asks the engine to wait for, if any."""
    if not tokens:
        return None
    if tokens[0] == "wait":
        explicit = _flag(tokens, "--timeout")
        if explicit is not None:
            return explicit
        return _int(tokens[1]) if len(tokens) > 1 else None
    if tokens[0] == "webmcp" and len(tokens) > 1 and tokens[1] in ("invoke", "result"):
        return _flag(tokens, "--timeout")
    return None


def looks_dialog_triggering(
    tokens: Sequence[str], stdin: str | None, refs: Mapping[str, RefInfo]
) -> bool:
    """Clicks/taps/finds on alert/confirm/prompt-named targets and evals calling them."""
    if not tokens:
        return False
    head = tokens[0]
    if head == "eval":
        script = stdin if "--stdin" in tokens else " ".join(tokens[1:])
        return bool(script and _DIALOG_WORDS.search(script))
    if head not in ("click", "tap", "dblclick", "find"):
        return False
    for token in tokens[1:]:
        ref = _REF.match(token)
        if ref:
            info = refs.get(ref.group(1))
            if info and info.name and _DIALOG_WORDS.search(info.name):
                return True
        elif _DIALOG_WORDS.search(token):
            return True
    return False


def plan_timeout(
    *,
    caller_ms: int | None,
    command: Sequence[str],
    batch_rows: Sequence[Sequence[str]] | None,
    stdin: str | None,
    refs: Mapping[str, RefInfo],
    default_ms: int,
    dialog_ms: int,
    dialog_trigger_ms: int,
) -> TimeoutPlan:
    """Pick the watchdog for a call; see the module docstring for the order."""
    if caller_ms is not None:
        return TimeoutPlan(caller_ms, "caller")
    rows = list(batch_rows) if batch_rows is not None else [command]
    waits = [d for d in (requested_duration_ms(r) for r in rows) if d is not None]
    if waits:
        return TimeoutPlan(max(default_ms, sum(waits) + WAIT_GRACE_MS), "derived-wait")
    # Compare the word, not a slice: `command` may be a list, and `["dialog"] != ("dialog",)`.
    if batch_rows is None and command and command[0] == "dialog":
        return TimeoutPlan(dialog_ms, "dialog")
    if batch_rows is None and looks_dialog_triggering(command, stdin, refs):
        return TimeoutPlan(dialog_trigger_ms, "dialog-trigger")
    return TimeoutPlan(default_ms, "default")
