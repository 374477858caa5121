"""`network requests --current-*`: the inspect action must name a row that is still shown."""

from __future__ import annotations

from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.tools.agent_browser.page.network_filter import _retarget_inspection


def _obs(request_id: str) -> Observation:
    return Observation(success=True, next_actions=na.network_request_actions([], request_id))


def test_the_inspect_action_moves_to_a_shown_row() -> None:
    obs = _obs("hidden.1")
    kept = [{"requestId": "shown.2", "url": "https://a.test/api/x", "status": 500}]
    _retarget_inspection(obs, kept)
    (inspect,) = [a for a in obs.next_actions if a.id == "inspect-network-request"]
    assert inspect.params["args"] == ["network", "request", "shown.2"]


def test_the_inspect_action_is_dropped_when_no_shown_row_has_an_id() -> None:
    obs = _obs("hidden.1")
    _retarget_inspection(obs, [{"url": "https://a.test/"}])
    ids = [a.id for a in obs.next_actions]
    assert "inspect-network-request" not in ids and "clear-network-requests-before-repro" in ids
