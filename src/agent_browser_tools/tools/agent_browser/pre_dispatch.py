"""The one helper batch before the dispatch, built around the identity check.

Why one batch: every engine process costs a few milliseconds before it does anything, and
every extra row in a batch about one more. So the features that read or prepare the page
before the action (the riders, listed in `participants.PRE_RIDERS`) share the identity
check's batch, in this order:

1. the check's page script (`page_watch`: it numbers each ref's candidates with a marker);
2. each rider's page scripts (the click probe's install, the settle watcher's arming); they
   run in the same `eval` as the check's (`eval_merge`);
3. the marker each used ref's node carries (`get attr @ref`, resolved as the action will be);
4. each rider's reads (the click probe's own marker, the credential-field reads);
5. the markers' removal, unless a rider holds them until after the action (the click probe,
   whose target the check's marker binds, removes them when it is collected).

A ref click is then two rows (one `eval`, one `get attr`) in one process before the click.
When no identity check runs (a click by selector, refs that need no proof), the riders that
also ride alone (`PreRider.alone`) share one batch of their own (`alone`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import helper_batch
from agent_browser_tools.tools.agent_browser.named_rows import NamedRows, RiderRows
from agent_browser_tools.tools.agent_browser.refs import page_watch

Check = page_watch.Check
"""The identity check whose batch the riders share (its rows, its markers)."""


@dataclass(frozen=True)
class PreRider:
    """A feature's part of the pre-dispatch batch."""

    name: str
    wanted: Callable[[DirectCall], bool]
    """Whether it rides in this call's batch (checked before the batch is built)."""
    rows: Callable[[DirectCall, Check | None], RiderRows | None]
    """Its rows, given the check it rides with (None: a batch without a check)."""
    take: Callable[[DirectCall, RiderRows, Sequence[BatchRow], Sequence[BatchRow]], None]
    """Keep what its scripts and its reads answered."""
    alone: bool = False
    """It also runs when no identity check does, in a batch the riders share (`alone`)."""


Runner = Callable[[Check], Awaitable[Sequence[BatchRow]]]


def batch(call: DirectCall, riders: Sequence[PreRider]) -> Runner | None:
    """The runner of the shared batch, or None when no rider wants this call (the identity
    check then runs its rows alone). It answers the check's rows laid out as `Check.rows`."""
    riding = [rider for rider in riders if rider.wanted(call)]
    if not riding:
        return None

    async def run(check: Check) -> Sequence[BatchRow]:
        parts = [(rider, rider.rows(call, check)) for rider in riding]
        given = [(rider, rows) for rider, rows in parts if rows is not None]
        named = NamedRows()
        named.add("check", [check.script])
        for rider, rows in given:
            named.add(rider.name + ":scripts", rows.scripts)
        named.add("reads", check.reads)
        for rider, rows in given:
            named.add(rider.name + ":reads", rows.reads)
        held = any(rows.holds_marks for _, rows in given)
        named.add("unmark", [] if held else [["eval", page_watch.UNMARK_JS]])
        envelope = await helper_batch(call.rt, call.plan, named.rows)
        answers = named.answers((envelope.rows or ()) if envelope is not None else ())
        for rider, rows in given:
            scripts, reads = answers[rider.name + ":scripts"], answers[rider.name + ":reads"]
            rider.take(call, rows, scripts, reads)
        return (*answers["check"], *answers["reads"])

    return run


async def alone(call: DirectCall, riders: Sequence[PreRider]) -> None:
    """The riders that run without a check (`PreRider.alone`) and still have rows for this
    call (a check's batch that carried them leaves none), in one helper batch: every rider's
    scripts (one `eval`), then every rider's reads."""
    alone_riders = [rider for rider in riders if rider.alone and rider.wanted(call)]
    parts = [(rider, rider.rows(call, None)) for rider in alone_riders]
    given = [(rider, rows) for rider, rows in parts if rows is not None]
    if not given:
        return
    named = NamedRows()
    for rider, rows in given:
        named.add(rider.name + ":scripts", rows.scripts)
    for rider, rows in given:
        named.add(rider.name + ":reads", rows.reads)
    envelope = await helper_batch(call.rt, call.plan, named.rows)
    answers = named.answers((envelope.rows or ()) if envelope is not None else ())
    for rider, rows in given:
        rider.take(call, rows, answers[rider.name + ":scripts"], answers[rider.name + ":reads"])
