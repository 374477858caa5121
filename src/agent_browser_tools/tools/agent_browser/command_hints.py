"""Small per-command diagnostics on a finished observation (pure).

Why each exists:
- `evalStdinHint`: `eval --stdin` with a function expression that is never called answers
  `{}` (the engine serializes the function object), which reads like "the page has nothing".
- `stream enable` on an already streaming session fails upstream with "already enabled"; the
  state the caller asked for holds, so it is an idempotent success with status/disable next.
- `state load` of a file encrypted with another key fails upstream with "Decryption failed",
  which says nothing about why: each conversation of a shared server has its own key
  (`engine.state_key`), so `stateKeyHint` says the file is another conversation's (or was
  saved with another key) and what to do instead.
- `network requests` with failed rows gets the engine's own `--status` filter as a follow-up.
- Long-running starts (trace, profiler, record, HAR, stream, react renders, dashboard) keep
  running after the call; the matching stop (taxonomy `paired_stop`) is offered as an exact
  action so the agent does not leave them running or guess the syntax.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results import diagnostics
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import SuccessCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.taxonomy import Diagnostic

_FUNCTION_SHAPED = re.compile(
    r"^\s*(async\s+)?(function\b|\([^()]*\)\s*=>|[\w$]+\s*=>)"
    r"|^\s*\(\s*(async\s+)?(function\b|\([^()]*\)\s*=>|[\w$]+\s*=>)",
    re.S,
)
_INVOKED = re.compile(r"\)\s*\(\s*[^()]*\)\s*;?\s*$", re.S)
_ALREADY_STREAMING = re.compile(r"already enabled", re.I)
_OTHER_KEY = re.compile(r"Decryption failed", re.I)
STATE_KEY_HINT = (
    "This state file was encrypted with another key: a file saved by another conversation "
    "of this server (each has its own key) or with another AGENT_BROWSER_ENCRYPTION_KEY "
    "cannot be loaded here. Sign in on the page instead, then `state save <file>` to keep "
    "this conversation's own state."
)


def _diagnostic(plan: ExecutionPlan) -> Diagnostic:
    match = plan.match
    return match.spec.diagnostic if match is not None and not plan.is_batch else Diagnostic.NONE


def eval_stdin_hint(plan: ExecutionPlan, stdin: str | None, obs: Observation) -> str | None:
    """The warning for a function-shaped `eval --stdin` snippet that answered `{}`."""
    if _diagnostic(plan) is not Diagnostic.SCRIPT_RESULT or not obs.success or stdin is None:
        return None
    data = obs.data
    result = data.get("result", data) if isinstance(data, dict) else data
    if result != {} or not _FUNCTION_SHAPED.search(stdin) or _INVOKED.search(stdin):
        return None
    return (
        "eval returned {}: the snippet looks like a function that was serialized instead of "
        "called. Invoke it, e.g. (() => ({ title: document.title }))(), or pass a plain "
        "expression such as ({ title: document.title })."
    )


def state_key_hint(plan: ExecutionPlan, obs: Observation) -> str | None:
    """The warning for a `state load` whose file another key encrypted."""
    if _diagnostic(plan) is not Diagnostic.SAVED_STATE or obs.success:
        return None
    return STATE_KEY_HINT if _OTHER_KEY.search(obs.error or "") else None


def stream_already_enabled(plan: ExecutionPlan, obs: Observation, prefix: Sequence[str]) -> bool:
    """Turn `stream enable`'s "already enabled" failure into an idempotent success."""
    if _diagnostic(plan) is not Diagnostic.IDEMPOTENT_START or obs.success:
        return False
    if not _ALREADY_STREAMING.search(obs.error or ""):
        return False
    upstream = obs.error
    obs.success, obs.failure_category, obs.error = True, None, None
    obs.success_category = SuccessCategory.COMPLETED
    obs.data = {"enabled": True, "alreadyEnabled": True, "upstreamMessage": upstream}
    obs.summary = "Streaming was already enabled for this session; nothing changed."
    obs.next_actions += [
        na.NextAction(
            id="check-stream-status",
            reason="Read the stream's port and connection state.",
            params={"args": [*prefix, "stream", "status"]},
        ),
        na.NextAction(
            id="stop-stream",
            reason="Disable streaming when the task is done.",
            params={"args": [*prefix, "stream", "disable"]},
        ),
    ]
    return True


def paired_stop_action(plan: ExecutionPlan, prefix: Sequence[str]) -> na.NextAction | None:
    """`stop-<command>` for a successful long-running start whose stop the taxonomy names."""
    match = plan.match
    if plan.is_batch or match is None or match.spec.paired_stop is None:
        return None
    stop = list(match.spec.paired_stop)
    return na.NextAction(
        id="stop-" + "-".join(match.spec.path[:-1] or match.spec.path),
        reason=f"`{' '.join(match.spec.path)}` keeps running after this call; end it with "
        f"`{' '.join(stop)}` when the task is done (add a path where the stop saves a file).",
        params={"args": [*prefix, *stop]},
    )


_FILTER_FLAGS = ("--status", "--filter", "--type", "--method")


def failed_requests_filter(plan: ExecutionPlan, obs: Observation, prefix: Sequence[str]) -> None:
    """`filter-failed-network-requests` when an unfiltered `network requests` listing holds
    HTTP failures: the engine's own `--status` filter shows just those rows next time."""
    if _diagnostic(plan) is not Diagnostic.REQUEST_LIST or not obs.success:
        return
    match = plan.match
    if match is None or any(match.has_flag(flag) for flag in _FILTER_FLAGS):
        return
    data = obs.data
    rows = diagnostics.request_rows(data) if isinstance(data, Mapping) else []
    failed = [r for r in rows if isinstance(r.get("status"), int) and r["status"] >= 400]
    if not failed:
        return
    obs.next_actions.append(
        na.NextAction(
            id="filter-failed-network-requests",
            reason=f"List only the {len(failed)} failed request(s) (HTTP 400-599).",
            params={"args": [*prefix, "network", "requests", "--status", "400-599"]},
        )
    )


def has_action_args(actions: Sequence[Any], args: Sequence[str]) -> bool:
    """Whether an action with exactly these args is already offered."""
    return any(getattr(a, "params", {}).get("args") == list(args) for a in actions)
