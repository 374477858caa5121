"""The state dir's disk fills up while `serve` runs: calls fail clearly, the server stays up.

A new conversation whose journal cannot be opened, and a call whose journal row cannot be
written, each fail that call with `failureCategory: aborted` and a message naming the fix;
other conversations keep working once there is room again, every acknowledged row stays,
and nothing reaches stderr as a traceback. The state dir is a tiny tmpfs (skipped where
mounting is impossible); the fake engine answers, so the fault under test is the journal's.
"""

from __future__ import annotations

import json
import select
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from agent_browser_tools.state.sqlite_journal import DB_NAME
from tests.support.cli import STATE_ENV, cli_env
from tests.support.fake import FakeEngine
from tests.support.mcp_server import ab, details_of, http_client, http_server, text_of
from tests.support.tmpfs import fill, mounted_tmpfs


@pytest.fixture
def env(fake_engine: FakeEngine, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The server's env: the fake engine, and a state dir on a tiny tmpfs."""
    fake_engine.on({"command": ["get"]}, envelope={"data": {"url": "https://a.test/"}})
    sockets = Path(tempfile.mkdtemp(prefix="abt-f", dir="/tmp"))  # short: socket path limit
    try:
        with mounted_tmpfs(tmp_path / "tiny") as point:
            yield cli_env(
                tmp_path,
                AGENT_BROWSER_TOOLS_BIN=str(fake_engine.path),
                AGENT_BROWSER_SOCKET_DIR=str(sockets),
                **{STATE_ENV: str(point / "state")},
            )
    finally:
        shutil.rmtree(sockets, ignore_errors=True)


def _tiny(env: dict[str, str]) -> Path:
    return Path(env[STATE_ENV]).parent


def _rows(env: dict[str, str]) -> list[tuple[str, int, str]]:
    conn = sqlite3.connect(Path(env[STATE_ENV]) / DB_NAME)
    try:
        return conn.execute(
            "SELECT conversation_id, seq, kind FROM events ORDER BY 1, 2"
        ).fetchall()
    finally:
        conn.close()


def _aborted(result: types.CallToolResult, *needles: str) -> dict[str, Any]:
    assert result.is_error
    details = details_of(result)
    assert details["failureCategory"] == "aborted"
    text = text_of(result)
    assert all(needle in text for needle in needles), text
    return details


async def test_http_new_and_old_conversations_on_a_disk_that_filled_up(
    env: dict[str, str],
) -> None:
    with http_server(env) as server:
        assert server.url is not None
        async with http_client(server.url) as old:
            assert not (await ab(old, "get", "url")).is_error
            acknowledged = _rows(env)
            filler = fill(_tiny(env))
            async with http_client(server.url) as new:
                names = {tool.name for tool in (await new.list_tools()).tools}
                assert "agent_browser" in names  # opening the journal writes nothing
                lost = _aborted(await ab(new, "get", "url"), "did not run", "full", "Free space")
                assert lost["journalWriteFailed"] == "intent"
                _aborted(await ab(old, "get", "url"), "did not run", "full")
                filler.unlink()
                assert not (await ab(new, "get", "url")).is_error
            assert not (await ab(old, "get", "url")).is_error
        assert set(acknowledged) <= set(_rows(env))
    assert server.proc.returncode == 0
    assert not any("Traceback" in line for line in server.log), server.log


async def test_http_first_conversation_after_the_disk_filled_up(env: dict[str, str]) -> None:
    """Nothing holds the journal open yet, so opening it fails: the request says so."""
    with http_server(env) as server:
        assert server.url is not None
        filler = fill(_tiny(env))
        async with http_client(server.url) as client:
            with pytest.raises(MCPError) as listed:
                await client.list_tools()
            message = listed.value.error.message
            assert "cannot start" in message and "its filesystem is full" in message
            assert "free space" in message and "--ephemeral-state" in message
            details = _aborted(await ab(client, "get", "url"), "did not run", "--ephemeral-state")
            assert details["conversationUnavailable"] is True
            filler.unlink()
            assert not (await ab(client, "get", "url")).is_error
    assert server.proc.returncode == 0
    assert not any("Traceback" in line for line in server.log), server.log
    assert any("cannot start" in line for line in server.log)


class _Stdio:
    """`serve` on stdio, spoken to in JSON lines."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agent_browser_tools", "serve"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._id = 0

    def send(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._write(message)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._id, "method": method}
        if params is not None:
            message["params"] = params
        self._write(message)
        return self._answer(self._id)

    def _write(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def _answer(self, ident: int, timeout: float = 30) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if ready:
                answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
                if answer.get("id") == ident:
                    return answer
        raise AssertionError(f"no answer to request {ident}")

    def finish(self) -> tuple[int, str]:
        """Close stdin (EOF ends the server) and collect its exit code and stderr."""
        _, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, err


def test_stdio_conversation_starting_after_the_disk_filled_up(env: dict[str, str]) -> None:
    server = _Stdio(env)
    try:
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        }
        assert "result" in server.request("initialize", hello)
        server.send("notifications/initialized")
        filler = fill(_tiny(env))
        # A new stdio conversation lists its tools before it opens (start-up speed, see
        # hosts/mcp/stdio.py), so the first call is what meets the full disk.
        listed = server.request("tools/list")
        assert "agent_browser" in {tool["name"] for tool in listed["result"]["tools"]}
        get_url = {"name": "agent_browser", "arguments": {"args": ["get", "url"]}}
        failed = server.request("tools/call", get_url)["result"]
        assert failed["isError"] is True
        assert failed["_meta"]["agent-browser-tools/details"]["failureCategory"] == "aborted"
        assert "free space" in failed["content"][0]["text"]
        filler.unlink()
        worked = server.request("tools/call", get_url)["result"]
        assert worked["isError"] is False
        code, err = server.finish()
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    assert code == 0
    assert "Traceback" not in err and "cannot start" in err
