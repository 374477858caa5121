"""The post-action batch's participants: listed once, named uniquely, taken by name."""

from __future__ import annotations

import inspect

from agent_browser_tools.tools.agent_browser import followups
from agent_browser_tools.tools.agent_browser.participants import POST_READERS


def test_each_participant_is_listed_once_under_its_own_name() -> None:
    names = [reader.name for reader in POST_READERS]
    assert len(names) == len(set(names))
    assert not {"settle", "page"} & set(names), "the runner's own groups"
    assert [r.name for r in POST_READERS if r.consumes] == ["click"]


def test_the_batch_runner_takes_no_participant_by_name() -> None:
    """`run_probe` and its batch walk the list; no reader's rows or answers are named there."""
    source = inspect.getsource(followups.run_probe) + inspect.getsource(followups._probe_batch)
    source += inspect.getsource(followups._probe_rows)
    for reader in POST_READERS:
        assert f'"{reader.name}"' not in source, reader.name
    for module in ("click_probe.take", "action_readback.take", "focused_field.take"):
        assert module not in source
