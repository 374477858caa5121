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

from agent_browser_tools import taxonomy
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.taxonomy import CommandMatch

WAIT_GRACE_MS = 5_000
_DIALOG_WORDS = re.compile(r"\b(alert|confirm|prompt|dialog)\b", re.IGNORECASE)
_REF = re.compile(r"^(?:@|ref=)?(e\d+)$")


@dataclass(frozen=True)
class TimeoutPlan:
    timeout_ms: int
    source: str  # "caller" | "derived-wait" | "dialog" | "dialog-trigger" | "default"


def _match(tokens: Sequence[str]) -> CommandMatch | None:
    if not tokens:
        return None
    _globals, rest = taxonomy.split_global_flags(tokens)
    return taxonomy.resolve_command(rest) if rest else None


def requested_duration_ms(tokens: Sequence[str]) -> int | None:
    """Milliseconds the command itself asks the engine to wait for (from the command table's
    duration operand / timeout flag), if any."""
    match = _match(tokens)
    if match is None or match.spec.timeout_family not in (
        taxonomy.TimeoutFamily.WAIT,
        taxonomy.TimeoutFamily.WEBMCP,
    ):
        return None
    return match.requested_duration_ms()


def looks_dialog_triggering(
    tokens: Sequence[str], stdin: str | None, refs: Mapping[str, RefInfo]
) -> bool:
    """Clicks/finds on alert/confirm/prompt-named targets, and evals that call them."""
    match = _match(tokens)
    if match is None:
        return False
    spec = match.spec
    if spec.stdin_flag == "--stdin" and spec.page_effect is taxonomy.PageEffect.MAY_NAVIGATE:
        script = stdin if match.has_flag("--stdin") else " ".join(match.operands)
        return bool(script and _DIALOG_WORDS.search(script))
    clicks = spec.page_effect is taxonomy.PageEffect.MAY_NAVIGATE and (
        spec.ref_slots.positions or spec.path[:1] == ("find",)
    )
    if not clicks:
        return False
    flag_values = [value for _name, value in match.flags if value]
    for token in (*match.operands, *flag_values):
        ref = _REF.match(token)
        if ref:
            info = refs.get(ref.group(1))
            if info and info.name and _DIALOG_WORDS.search(info.name):
                return True
        elif _DIALOG_WORDS.search(token):
            return True
    return False


def _is_dialog_command(tokens: Sequence[str]) -> bool:
    match = _match(tokens)
    return match is not None and match.spec.timeout_family is taxonomy.TimeoutFamily.DIALOG


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
    if batch_rows is None and _is_dialog_command(command):
        return TimeoutPlan(dialog_ms, "dialog")
    if batch_rows is None and looks_dialog_triggering(command, stdin, refs):
        return TimeoutPlan(dialog_trigger_ms, "dialog-trigger")
    return TimeoutPlan(default_ms, "default")


def requested_total_ms(matches: Sequence[CommandMatch | None]) -> int | None:
    """Milliseconds a call's commands (one, or a batch's rows run in turn) ask the engine to
    wait in total, if any of them asks."""
    waits = [
        duration
        for match in matches
        if match is not None
        and match.spec.timeout_family
        in (taxonomy.TimeoutFamily.WAIT, taxonomy.TimeoutFamily.WEBMCP)
        and (duration := match.requested_duration_ms()) is not None
    ]
    return sum(waits) if waits else None


def retry_budget(spent_ms: int, requested_ms: int | None, cap_ms: int) -> int | None:
    """The `timeoutMs` to suggest after the watchdog stopped a call, or None when no budget
    the operator allows can do better.

    Why: doubling alone can stay below what the command itself asks for (`wait 3000` stopped
    at 200 ms would be offered 400), and a suggested retry that cannot finish wastes a call.
    The suggestion covers the requested duration plus the same grace the planner adds, is
    never above the operator's `max_timeout_ms`, and must be more than was already spent.
    """
    suggestion = spent_ms * 2
    if requested_ms is not None:
        if requested_ms >= cap_ms:
            return None
        suggestion = max(suggestion, requested_ms + WAIT_GRACE_MS)
    suggestion = min(suggestion, cap_ms)
    return suggestion if suggestion > spent_ms else None
