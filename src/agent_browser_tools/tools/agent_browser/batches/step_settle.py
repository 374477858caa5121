"""A batch step that may navigate: the next step runs on the page it led to, and says so.

Why: a batch's steps used to follow one another as fast as the engine answered. A form
submission's navigation starts a few ms after the submitting click answers and the new
document arrives later still, so the next step ran on the old page: measured on engine 0.39.4
with a checkout form answered after 1.2 s, the step after the submitting click read the old
title ("Order form") and the old URL, and the batch listed the submit as "dispatched without
an observed change" although the order went through. A direct click waits for the new
document (`page.nav_settle`); a batch step now does the same.

How: the step's own engine call arms the page-side settle watcher just before the step (one
`eval` row of its own, taken out of the answer again); once the step has answered, one helper
batch polls the same check a direct click's probe batch uses (`wait --fn`, within the settle
budget) and reads the outcome with the URL and title the page ended on. Only steps the
taxonomy says may navigate are watched, and not the last step: the post-action probe of the
whole call settles that one as it does for a direct action (`nav_settle`), so it is watched
once. The outcome of each watched step is kept here (`StepPages`) for the step lines.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow, Envelope
from agent_browser_tools.redaction import redact_text, redact_url
from agent_browser_tools.taxonomy import join_batch_row, resolve_command, split_global_flags
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import helper_batch
from agent_browser_tools.tools.agent_browser.page import settle_scripts

ARM_ROW = ("eval", settle_scripts.ARM_JS)
"""The row that arms the watcher right before a watched step (in the step's engine call)."""

PAGE_JS = (
    "JSON.stringify({outcome: (window.__abtSettle && window.__abtSettle.outcome) || null,"
    " url: location.href, title: document.title})"
)
"""The settle outcome with the page it describes, read in the same evaluation."""


@dataclass
class StepPages:
    """Per batch step (1-based), where a watched step left the page: `navigated`, `settled`,
    `reason`, `waitedMs`, and the page's redacted `url` and `title`."""

    by_step: dict[int, dict[str, Any]] = field(default_factory=dict)
    last_step: int | None = None
    """The batch's last step: the post-action probe settles it, not this module."""


def watched(call: DirectCall, row: Sequence[str], step: int) -> bool:
    """Whether the step's call carries the arming row and a settle wait follows it."""
    pages = call.part(StepPages)
    if not row or step == pages.last_step or call.rt.settings.settle_ms <= 0:
        return False
    match = resolve_command(split_global_flags(list(row))[1])
    return match is not None and settle_scripts.settles(match.spec) and settle_scripts.allowed(call)


def armed_rows(rows: list[list[str]]) -> list[list[str]]:
    """A watched step's JSON rows with the arming row first."""
    return [list(ARM_ROW), *rows]


def armed_args(args: list[str], row_at: int) -> list[str]:
    """A watched step's argument-row argv with the arming row string before its row."""
    return [*args[:row_at], join_batch_row(ARM_ROW), *args[row_at:]]


def unarmed(envelope: Envelope) -> Envelope:
    """The step's answer without the arming row's.

    The row is the wrapper's own; its failure (a page that cannot evaluate, which the step
    then meets too) is not the step's, and under `--bail` the step never ran: the answer then
    reads as the step not sent, with the reason."""
    rows = envelope.rows
    if rows is None or not rows or tuple(rows[0].command) != ARM_ROW:
        return envelope
    rest = rows[1:]
    if rows[0].success:
        return replace(envelope, rows=rest)
    if rest:
        ok = all(r.success for r in rest)
        return replace(envelope, rows=rest, success=ok, error=None if ok else envelope.error)
    error = f"Step not sent: the page did not answer before it ({rows[0].error or 'no answer'})."
    return replace(envelope, rows=(), success=False, error=error)


async def settle(call: DirectCall, step: int) -> None:
    """After a watched step answered: wait for the page it led to, and keep where it is."""
    now = int(time.time() * 1000)
    # Armed on the step's own document: no unarmed page to hold for.
    check, timeout = settle_scripts.wait_check(now, now, call.rt.settings.settle_ms, hold=False)
    rows = [["wait", "--fn", check, "--timeout", timeout], ["eval", PAGE_JS]]
    answer = await helper_batch(call.rt, call.plan, rows, bail=True)
    call.part(StepPages).by_step[step] = read_outcome(answer.rows if answer else None)


def read_outcome(rows: Sequence[BatchRow] | None) -> dict[str, Any]:
    """The watched step's page from the settle batch's answer (pure)."""
    if not rows or not rows[0].success:
        return {"settled": False, "reason": "wait-failed"}
    told = rows[1].result if len(rows) > 1 and rows[1].success else None
    seen = settle_scripts.outcome_of(told.get("result") if isinstance(told, Mapping) else None)
    if seen is None:
        return {"settled": True, "reason": "outcome-unread"}
    found = seen.get("outcome")
    out = settle_scripts.outcome(found) if isinstance(found, Mapping) else {"reason": "unknown"}
    if isinstance(url := seen.get("url"), str) and url:
        out["url"] = redact_url(url)
    if isinstance(title := seen.get("title"), str) and title:
        out["title"] = redact_text(title)
    return out
