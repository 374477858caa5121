"""`NamedRows`: one batch from named groups, answered by name, never by another's position."""

from __future__ import annotations

import pytest

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.tools.agent_browser.named_rows import NamedRows


def _row(*command: str) -> BatchRow:
    return BatchRow(tuple(command), True, {"ok": True}, None)


def test_groups_answer_by_name_in_order() -> None:
    batch = NamedRows()
    batch.add("settle", [])
    batch.add("page", [["get", "url"], ["eval", "document.title"]])
    batch.add("readback", [["get", "value", "@e3"]])
    assert batch.rows == [["get", "url"], ["eval", "document.title"], ["get", "value", "@e3"]]
    assert (batch.start("page"), batch.start("readback")) == (0, 2)
    answered = [_row("get", "url"), _row("eval"), _row("get", "value", "@e3")]
    named = batch.answers(answered)
    assert named["settle"] == ()
    assert [r.command for r in named["page"]] == [("get", "url"), ("eval",)]
    assert [r.command for r in named["readback"]] == [("get", "value", "@e3")]


def test_a_batch_that_stopped_short_leaves_later_groups_empty() -> None:
    batch = NamedRows()
    batch.add("page", [["get", "url"], ["get", "title"]])
    batch.add("dialog", [["eval", "1"]])
    named = batch.answers([_row("get", "url")])
    assert len(named["page"]) == 1 and named["dialog"] == ()


def test_a_name_is_added_once_and_unknown_names_fail() -> None:
    batch = NamedRows()
    batch.add("page", [["get", "url"]])
    with pytest.raises(ValueError, match="added twice"):
        batch.add("page", [])
    with pytest.raises(KeyError):
        batch.start("click")
