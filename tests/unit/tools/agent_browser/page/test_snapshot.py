"""`snapshot._last_partial` (which native `--delta` answer needs a complete-refs read, and with
which argv) and `split_flags` (wrapper snapshot flags never reach the engine).

No capture holds a native delta answer; the partial/full payloads below use the revision shape
of `tests/unit/results/snapshot/test_delta.py`, with the form page's captured tree and refs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.tools.agent_browser.observe import observe
from agent_browser_tools.tools.agent_browser.page.snapshot import _last_partial, split_flags
from tests.support.envelopes import command, envelope
from tests.support.plans import FORM, managed, page, plan

STATE = managed(page(FORM, refs_from=FORM))
CAPTURED = envelope("snapshot_interactive").data
UNCHANGED = {"origin": FORM, "snapshot": {"kind": "unchanged", "revision": 2, "baseRevision": 1}}
FULL = {
    "origin": FORM,
    "snapshot": {
        "kind": "full",
        "revision": 1,
        "tree": CAPTURED["snapshot"],
        "refs": CAPTURED["refs"],
    },
}


def _single(args: list[str], data: Mapping[str, Any]) -> tuple[str, list[str]] | None:
    call = plan(args, STATE)
    answer = Envelope(mode=OutputMode.JSON, success=True, data=data)
    found = _last_partial(call, observe(call, answer), answer)
    return None if found is None else (found[0].kind, found[1])


def _batch(
    steps: Sequence[tuple[list[str], Any]], *, failed: Sequence[int] = ()
) -> tuple[str, list[str]] | None:
    """A batch whose rows answered `steps` (1-based rows in `failed` failed)."""
    call = plan(["batch"], STATE, rows=[argv for argv, _ in steps])
    rows = tuple(
        BatchRow(
            command=tuple(argv),
            success=index not in failed,
            result=None if index in failed else result,
            error="Browser not responding" if index in failed else None,
        )
        for index, (argv, result) in enumerate(steps, start=1)
    )
    answer = Envelope(mode=OutputMode.JSON, success=not failed, rows=rows)
    found = _last_partial(call, observe(call, answer), answer)
    return None if found is None else (found[0].kind, found[1])


def test_a_partial_answer_is_read_again_without_the_delta_flag() -> None:
    assert _single(["snapshot", "-i", "--delta"], UNCHANGED) == ("unchanged", ["snapshot", "-i"])


def test_the_complete_read_keeps_the_scope_flags() -> None:
    """Refs must describe the same scope the delta described."""
    read = _single(["snapshot", "-i", "-c", "--delta"], UNCHANGED)
    assert read == ("unchanged", ["snapshot", "-i", "-c"])


def test_a_full_or_ordinary_answer_needs_no_extra_read() -> None:
    assert _single(["snapshot", "-i", "--delta"], FULL) is None
    ordinary = plan(command("snapshot_interactive"), STATE)
    answer = envelope("snapshot_interactive")
    assert _last_partial(ordinary, observe(ordinary, answer), answer) is None


def test_a_batch_ending_in_a_partial_reads_the_planned_step() -> None:
    """The read is built from the plan's canonical flags, not from the engine's echo."""
    found = _batch([(["snapshot", "-i", "--delta"], UNCHANGED)])
    assert found == ("unchanged", ["snapshot", "--interactive"])


def test_read_only_steps_after_the_partial_do_not_block_the_read() -> None:
    found = _batch(
        [(["snapshot", "-i", "--delta"], UNCHANGED), (["get", "title"], {"title": "Profile"})]
    )
    assert found == ("unchanged", ["snapshot", "--interactive"])


@pytest.mark.parametrize(
    "later", [["click", "@e13"], ["press", "Tab"], ["open", FORM]], ids=lambda r: r[0]
)
def test_a_later_step_that_may_change_the_page_blocks_the_read(later: list[str]) -> None:
    """The read runs after the batch: its refs would describe a page the model never saw."""
    assert _batch([(["snapshot", "-i", "--delta"], UNCHANGED), (later, {})]) is None


def test_a_page_change_before_the_snapshot_step_does_not_matter() -> None:
    found = _batch([(["click", "@e13"], {}), (["snapshot", "-c", "--delta", "-i"], UNCHANGED)])
    assert found == ("unchanged", ["snapshot", "--compact", "--interactive"])


def test_a_later_failed_snapshot_leaves_the_earlier_partial_to_complete() -> None:
    steps = [(["snapshot", "-i", "--delta"], UNCHANGED), (["snapshot", "-i"], None)]
    assert _batch(steps, failed=[2]) == ("unchanged", ["snapshot", "--interactive"])


def test_a_batch_without_a_snapshot_or_with_a_full_answer_needs_nothing() -> None:
    assert _batch([(["get", "url"], {"url": FORM})]) is None
    assert _batch([(["snapshot", "-i", "--delta"], FULL)]) is None


# --- split_flags ----------------------------------------------------------------------------


def test_wrapper_flags_are_split_from_a_snapshot() -> None:
    clean, flags = split_flags(["snapshot", "-i", "--search", "Submit", "--viewport"])
    assert clean == ["snapshot", "-i"]
    assert flags is not None and flags.search == "Submit" and flags.viewport is True


@pytest.mark.parametrize(
    "args", [["snapshot", "-i"], ["click", "--search"], ["--json", "get", "url"]]
)
def test_args_without_wrapper_snapshot_flags_pass_through(args: list[str]) -> None:
    assert split_flags(list(args)) == (args, None)


def test_a_search_without_interactive_refs_is_refused_with_the_fix() -> None:
    with pytest.raises(ValueError, match="add -i"):
        split_flags(["snapshot", "--search", "Submit"])
