"""`pre_dispatch`: the riders' rows merged into one helper batch, with the identity check's
or on their own, and every answer handed back to the rider that asked, by name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.tools.agent_browser import pre_dispatch
from agent_browser_tools.tools.agent_browser.named_rows import RiderRows
from agent_browser_tools.tools.agent_browser.refs.page_watch import UNMARK_JS, Check
from tests.support.fake_calls import fake_call


@dataclass
class Taken:
    """What each rider was handed: (scripts, reads) answers, by rider name."""

    by: dict[str, tuple[list[Any], list[Any]]] = field(default_factory=dict)


def _rider(
    name: str, rows: RiderRows | None, *, wanted: bool = True, alone: bool = False
) -> pre_dispatch.PreRider:
    def take(
        call: Any, given: RiderRows, scripts: Sequence[BatchRow], reads: Sequence[BatchRow]
    ) -> None:
        assert given is rows
        call.part(Taken).by[name] = ([r.result for r in scripts], [r.result for r in reads])

    return pre_dispatch.PreRider(name, lambda call: wanted, lambda call, check: rows, take, alone)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[list[list[str]]]:
    """The rows of every helper batch; each row answers with its own last word."""
    batches: list[list[list[str]]] = []

    async def helper_batch(rt: Any, plan: Any, rows: Sequence[Sequence[str]]) -> Envelope:
        batches.append([list(row) for row in rows])
        answered = tuple(BatchRow(tuple(row), True, row[-1], None) for row in rows)
        return Envelope(OutputMode.JSON, True, rows=answered)

    monkeypatch.setattr(pre_dispatch, "helper_batch", helper_batch)
    return batches


CHECK = Check(script=["eval", "check"], reads=[["get", "attr", "@e1", "m"]], nonce="n")


async def test_the_riders_share_the_checks_batch_and_get_their_own_answers(
    sent: list[list[list[str]]],
) -> None:
    click = RiderRows(scripts=[["eval", "probe"]], reads=[["get", "attr", "#x", "p"]])
    secrets = RiderRows(scripts=[], reads=[["get", "value", "#pw"]])
    riders = [
        _rider("click", click),
        _rider("idle", RiderRows([["eval", "never"]], []), wanted=False),
        _rider("secrets", secrets),
    ]
    call = fake_call(Taken(), rt=None, plan=None)
    run = pre_dispatch.batch(call, riders)
    assert run is not None
    check_answers = await run(CHECK)
    assert sent == [
        [
            ["eval", "check"],
            ["eval", "probe"],
            ["get", "attr", "@e1", "m"],
            ["get", "attr", "#x", "p"],
            ["get", "value", "#pw"],
            ["eval", UNMARK_JS],
        ]
    ]
    assert [row.result for row in check_answers] == ["check", "m"]
    assert call.part(Taken).by == {"click": (["probe"], ["p"]), "secrets": ([], ["#pw"])}


async def test_a_rider_that_holds_the_markers_keeps_them_on_the_page(
    sent: list[list[list[str]]],
) -> None:
    holds = RiderRows(scripts=[["eval", "probe"]], reads=[], holds_marks=True)
    call = fake_call(Taken(), rt=None, plan=None)
    run = pre_dispatch.batch(call, [_rider("click", holds)])
    assert run is not None
    await run(CHECK)
    assert ["eval", UNMARK_JS] not in sent[0]


def test_no_batch_of_its_own_when_no_rider_wants_the_call() -> None:
    call = fake_call(Taken(), rt=None, plan=None)
    assert pre_dispatch.batch(call, [_rider("click", None, wanted=False)]) is None


async def test_without_a_check_only_the_riders_that_ride_alone_run_scripts_first(
    sent: list[list[list[str]]],
) -> None:
    click = RiderRows(scripts=[["eval", "probe"]], reads=[["get", "attr", "#x", "p"]])
    arm = RiderRows(scripts=[["eval", "arm"]], reads=[])
    riders = [
        _rider("click", click, alone=True),
        _rider("settle-watcher", arm, alone=True),
        _rider("secrets", RiderRows([], [["get", "value", "#pw"]])),
        _rider("nothing-left", None, alone=True),
    ]
    call = fake_call(Taken(), rt=None, plan=None)
    await pre_dispatch.alone(call, riders)
    # The scripts side by side (the helper batch runs them as one `eval`), then the reads.
    assert sent == [[["eval", "probe"], ["eval", "arm"], ["get", "attr", "#x", "p"]]]
    assert call.part(Taken).by == {"click": (["probe"], ["p"]), "settle-watcher": (["arm"], [])}


async def test_no_batch_at_all_when_no_rider_has_rows_left(sent: list[list[list[str]]]) -> None:
    call = fake_call(Taken(), rt=None, plan=None)
    await pre_dispatch.alone(call, [_rider("click", None, alone=True)])
    assert sent == []
