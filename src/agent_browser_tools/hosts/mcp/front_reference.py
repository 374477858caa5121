"""What the SDK itself answers on stdio, line for line: the ground truth of the stdio front.

Why: the front (`stdio_front`) answers `initialize`, `ping` and `tools/list` before the SDK has
loaded, from data. That data is recorded here from the SDK (`scripts/gen_stdio_front.py`) and
the front is compared with it (tests), instead of being written by hand, so a new SDK release
or a changed tool spec cannot make the two answer differently without a red gate.

The server is the real one (`server.build_server`, as stdio builds it) on the SDK's own stdio
transport (`stdio_server` with in-memory files in place of the process's stdin/stdout). A
line that expects an answer is followed by the next only once that answer is out, so the end
of input never races an answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import anyio
from mcp.server.stdio import stdio_server
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from agent_browser_tools.hosts.mcp.conversations import ConversationRegistry
from agent_browser_tools.hosts.mcp.server import build_server

if TYPE_CHECKING:
    from agent_browser_tools.api import BrowserTools
    from agent_browser_tools.tools.registry import ToolSpec

ANSWER_WAIT_S = 10.0


@dataclass(frozen=True)
class Line:
    """One input line, and whether the SDK answers it (a request, or a line it cannot parse)."""

    text: str
    answered: bool


class _Output:
    """The SDK's stdout: every line it writes, in order."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._pending = ""

    async def write(self, text: str) -> int:
        self._pending += text
        *done, self._pending = self._pending.split("\n")
        self.lines.extend(done)
        return len(text)

    async def flush(self) -> None:
        return None


class _Script:
    """The SDK's stdin: `lines`, each released once the answers owed so far are out."""

    def __init__(self, lines: Sequence[Line], output: _Output) -> None:
        self._lines = list(lines)
        self._output = output
        self._owed = 0

    def __aiter__(self) -> _Script:
        return self

    async def __anext__(self) -> str:
        with anyio.fail_after(ANSWER_WAIT_S):
            while len(self._output.lines) < self._owed:
                await anyio.sleep(0.001)
        if not self._lines:
            raise StopAsyncIteration
        line = self._lines.pop(0)
        self._owed += line.answered
        return line.text + "\n"


def _refuse(key: str) -> BrowserTools:
    raise AssertionError("the reference server never opens a conversation")


async def sdk_transcript(listed: Sequence[ToolSpec], lines: Sequence[Line]) -> list[str]:
    """The lines the stdio server writes for `lines`, its tool list being `listed`."""
    registry = ConversationRegistry(_refuse, preview=lambda key: list(listed))
    server = build_server(registry, lambda ctx: "stdio", stateless_era=True)
    output = _Output()
    files = cast(Any, _Script(lines, output)), cast(Any, output)
    async with stdio_server(stdin=files[0], stdout=files[1]) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
    return output.lines


def request(request_id: int | str, method: str, params: dict[str, Any] | None = None) -> str:
    """A JSON-RPC request line."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)


def initialize_params(version: str) -> dict[str, Any]:
    return {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "front-reference", "version": "1"},
    }


INITIALIZED_LINE = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})


async def recorded_results(version: str) -> dict[str, Any]:
    """The SDK's results for `initialize` at `version`, then `tools/list` (every declared
    tool) and `ping`, by method."""
    from agent_browser_tools.tools.catalog import declared

    script = [
        Line(request(1, "initialize", initialize_params(version)), answered=True),
        Line(INITIALIZED_LINE, answered=False),
        Line(request(2, "tools/list", {}), answered=True),
        Line(request(3, "ping"), answered=True),
    ]
    always_on = [spec for spec in declared() if spec.always_on]  # all the front ever lists
    answers = [json.loads(line) for line in await sdk_transcript(always_on, script)]
    methods = {1: "initialize", 2: "tools/list", 3: "ping"}
    return {methods[answer["id"]]: answer["result"] for answer in answers}


async def front_data() -> dict[str, Any]:
    """The content of `front_data.json` (see `front_answers.FrontData`)."""
    from agent_browser_tools.tools.catalog import declared

    results = {version: await recorded_results(version) for version in HANDSHAKE_PROTOCOL_VERSIONS}
    without_search = {spec.name for spec in declared(web_search=False)}
    tools = [
        {"name": s.name, "alwaysOn": s.always_on, "webSearch": s.name not in without_search}
        for s in declared()
    ]
    return {
        "generatedBy": "scripts/gen_stdio_front.py (do not edit)",
        "latestProtocolVersion": LATEST_HANDSHAKE_VERSION,
        "declared": tools,
        "results": results,
    }
