"""A JSON batch runs one engine call per step, so a watchdog stop knows what finished.

Why: the engine CLI sends a batch's rows to its daemon one at a time but prints the JSON
answer only at the end, so a batch killed in any step (an `eval` whose promise never settles,
a `click` whose handler opens a blocking dialog) says nothing about the steps before it.
Called one step at a time, every finished step has its own answer, the stopped step is the
one call that did not answer, and no later step was ever sent (the engine never saw it). On
engine 0.39.4 ten one-row calls cost ~2 ms each more than one ten-row call.

The logical segments (`segments.split`: refs re-read after a page change) are kept: each is
cut into one-step segments, and the first of them carries the segment's re-read.
"""

from __future__ import annotations

from agent_browser_tools.engine.envelope import OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.tools.agent_browser.batches import batch_args
from agent_browser_tools.tools.agent_browser.batches.segments import Segment


def expand(plan: ExecutionPlan, parts: list[Segment] | None) -> list[Segment] | None:
    """One segment per step of a JSON batch of several steps, or `parts` unchanged (pure).

    Native text answers cannot be read back per call, and an argument-row batch whose rows
    cannot be found in its argv cannot be cut: both keep running as they were."""
    batch = plan.checked.batch
    if batch is None or plan.output_mode is not OutputMode.JSON:
        return parts
    if parts is None:
        by_args = batch.source == "args"
        if by_args and batch_args.row_positions(plan.effective_args, len(batch.rows)) is None:
            return None
        parts = [Segment(0, batch.rows)]
    steps = [one for part in parts for one in _cut(part)]
    return steps if len(steps) > 1 else parts if len(parts) > 1 else None


def _cut(part: Segment) -> list[Segment]:
    """One segment per non-empty row; an empty row (the engine skips it, answering nothing)
    rides with the next row, or with the last one at the end, so answers stay in step."""
    groups: list[list[int]] = []
    pending: list[int] = []
    for offset, row in enumerate(part.rows):
        pending.append(offset)
        if row:
            groups.append(pending)
            pending = []
    if pending:
        if groups:
            groups[-1] += pending
        else:
            groups.append(pending)
    return [
        Segment(
            part.start + group[0],
            part.rows[group[0] : group[-1] + 1],
            part.verify if n == 0 else (),
        )
        for n, group in enumerate(groups)
    ]
