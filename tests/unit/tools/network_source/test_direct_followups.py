"""The direct tool's `network requests` follow-ups point failed rows at the source lookup, and a
`network request` answer (the request's URL) never becomes the session's page target."""

from __future__ import annotations

from typing import Any

from agent_browser_tools import taxonomy
from agent_browser_tools.planning.policy import DEFAULT_MAX_TIMEOUT_MS
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.effects import success_effects
from agent_browser_tools.state.models import TargetObserved
from agent_browser_tools.tools.agent_browser.observe import add_recovery
from agent_browser_tools.tools.agent_browser.page.network_filter import _retarget_inspection
from tests.support.plans import managed, named, page, plan

FAILED = {
    "requestId": "31848.2",
    "url": "http://127.0.0.1:8123/api/v1/orders/missing",
    "resourceType": "Fetch",
    "status": 404,
}
OK = {
    "requestId": "1.1",
    "url": "http://127.0.0.1:8123/",
    "resourceType": "Document",
    "status": 200,
}
ICON = {
    "requestId": "1.3",
    "url": "http://127.0.0.1:8123/favicon.ico",
    "resourceType": "Other",
    "status": 404,
}


def _actions(
    rows: list[dict[str, Any]], *, enabled: bool, args: list[str] | None = None
) -> dict[str, Any]:
    argv = args or ["network", "requests"]
    state = named("work", page()) if "--session" in argv else managed(page())
    called = plan(argv, state)
    obs = Observation(success=True, data={"requests": rows})
    add_recovery(
        called,
        obs,
        target_unknown=False,
        max_timeout_ms=DEFAULT_MAX_TIMEOUT_MS,
        network_source_enabled=enabled,
    )
    return {a.id: a.to_dict() for a in obs.next_actions}


def test_an_actionable_failed_row_gets_the_lookup_after_enabling_the_tool() -> None:
    actions = _actions([OK, FAILED], enabled=False)
    ids = list(actions)
    assert ids.index("enable-network-source") + 1 == ids.index("find-failed-request-source")
    enable = actions["enable-network-source"]
    assert enable["tool"] == "agent_browser_tools" and enable["params"] == {"enable": ["network"]}
    lookup = actions["find-failed-request-source"]
    assert lookup["tool"] == "agent_browser_network_source"
    assert lookup["params"] == {"requestId": "31848.2"}


def test_an_enabled_tool_is_called_directly_with_the_explicit_session() -> None:
    args = ["--session", "work", "network", "requests"]
    actions = _actions([FAILED], enabled=True, args=args)
    assert "enable-network-source" not in actions
    params = actions["find-failed-request-source"]["params"]
    assert params == {"requestId": "31848.2", "session": "work"}


def test_clean_buffers_and_benign_icon_misses_get_no_lookup() -> None:
    assert "find-failed-request-source" not in _actions([OK], enabled=True)
    assert "find-failed-request-source" not in _actions([OK, ICON], enabled=False)
    assert "inspect-network-request" in _actions([OK, ICON], enabled=False)


def test_a_page_filter_that_hides_the_failed_row_drops_its_lookup() -> None:
    obs = Observation(success=True, next_actions=na.network_request_actions([], "31848.2"))
    obs.next_actions += na.network_source_actions(None, False, "31848.2", enabled=False)
    _retarget_inspection(obs, [OK])
    ids = [a.id for a in obs.next_actions]
    assert "find-failed-request-source" not in ids and "enable-network-source" not in ids
    kept = Observation(
        success=True, next_actions=na.network_source_actions(None, False, "31848.2", enabled=True)
    )
    _retarget_inspection(kept, [FAILED])
    assert [a.id for a in kept.next_actions] == ["find-failed-request-source"]


def test_a_network_request_answer_does_not_observe_a_page_target() -> None:
    tokens = ["network", "request", "31848.2"]
    match = taxonomy.resolve_command(tokens)
    effects = success_effects(
        match, tokens, {"url": FAILED["url"]}, probe=None, ownership=None, launch_flags=()
    )
    assert not any(isinstance(e, TargetObserved) for e in effects)
    getter = ["get", "url"]
    effects = success_effects(
        taxonomy.resolve_command(getter), getter, {"url": OK["url"]}, probe=None,
        ownership=None, launch_flags=(),
    )  # fmt: skip
    assert any(isinstance(e, TargetObserved) for e in effects)  # the rule is specific
