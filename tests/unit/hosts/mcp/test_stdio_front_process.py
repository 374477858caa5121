"""The stdio front in a real `serve` process: the handoff to the SDK and the endings before it.

The SDK import is held back by a gate (a file the test creates), so what happens before the
handoff is certain, not a race with the import: the script below is `serve` with its stdio
loader waiting for the gate. No browser starts: the only tool call is the inventory.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.cli import MCP_INITIALIZE, cli_env

GATED_SERVE = """
import json, sys, time
from pathlib import Path
from agent_browser_tools.hosts.cli.main import main
from agent_browser_tools.hosts.mcp import serve
from agent_browser_tools.hosts.mcp.sdk_import import is_deferred

gate, load = Path(sys.argv[1]), serve._load_stdio

def gated():
    while not gate.exists():
        time.sleep(0.01)
    # What the front needed: everything loaded before the import it was waiting for (the
    # SDK packages registered lazily by `sdk_import` have not run: they are not loaded).
    loaded = [name for name, module in sys.modules.items() if not is_deferred(module)]
    (gate.parent / "modules.json").write_text(json.dumps(sorted(loaded)))
    return load()

serve._load_stdio = gated
sys.exit(main(["serve"]))
"""

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
WAIT_S = 60


def _request(request_id: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}
    return json.dumps(message).encode() + b"\n"


@contextmanager
def _gated_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    gate = tmp_path / "gate"
    child = subprocess.Popen(
        [sys.executable, "-c", GATED_SERVE, str(gate)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(tmp_path),
    )
    try:
        yield child, gate
    finally:
        gate.touch()
        if child.poll() is None:
            child.kill()
        child.wait(WAIT_S)
        for stream in (child.stdin, child.stdout, child.stderr):
            if stream is not None:
                with suppress(OSError):
                    stream.close()


def _send(child: subprocess.Popen[bytes], data: bytes) -> None:
    assert child.stdin is not None
    child.stdin.write(data)
    child.stdin.flush()


def _read(child: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert child.stdout is not None
    message: dict[str, Any] = json.loads(child.stdout.readline())
    return message


def _handshake(child: subprocess.Popen[bytes]) -> list[dict[str, Any]]:
    """initialize + tools/list, both answered while the import is held back."""
    _send(child, json.dumps(MCP_INITIALIZE).encode() + b"\n")
    initialized = _read(child)
    _send(child, json.dumps(INITIALIZED).encode() + b"\n" + _request(2, "tools/list"))
    return [initialized, _read(child)]


def test_a_call_sent_before_the_import_is_answered_after_the_handoff(tmp_path: Path) -> None:
    with _gated_server(tmp_path) as (child, gate):
        initialized, listed = _handshake(child)
        assert initialized["result"]["serverInfo"]["name"] == "agent-browser-tools"
        _send(child, b"{not json\n" + _request(3, "tools/call", {"name": "agent_browser_tools"}))
        gate.touch()
        called = _read(child)
        _send(child, _request(4, "tools/list"))
        relisted = _read(child)
        assert child.stdin is not None
        child.stdin.close()
        assert child.wait(WAIT_S) == 0
    assert called["id"] == 3 and called["result"]["isError"] is False
    assert called["result"]["content"][0]["text"].startswith("Tools:")
    # The SDK, once loaded, lists what the front listed; the replayed initialize is not seen.
    assert (relisted["id"], relisted["result"]) == (4, listed["result"])


def test_the_front_answers_without_the_sdk_or_pydantic(tmp_path: Path) -> None:
    with _gated_server(tmp_path) as (child, gate):
        initialized, listed = _handshake(child)
        gate.touch()
        assert child.stdin is not None
        child.stdin.close()
        assert child.wait(WAIT_S) == 0
    assert initialized["id"] == 1 and [t["name"] for t in listed["result"]["tools"]]
    loaded = json.loads((tmp_path / "modules.json").read_text())
    heavy = ("mcp", "mcp_types", "pydantic", "pydantic_core", "agent_browser_tools.tools.catalog")
    assert [name for name in loaded if name.split(".")[0] in heavy or name in heavy] == []


@pytest.mark.parametrize("ending", ["eof", "sigterm", "sigint"])
def test_an_ending_before_the_handoff_exits_0(ending: str, tmp_path: Path) -> None:
    with _gated_server(tmp_path) as (child, gate):
        _handshake(child)
        assert child.stdin is not None
        if ending == "eof":
            child.stdin.close()
        else:
            child.send_signal(signal.SIGTERM if ending == "sigterm" else signal.SIGINT)
        gate.touch()
        assert child.wait(WAIT_S) == 0
        assert child.stderr is not None
        assert child.stderr.read() == b""


def test_a_client_that_closed_stdout_before_the_handoff_is_an_ending(tmp_path: Path) -> None:
    with _gated_server(tmp_path) as (child, gate):
        assert child.stdout is not None
        child.stdout.close()
        _send(child, json.dumps(MCP_INITIALIZE).encode() + b"\n")
        gate.touch()
        assert child.wait(WAIT_S) == 0
        assert child.stderr is not None
        assert child.stderr.read() == b""


async def test_the_official_client_calls_a_tool_before_the_import_finishes(
    tmp_path: Path,
) -> None:
    gate = tmp_path / "gate"
    params = StdioServerParameters(
        command=sys.executable, args=["-c", GATED_SERVE, str(gate)], env=cli_env(tmp_path)
    )
    try:
        async with Client(params, mode="legacy") as client:
            listed = await client.list_tools()
            async with anyio.create_task_group() as group:
                results: list[Any] = []

                async def call() -> None:
                    results.append(await client.call_tool("agent_browser_tools", {}))

                group.start_soon(call)
                await anyio.sleep(0.2)
                assert results == []  # held back with the import
                gate.touch()
            relisted = await client.list_tools()
    finally:
        gate.touch()
    assert [tool.name for tool in relisted.tools] == [tool.name for tool in listed.tools]
    assert results[0].is_error is False
