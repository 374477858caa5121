"""Reading a Selenium Grid's `/status` and new-session answers (the real grid is exercised in
tests/real/tools/agent_browser/test_grid_mode.py)."""

from __future__ import annotations

import pytest

from agent_browser_tools.engine.grid_client import (
    GridUnavailable,
    _new_session,
    _status,
)


def _slot(session: object) -> dict[str, object]:
    return {"id": {"id": "slot"}, "session": session, "stereotype": {"browserName": "chrome"}}


def test_status_counts_free_slots_of_nodes_that_are_up_and_reads_owner_tags() -> None:
    ours = {"sessionId": "s1", "capabilities": {"abt:owner": "scope/conv"}}
    theirs = {"sessionId": "s2", "capabilities": {"browserName": "chrome"}}
    answer = {
        "value": {
            "ready": True,
            "nodes": [
                {"availability": "UP", "slots": [_slot(None), _slot(ours)]},
                {"availability": "DRAINING", "slots": [_slot(None), _slot(theirs)]},
                "garbage",
            ],
        }
    }
    status = _status(answer)
    assert (status.free, status.total) == (1, 4)
    assert [(s.session_id, s.owner) for s in status.sessions] == [("s1", "scope/conv"), ("s2", "")]


@pytest.mark.parametrize("answer", [{}, {"value": None}, {"value": {"nodes": "x"}}])
def test_a_status_without_nodes_has_no_free_slot(answer: dict[str, object]) -> None:
    assert _status(answer).free == 0


def test_a_new_session_needs_an_id_and_a_devtools_endpoint() -> None:
    good = {"value": {"sessionId": "abc", "capabilities": {"se:cdp": "ws://g:4444/session/abc"}}}
    assert _new_session(good, "http://g").cdp_url == "ws://g:4444/session/abc/"[:-1]
    with pytest.raises(GridUnavailable, match="no DevTools endpoint"):
        _new_session({"value": {"sessionId": "abc", "capabilities": {}}}, "http://g")
    with pytest.raises(GridUnavailable, match="without id"):
        _new_session({"value": {}}, "http://g")


def test_a_node_runs_no_more_sessions_than_its_limit_whatever_its_slots() -> None:
    """A node lists a slot per browser it could start (and several per browser) but runs at
    most `maxSessions` at once."""
    held = {"sessionId": "s1", "capabilities": {}}
    node = {"maxSessions": 2, "slots": [_slot(held), _slot(None), _slot(None), _slot(None)]}
    status = _status({"value": {"nodes": [node]}})
    assert (status.free, status.total) == (1, 2)
