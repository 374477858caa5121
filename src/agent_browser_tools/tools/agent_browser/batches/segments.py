"""Batches whose later steps use refs after a step that can change the page.

Why: a blanket latch refused every ref after such a step, although most of those elements
were unchanged, and let refs after a checkbox (which can re-sort a list) through unchecked.
Instead the batch runs as consecutive engine batches ("segments"): a new segment starts at a
ref step that follows a page-changing step, and its refs are re-read and compared (one engine
call) right before it runs. The first mismatch stops the batch with per-step outcomes: what ran
is reported and journaled, the refused step fails as `stale-ref`, later steps never run.

Refs are re-read only in stdin batches (argument-row batches keep the static latch); both
kinds run their slow steps as segments of their own, so a watchdog stop knows what finished
(`batch_progress`). An argument-row segment sends the caller's row strings verbatim
(`batch_args`). A `snapshot` step changes nothing on the page, so refs after it that the
model's snapshot named are verified like any other.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace

from agent_browser_tools.engine.envelope import (
    BatchRow,
    EngineFailure,
    Envelope,
    OutputMode,
    parse_outcome,
)
from agent_browser_tools.engine.runner import RawOutcome
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.script_guard import ScriptGuard
from agent_browser_tools.planning.session_scope import acts_on_whole_dir
from agent_browser_tools.state.models import SessionPageState
from agent_browser_tools.state.stale_refs import StaleRef, ref_ids, unverified
from agent_browser_tools.taxonomy import (
    CommandMatch,
    TimeoutFamily,
    resolve_command,
    split_global_flags,
)
from agent_browser_tools.tools.agent_browser.batches import (
    batch_args,
    batch_progress,
    step_settle,
)
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.refs import ref_proof, refmap
from agent_browser_tools.tools.agent_browser.safety import dispatch_guard


def changes_page(match: CommandMatch) -> bool:
    """A step after which later refs must be re-read: anything that is not a pure read (a
    `fill` into a filter box re-renders a list as surely as a click does)."""
    return match.sets_batch_latch or not match.spec.read_only


@dataclass(frozen=True)
class Segment:
    """Consecutive rows run as one engine batch; `verify` are the refs re-read before it."""

    start: int
    rows: tuple[tuple[str, ...], ...]
    verify: tuple[str, ...] = ()


SLOW = (TimeoutFamily.WAIT, TimeoutFamily.WEBMCP, TimeoutFamily.LONG_RUNNING)
"""Steps that can use most of a watchdog budget run as their own segment: when the watchdog
stops the batch there, the steps before it are known to have finished (the engine prints a
batch's answer only at its end, so a killed batch says nothing about its steps)."""


def split(plan: ExecutionPlan, entry: SessionPageState) -> list[Segment] | None:
    """The segments of a batch, or None when it runs as one engine call (pure)."""
    batch = plan.checked.batch
    if batch is None or plan.output_mode is not OutputMode.JSON:
        return None  # native text cannot be read back per segment
    by_args = batch.source == "args"
    if by_args and batch_args.row_positions(plan.effective_args, len(batch.rows)) is None:
        return None
    snapshot = entry.ref_snapshot
    known = snapshot.refs if snapshot is not None and batch.source == "stdin" else {}
    starts: list[int] = [0]
    verify: list[tuple[str, ...]] = [()]
    changed = False
    for index, row in enumerate(batch.rows):
        match = resolve_command(split_global_flags(row)[1]) if row else None
        if match is None:
            continue
        slow = match.spec.timeout_family in SLOW
        if slow and index > starts[-1]:
            starts.append(index)
            verify.append(())
        ids = tuple(i for i in ref_ids(match) if i in known)
        if ids and changed and index > starts[-1]:
            starts.append(index)
            verify.append(ids)
            changed = False
        elif ids and changed and starts[-1] == index:
            verify[-1] = ids  # a segment that starts after a slow step re-reads its refs too
            changed = False
        elif ids and len(starts) > 1 and starts[-1] != index:
            verify[-1] = (*verify[-1], *(i for i in ids if i not in verify[-1]))
        changed = changed or changes_page(match)
        if slow and index + 1 < len(batch.rows):
            starts.append(index + 1)
            verify.append(())
    if len(starts) == 1:
        return None
    ends = [*starts[1:], len(batch.rows)]
    return [
        Segment(start, batch.rows[start:end], ids)
        for start, end, ids in zip(starts, ends, verify, strict=True)
    ]


async def run(
    call: DirectCall, segments: list[Segment], guard: ScriptGuard | None = None
) -> tuple[RawOutcome, Envelope]:
    """Run the segments in order; stop at the first failure or changed element.

    The segments share the call's watchdog budget: each gets what the earlier ones left. One
    endpoint `guard` (made when the call was sent) covers every segment's page scripts.
    """
    plan, rt = call.plan, call.rt
    deadline = time.monotonic() + plan.timeout.timeout_ms / 1000
    raws: list[RawOutcome] = []
    envelopes: list[Envelope] = []
    stale: tuple[int, StaleRef] | None = None
    steps = _step_numbers(plan)
    call.part(step_settle.StepPages).last_step = max(steps.values(), default=None)
    for segment in segments:
        if segment.verify:
            changed = await _verify(call, segment.verify)
            if changed is not None:
                stale = (segment.start, _named_step(segment, changed))
                break
        budget = max(1, int((deadline - time.monotonic()) * 1000))
        args, stdin = _engine_call(call, segment, guard)
        step = steps.get(segment.start)
        watched = len(segment.rows) == 1 and step is not None
        watched = watched and step_settle.watched(call, segment.rows[0], step or 0)
        if watched:
            args, stdin = _armed(call, segment, args, stdin)
        raw = await rt.spawn(
            args,
            timeout_ms=budget,
            stdin=stdin,
            session=call.key,
            whole_dir=acts_on_whole_dir(plan),
        )
        try:
            envelope = parse_outcome(raw, OutputMode.JSON)
        finally:
            raw.discard_stdout()  # raw, unredacted output: never kept
        envelope = dispatch_guard.settle(envelope, guard, rt.grid_endpoints)
        if watched:
            envelope = step_settle.unarmed(envelope)
        raws.append(raw)
        envelopes.append(envelope)
        if _stops(plan, envelope):
            break
        if watched and envelope.success and step is not None:
            await step_settle.settle(call, step)
    planned = plan.checked.batch.rows if plan.checked.batch is not None else ()
    sent = tuple(tuple(row) for row in refmap.rows_to_engine(planned, call.ref_table))
    merged = merge(envelopes, stale, sent)
    if envelopes and envelopes[-1].failure is EngineFailure.TIMEOUT:
        stopped = segments[len(envelopes) - 1]
        progress = batch_progress.build(
            plan, planned, merged.rows or (), (stopped.start, len(stopped.rows)), rt.cwd
        )
        merged = replace(merged, extra={**merged.extra, "timeoutPartialProgress": progress})
    return _merged_raw(raws), merged


def _engine_call(
    call: DirectCall, segment: Segment, guard: ScriptGuard | None
) -> tuple[list[str], str | None]:
    """The argv and stdin of one segment: its rows as JSON stdin, or, for an argument-row
    batch, the batch argv with only this segment's row strings (refs as engine ids, page
    scripts guarded)."""
    plan = call.plan
    batch = plan.checked.batch
    if batch is not None and batch.source == "args":
        args, _ = refmap.to_engine(plan, call.ref_table, guard=guard)
        positions = batch_args.row_positions(args, len(batch.rows))
        assert positions is not None  # `split` checked the caller's argv the same way
        stop = segment.start + len(segment.rows)
        return batch_args.keep_rows(args, positions, segment.start, stop), None
    engine_rows = refmap.rows_to_engine(segment.rows, call.ref_table, call.checked, guard)
    return list(plan.effective_args), json.dumps(engine_rows)


def _step_numbers(plan: ExecutionPlan) -> dict[int, int]:
    """Row index -> step number (1-based) for the rows the engine answers (not empty ones)."""
    rows = plan.checked.batch.rows if plan.checked.batch is not None else ()
    numbers: dict[int, int] = {}
    for index, row in enumerate(rows):
        if row:
            numbers[index] = len(numbers) + 1
    return numbers


def _armed(
    call: DirectCall, segment: Segment, args: list[str], stdin: str | None
) -> tuple[list[str], str | None]:
    """A watched step's engine call with the settle watcher's arming row before the step."""
    if stdin is not None:
        return args, json.dumps(step_settle.armed_rows(json.loads(stdin)))
    batch = call.plan.checked.batch
    positions = batch_args.row_positions(call.plan.effective_args, len(batch.rows)) if batch else ()
    assert positions is not None  # `split` checked the caller's argv the same way
    # Every row before this segment's was dropped from `args` (`batch_args.keep_rows`).
    return step_settle.armed_args(args, positions[segment.start] - segment.start), None


def _stops(plan: ExecutionPlan, envelope: Envelope) -> bool:
    """A process failure or a timeout ends the batch; a failed row ends it only under
    `--bail`, as in one engine call (without it the engine runs every row)."""
    if envelope.rows is None or envelope.failure is EngineFailure.TIMEOUT:
        return True
    bail = plan.match is not None and plan.match.has_flag("--bail")
    return bail and not envelope.success


# Segment answers stay in engine ids like a single call's; `dispatch.spawn` shows them.


def _named_step(segment: Segment, stale: StaleRef) -> StaleRef:
    """The refusal names the step that uses the changed ref (the segment's later steps did
    not run either)."""
    offset = next(
        (
            n
            for n, row in enumerate(segment.rows)
            if (match := resolve_command(split_global_flags(row)[1]) if row else None)
            and stale.refs[0] in ref_ids(match)
        ),
        0,
    )
    step = segment.start + offset + 1
    return replace(stale, step=step, reason=f"step {step}: {stale.reason}")


async def _verify(call: DirectCall, ids: tuple[str, ...]) -> StaleRef | None:
    assert call.key is not None
    entry = call.rt.log.state.session(call.key)
    if entry.ref_snapshot is None:
        return unverified(ids)
    return await ref_proof.verify_ids(call, entry, ids)


def merge(
    envelopes: list[Envelope],
    stale: tuple[int, StaleRef] | None,
    rows: tuple[tuple[str, ...], ...],
) -> Envelope:
    """One batch envelope from the segments that ran, plus the refused step if any (pure).

    `rows` are the batch rows as sent to the engine, so the refused row reads like the rows the
    engine answered (engine ids, shown later like every other answer)."""
    answered: list[BatchRow] = [row for env in envelopes for row in env.rows or ()]
    last = envelopes[-1] if envelopes else None
    if stale is not None and (last is None or last.success):
        step, found = stale
        error = f"Stale ref blocked before dispatch: {found.reason}"
        answered.append(BatchRow(command=rows[step], success=False, result=None, error=error))
        named = found.step if found.step is not None else step + 1
        shown = {"refs": ["@" + r for r in found.refs], "step": named, "reason": found.code}
        return Envelope(
            mode=OutputMode.JSON,
            success=False,
            rows=tuple(answered),
            error=error,
            stderr="\n".join(env.stderr for env in envelopes if env.stderr),
            extra={"staleRef": shown},
        )
    assert last is not None
    policy = next((env.extra["policy"] for env in envelopes if "policy" in env.extra), None)
    return Envelope(
        mode=OutputMode.JSON,
        success=all(env.success for env in envelopes),
        rows=tuple(answered) if last.rows is not None or answered else None,
        error=last.error,
        warning=last.warning,
        failure=last.failure,
        parse_error=last.parse_error,
        stderr="\n".join(env.stderr for env in envelopes if env.stderr),
        extra={"policy": policy} if policy is not None else {},  # an endpoint guard refusal
    )


def _merged_raw(raws: list[RawOutcome]) -> RawOutcome:
    """Process facts of the whole batch: first start, last end, the last exit code."""
    if not raws:
        now = time.time()
        return RawOutcome((), 0, "", None, 0, "", False, False, None, now, now, 0)
    first, last = raws[0], raws[-1]
    return RawOutcome(
        argv=last.argv,
        exit_code=last.exit_code,
        stdout="",
        stdout_path=None,
        stdout_bytes=sum(r.stdout_bytes for r in raws),
        stderr="\n".join(r.stderr for r in raws if r.stderr),
        timed_out=any(r.timed_out for r in raws),
        missing_binary=False,
        spawn_error=None,
        started_at=first.started_at,
        ended_at=last.ended_at,
        timeout_ms=sum(r.timeout_ms for r in raws),
        stdout_dropped=sum(r.stdout_dropped for r in raws),
    )
