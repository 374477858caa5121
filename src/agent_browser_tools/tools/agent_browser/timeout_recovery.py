"""Direct tool, recovery after the watchdog stopped a call (pure).

Why its own rules: a timed-out call may still have acted, so the page is looked at first when
it is unknown, a stopped batch retries only what did not finish (and only when the stopped step
is a read or a wait), and a retry's budget covers what the call asked the engine to wait.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.timeouts import requested_total_ms, retry_budget
from agent_browser_tools.redaction import redact_argv
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.taxonomy import TimeoutFamily, resolve_command, split_global_flags
from agent_browser_tools.tools.agent_browser import batch_args


def _retry_safe(plan: ExecutionPlan) -> bool:
    """Read-only commands (or a batch of only read-only rows) with nothing secret in their
    argv: repeating them cannot act twice or echo a secret back into a next action."""
    if plan.is_batch:
        rows = plan.checked.batch.rows if plan.checked.batch is not None else ()
        matches = plan.row_matches or ()
        return (
            bool(matches)
            and all(m is not None and m.spec.read_only for m in matches)
            and all(redact_argv(row) == list(row) for row in rows)
        )
    return (
        plan.match is not None
        and plan.match.spec.read_only
        and redact_argv(plan.args) == list(plan.args)
    )


def add(
    plan: ExecutionPlan,
    obs: Observation,
    prefix: list[str],
    target_unknown: bool,
    max_timeout_ms: int,
) -> None:
    """Look first when the page is unknown; then retry only what did not finish."""
    if plan.match is not None and plan.match.spec.daemon_diagnostic:
        obs.next_actions = [_retry_diagnostic(plan, max_timeout_ms)]
        return
    if target_unknown:
        obs.next_actions = [
            a for a in obs.next_actions if "snapshot" not in a.params.get("args", ())
        ]
        obs.next_actions.append(na.verify_page_target(prefix, "verify-page-target-after-timeout"))
    progress = obs.extra.get("timeoutPartialProgress")
    if progress is not None:
        _retry_remaining_steps(plan, obs, progress, max_timeout_ms)
    elif not target_unknown and _retry_safe(plan):
        _retry_after_timeout(plan, obs, max_timeout_ms)


def _retry_remaining_steps(
    plan: ExecutionPlan, obs: Observation, progress: Mapping[str, Any], max_timeout_ms: int
) -> None:
    """A stopped batch: retry from the step the watchdog stopped, never the finished ones,
    and only when that step is a read or a wait (anything else may already have acted) and
    no row still to run holds a value redaction would hide (a retry would echo it)."""
    start = int(progress.get("timedOutStep", 1)) - 1
    planned = plan.checked.batch.rows if plan.checked.batch is not None else ()
    rows = [list(row) for row in planned[start:]]
    matches = [resolve_command(split_global_flags(row)[1]) if row else None for row in rows]
    stopped = [s for s in progress.get("steps", ()) if s.get("status") in ("timed-out", "unknown")]
    unsafe = [
        m
        for m in matches[: len(stopped)]
        if m is None or not (m.spec.read_only or m.spec.timeout_family is TimeoutFamily.WAIT)
    ]
    if unsafe or any(redact_argv(row) != row for row in rows):
        why = "may have acted before the watchdog stopped" if unsafe else ""
        why = why or "stopped, and the rows still to run hold values that are not echoed"
        last = start + max(1, len(stopped))
        label = f"Step {start + 1}" if last == start + 1 else f"Steps {start + 1}-{last}"
        obs.warnings.append(
            f"{label} {why}, so no retry is offered: check the page first, then run "
            "what is still needed."
        )
        return
    budget = retry_budget(plan.timeout.timeout_ms, requested_total_ms(matches), max_timeout_ms)
    params = _remaining_call(plan, rows, start)
    if budget is not None:
        params["timeoutMs"] = budget
    done = progress.get("completedSteps", 0)
    obs.next_actions.append(
        na.NextAction(
            id="retry-remaining-batch-steps",
            reason=f"{done} step(s) finished; run the rest, from the step the watchdog stopped.",
            safety="The stopped step is a read or a wait; check the page if it matters.",
            params=params,
        )
    )


def _remaining_call(plan: ExecutionPlan, rows: list[list[str]], start: int) -> dict[str, Any]:
    """The same batch from row `start` on: argument rows stay the caller's own strings (a
    batch is only split when its rows can be found in its argv, so they can here too)."""
    batch = plan.checked.batch
    if batch is not None and batch.source == "args":
        positions = batch_args.row_positions(plan.args, len(batch.rows)) or ()
        return {"args": batch_args.keep_rows(plan.args, positions, start, len(batch.rows))}
    return {"args": list(plan.args), "stdin": json.dumps(rows)}


def _retry_diagnostic(plan: ExecutionPlan, max_timeout_ms: int) -> na.NextAction:
    """The same daemon read on the same session and namespace (the caller's argv selects
    them, or the managed session is injected again), with more time when there is any."""
    params: dict[str, Any] = {"args": list(plan.args)}
    budget = retry_budget(plan.timeout.timeout_ms, None, max_timeout_ms)
    if budget is not None:
        params["timeoutMs"] = budget
    return na.NextAction(
        id="retry-session-info",
        reason="The daemon did not answer in time; this says nothing about the browser or page.",
        safety="Read-only; nothing about the session's liveness is known until it answers.",
        params=params,
    )


def _retry_after_timeout(plan: ExecutionPlan, obs: Observation, max_timeout_ms: int) -> None:
    """Offer a retry whose budget covers what the call asked for, or say why none can."""
    spent = plan.timeout.timeout_ms
    matches = plan.row_matches if plan.is_batch else (plan.match,)
    requested = requested_total_ms(matches or ())
    budget = retry_budget(spent, requested, max_timeout_ms)
    if budget is not None:
        obs.next_actions.append(na.retry_with_longer_timeout(plan.args, plan.stdin, budget))
    elif requested is not None:
        obs.warnings.append(
            f"This call asks the engine to wait {requested} ms; this server allows at most "
            f"timeoutMs {max_timeout_ms}, so no retry of it can finish. Split the wait into "
            f"shorter calls, each below {max_timeout_ms} ms."
        )
    else:
        obs.warnings.append(
            f"timeoutMs {spent} is already this server's limit ({max_timeout_ms} ms), so a "
            "retry cannot get more time. Split the work into shorter calls."
        )
