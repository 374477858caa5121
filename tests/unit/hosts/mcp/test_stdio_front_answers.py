"""The stdio front answers exactly what the SDK answers (see hosts/mcp/front_answers.py).

Every check runs the same lines two ways: straight into the real server on the SDK's stdio
transport, and through the front first (its answers, then the SDK reading the front's
handoff with the replayed `initialize` answer dropped, as `stdio_front` does). The answers by
request id must be equal, and the front must have answered what it is there to answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from agent_browser_tools.hosts.mcp.front_answers import DATA_FILE, Front
from agent_browser_tools.hosts.mcp.front_reference import (
    INITIALIZED_LINE,
    Line,
    front_data,
    initialize_params,
    request,
    sdk_transcript,
)
from agent_browser_tools.hosts.mcp.stdio_front import front_for
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.catalog import listed_at_start

PRIVATE_ID = "front-test-private-id"


def _settings(tmp_path: Path, search_key: bool = False) -> Settings:
    env = {"AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state")}
    if search_key:
        env["EXA_API_KEY"] = "exa-test-key"
    return Settings.load(env=env, cwd=tmp_path)


def _answered(line: str) -> bool:
    """Whether the SDK answers `line`: a request (it does not answer unparsable lines)."""
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and "id" in message and "method" in message


def _by_id(lines: list[str]) -> dict[Any, dict[str, Any]]:
    return {message["id"]: message for message in map(json.loads, lines)}


async def _both_ways(
    lines: list[str], settings: Settings, allowlist: frozenset[str] | None = None
) -> tuple[dict[Any, Any], dict[Any, Any], Front]:
    """(SDK's answers, answers through the front, the front) for `lines`."""
    listed = listed_at_start(settings, allowlist)
    direct = await sdk_transcript(listed, [Line(text, _answered(text)) for text in lines])
    front = front_for(settings, allowlist)
    answered = [answer for answer in map(front.take, lines) if answer is not None]
    rest = front.handoff_lines(PRIVATE_ID)
    after = await sdk_transcript(listed, [Line(text, _answered(text)) for text in rest])
    via_front = {**_by_id(answered), **_by_id(after)}
    if front.initialize_params is not None:
        assert "result" in via_front.pop(PRIVATE_ID)  # the replay was accepted, then dropped
    return _by_id(direct), via_front, front


def _handshake(version: str) -> list[str]:
    return [
        request(1, "initialize", initialize_params(version)),
        INITIALIZED_LINE,
        request(2, "tools/list", {}),
        request(3, "ping"),
        request("four", "tools/list"),
    ]


@pytest.mark.parametrize(
    "version", [*HANDSHAKE_PROTOCOL_VERSIONS, "2026-07-28", "1999-01-01", "not-a-version"]
)
async def test_the_handshake_is_answered_as_the_sdk_answers_it(
    version: str, tmp_path: Path
) -> None:
    direct, via_front, front = await _both_ways(_handshake(version), _settings(tmp_path))
    assert via_front == direct
    expected = version if version in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
    assert direct[1]["result"]["protocolVersion"] == expected
    assert (front.handed_on, front.passthrough) == ([INITIALIZED_LINE], False)  # all answered


@pytest.mark.parametrize(
    "allowlist",
    [None, frozenset({"agent_browser", "agent_browser_qa"}), frozenset({"agent_browser_code"})],
)
@pytest.mark.parametrize("search_key", [False, True])
async def test_tools_list_is_listed_at_start_for_each_setting(
    allowlist: frozenset[str] | None, search_key: bool, tmp_path: Path
) -> None:
    settings = _settings(tmp_path, search_key)
    direct, via_front, front = await _both_ways(_handshake("2025-06-18"), settings, allowlist)
    assert via_front == direct
    names = [tool["name"] for tool in via_front[2]["result"]["tools"]]
    assert names == [spec.name for spec in listed_at_start(settings, allowlist)]
    assert ("agent_browser_web_search" in names) is (search_key and allowlist is None)
    assert not front.passthrough


BAD_INITIALIZE = [
    {"protocolVersion": 20250618, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}},
    {"protocolVersion": "2025-06-18", "capabilities": {}},
    {"protocolVersion": "2025-06-18", "capabilities": {"roots": 5}, "clientInfo": {}},
]


@pytest.mark.parametrize("params", BAD_INITIALIZE)
async def test_an_initialize_the_front_cannot_vouch_for_goes_to_the_sdk(
    params: dict[str, Any], tmp_path: Path
) -> None:
    lines = [request(1, "initialize", params), INITIALIZED_LINE, request(2, "tools/list", {})]
    direct, via_front, front = await _both_ways(lines, _settings(tmp_path))
    assert via_front == direct
    assert "error" in direct[1]
    assert front.handed_on == lines and front.initialize_params is None


async def test_after_a_line_it_hands_on_the_front_answers_nothing_more(tmp_path: Path) -> None:
    """Unparsable lines, a listing with params, a second initialize: the SDK's, in order."""
    lines = [
        request(1, "initialize", initialize_params("2025-06-18")),
        INITIALIZED_LINE,
        "{not json",
        request(2, "tools/list", {}),
        request(3, "tools/list", {"cursor": "x"}),
        request(4, "initialize", initialize_params("2025-06-18")),
        "[]",
        request(5, "ping"),
    ]
    direct, via_front, front = await _both_ways(lines, _settings(tmp_path))
    assert via_front == direct
    assert front.handed_on == lines[1:] and front.passthrough


async def test_a_request_before_initialize_leaves_the_handshake_to_the_sdk(
    tmp_path: Path,
) -> None:
    lines = [request(0, "tools/list"), *_handshake("2025-11-25")]
    direct, via_front, front = await _both_ways(lines, _settings(tmp_path))
    assert via_front == direct
    assert front.handed_on == lines and front.initialize_params is None


async def test_the_recorded_answers_are_the_sdks_current_ones() -> None:
    """`front_data.json` is stale: run scripts/gen_stdio_front.py (also a CI gate)."""
    assert json.loads(DATA_FILE.read_text(encoding="utf-8")) == await front_data()


@pytest.mark.parametrize("params", [[], 0, False, ""])
def test_malformed_params_of_a_list_or_ping_are_the_sdks_to_answer(
    params: Any, tmp_path: Path
) -> None:
    """`params` must be absent or an object: anything else goes to the SDK, which refuses it
    (the SDK's stdio transport drops such a message without an answer, so there is no
    transcript to compare; the front must simply not vouch for it)."""
    front = front_for(_settings(tmp_path), None)
    assert front.take(request(1, "initialize", initialize_params(LATEST_HANDSHAKE_VERSION)))
    assert front.take(INITIALIZED_LINE) is None
    for method in ("tools/list", "ping"):
        line = json.dumps({"jsonrpc": "2.0", "id": 2, "method": method, "params": params})
        assert front.take(line) is None
    assert front.passthrough
    assert front.take(request(3, "tools/list", {})) is None, "nothing more after a hand-on"
