"""Direct tool, recovery after the watchdog stopped a call (pure).

Why its own rules: a timed-out call may still have acted, so the page is looked at first when
it is unknown, a stopped batch retries only what did not finish (and only when the stopped step
is a read or a wait), and a retry's budget covers what the call asked the engine to wait.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.timeouts import requested_total_ms, retry_budget
from agent_browser_tools.redaction import redact_argv
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.taxonomy import (
    CommandMatch,
    TimeoutFamily,
    resolve_command,
    split_global_flags,
)
from agent_browser_tools.tools.agent_browser.batches import batch_args


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
        if _dialog_likely(plan, progress) and plan.timeout.source not in DIALOG_SOURCES:
            obs.next_actions += na.dialog_timeout_actions(prefix)
    elif not target_unknown and _retry_safe(plan):
        _retry_after_timeout(plan, obs, max_timeout_ms)


def _retry_remaining_steps(
    plan: ExecutionPlan, obs: Observation, progress: Mapping[str, Any], max_timeout_ms: int
) -> None:
    """A stopped batch: retry what did not run, never the finished steps. A stopped read or
    wait is retried too; a stopped step that may have acted (a click, an eval) is left to the
    model, who checks the page first: the retry is the steps after it, which never ran. Steps
    whose fate is unknown, or rows still to run holding a value redaction would hide (a retry
    would echo it), get no retry at all."""
    start = int(progress.get("timedOutStep", 1)) - 1
    planned = plan.checked.batch.rows if plan.checked.batch is not None else ()
    steps = progress.get("steps", ())
    stopped = [s for s in steps if s.get("status") in ("timed-out", "unknown")]
    acted = [m for m in _matches(planned[start : start + len(stopped)]) if not _repeatable(m)]
    first = start + 1 if acted and len(stopped) == 1 else start
    rows = [list(row) for row in planned[first:]]
    last = start + max(1, len(stopped))
    label = f"Step {start + 1}" if last == start + 1 else f"Steps {start + 1}-{last}"
    why = ""
    if acted and len(stopped) > 1:
        why = "may have acted before the watchdog stopped"
    elif any(redact_argv(row) != row for row in rows):
        why = "stopped, and the rows still to run hold values that are not echoed"
    elif not rows:
        why = "may have acted before the watchdog stopped, and no step after it is left"
    if why:
        obs.warnings.append(
            f"{label} {why}, so no retry is offered: check the page first, then run "
            "what is still needed."
        )
        return
    matches = _matches(planned[first:])
    budget = retry_budget(plan.timeout.timeout_ms, requested_total_ms(matches), max_timeout_ms)
    params = _remaining_call(plan, rows, first)
    if budget is not None:
        params["timeoutMs"] = budget
    obs.next_actions.append(_retry_action(progress, params, label if first > start else None))


DIALOG_SOURCES = ("dialog", "dialog-trigger")
"""Timeout sources whose dialog actions `observe.add_recovery` adds already."""


def _dialog_likely(plan: ExecutionPlan, progress: Mapping[str, Any]) -> bool:
    """A finished step reported a dialog opening, or the stopped step is one that can open
    one (not a read or a wait): looking for a dialog is then the first recovery."""
    if progress.get("dialogOpenedAtStep") is not None:
        return True
    start = int(progress.get("timedOutStep", 1)) - 1
    planned = plan.checked.batch.rows if plan.checked.batch is not None else ()
    return any(not _repeatable(m) for m in _matches(planned[start : start + 1]))


def _matches(rows: Sequence[Sequence[str]]) -> list[CommandMatch | None]:
    return [resolve_command(split_global_flags(list(row))[1]) if row else None for row in rows]


def _repeatable(match: CommandMatch | None) -> bool:
    """A read or a wait: running it again cannot act twice."""
    return match is not None and (
        match.spec.read_only or match.spec.timeout_family is TimeoutFamily.WAIT
    )


def _retry_action(
    progress: Mapping[str, Any], params: dict[str, Any], skipped: str | None
) -> na.NextAction:
    """`retry-remaining-batch-steps`: from the stopped step, or (`skipped`: the stopped step
    may have acted) from the first step that never ran."""
    done = progress.get("completedSteps", 0)
    if skipped is None:
        reason = f"{done} step(s) finished; run the rest, from the step the watchdog stopped."
        safety = "The stopped step is a read or a wait; check the page if it matters."
    else:
        reason = f"{done} step(s) finished; run the steps that never ran (after {skipped})."
        safety = (
            f"{skipped} may have acted before the watchdog stopped: check the page first "
            "(`get url`, `snapshot -i`; a `dialog status` if a dialog may be open) and run it "
            "again yourself only if it did not take effect."
        )
    return na.NextAction(
        id="retry-remaining-batch-steps", reason=reason, safety=safety, params=params
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
