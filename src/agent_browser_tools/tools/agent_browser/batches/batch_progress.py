"""What a batch the watchdog stopped got done: `details.timeoutPartialProgress` (pure but for
the artifact checks, which look at the disk).

Why: a bare `did not finish within N ms` makes the model redo finished work (or assume it
happened). The steps that finished (the segments that answered), the stopped and unrun ones,
the page the finished steps last reported, and whether each declared artifact file is on
disk now are what decide the next call; the rows still to run are given redacted (the retry
offer in `timeout_recovery` exists only when redaction changed nothing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow, EngineFailure, Envelope, OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import redact_argv, redact_text, redact_url
from agent_browser_tools.results import artifacts as art

Rows = tuple[tuple[str, ...], ...]


def build(
    plan: ExecutionPlan,
    planned: Rows,
    answered: Sequence[BatchRow],
    stopped: tuple[int, int],
    cwd: Path,
) -> dict[str, Any]:
    """The progress record; `stopped` is the (first row, row count) of the stopped segment.

    A stopped segment of one step names it `timed-out`; of a longer one nothing is known
    (`unknown`), and nothing after it ran (`not-run`)."""
    start, count = stopped
    steps: list[dict[str, Any]] = []
    for index, row in enumerate(planned):
        if index < len(answered):
            status = "done" if answered[index].success else "failed"
        elif index == start:
            status = "timed-out" if count == 1 else "unknown"
        elif index < start + count:
            status = "unknown"
        else:
            status = "not-run"
        shown = redact_argv(row)
        steps.append({"step": index + 1, "command": " ".join(shown[:2]), "status": status})
    progress: dict[str, Any] = {
        "completedSteps": sum(1 for step in steps if step["status"] == "done"),
        "timedOutStep": start + 1,
        "steps": steps,
        **page_reached(answered),
        "remainingRows": [redact_argv(row) for row in planned[start:]],
    }
    opened = dialog_opened_at(answered)
    if opened is not None:
        progress["dialogOpenedAtStep"] = opened
    checks = artifact_checks(plan, steps, cwd)
    if checks:
        progress["artifactChecks"] = checks
    return progress


def whole(plan: ExecutionPlan, envelope: Envelope, cwd: Path) -> Envelope:
    """A batch stopped as one engine call (it had no slow step to run alone): its steps are
    all `unknown` (one step: `timed-out`), but the declared artifact files still tell which
    of them got that far."""
    batch = plan.checked.batch
    stopped = envelope.failure is EngineFailure.TIMEOUT and plan.output_mode is OutputMode.JSON
    if batch is None or not stopped or "timeoutPartialProgress" in envelope.extra:
        return envelope
    progress = build(plan, batch.rows, (), (0, len(batch.rows)), cwd)
    return replace(envelope, extra={**envelope.extra, "timeoutPartialProgress": progress})


def page_reached(answered: Sequence[BatchRow]) -> dict[str, Any]:
    """`pageReached` (URL), `pageTitle` and `pageReachedAtStep`: the last page a finished step
    reported (a later title-only read names that page's title). Not a live probe: the stopped
    step may have moved on since."""
    url: str | None = None
    title: str | None = None
    at: int | None = None
    for index, row in enumerate(answered, start=1):
        result = row.result if row.success and isinstance(row.result, dict) else {}
        found_url, found_title = result.get("url"), result.get("title")
        if isinstance(found_url, str) and found_url:
            url, at = found_url, index
            title = found_title if isinstance(found_title, str) and found_title else None
        elif isinstance(found_title, str) and found_title and url is not None:
            title = found_title
    out: dict[str, Any] = {"pageReached": None if url is None else redact_url(url)}
    if url is not None:
        out["pageReachedAtStep"] = at
        if title is not None:
            out["pageTitle"] = redact_text(title)
    return out


def dialog_opened_at(answered: Sequence[BatchRow]) -> int | None:
    """The last finished step whose answer says a JavaScript dialog opened (`dialogOpened`):
    a dialog the engine did not dismiss blocks every later page command, which is the likely
    reason the next step hung (the engine's own evidence, not a guess from the command)."""
    found: int | None = None
    for index, row in enumerate(answered, start=1):
        if isinstance(row.result, dict) and row.result.get("dialogOpened") is True:
            found = index
    return found


def artifact_checks(
    plan: ExecutionPlan, steps: Sequence[dict[str, Any]], cwd: Path
) -> list[dict[str, Any]]:
    """Each declared artifact path, whether its file is on disk now, and its step's status
    (a file of a `timed-out` or `unknown` step may be partial or stale)."""
    checks: list[dict[str, Any]] = []
    for index, match in enumerate(plan.row_matches or (), start=1):
        for request in art.requests_for(match, step=index):
            if not request.requested or index > len(steps):
                continue
            target = art.resolve(request.requested, cwd)
            check: dict[str, Any] = {
                "step": index,
                "path": request.requested,
                "status": steps[index - 1]["status"],
                "exists": target.is_file(),
            }
            if check["exists"]:
                check["sizeBytes"] = target.stat().st_size
            checks.append(check)
    return checks
