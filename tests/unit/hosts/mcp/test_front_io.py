"""The stdio front's plumbing and handoff streams (hosts/mcp/front_io.py, front_handoff.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading

import pytest

from agent_browser_tools.hosts.mcp.front_handoff import FrontStdin, FrontStdout
from agent_browser_tools.hosts.mcp.front_io import EOF, LINE, STOP, Inbox, Wire, read_lines


async def _drain(stdin: FrontStdin) -> list[str]:
    return [line async for line in stdin]


async def test_the_sdk_reads_the_replay_then_what_waited_then_live_lines() -> None:
    inbox = Inbox()
    inbox.put((LINE, "kept-after-loading\n"))
    stdin = FrontStdin(["replay", "kept\n"], inbox, eof=False)
    reading = asyncio.ensure_future(_drain(stdin))
    await asyncio.sleep(0.01)  # attached by now: later lines come through the loop

    def client() -> None:
        inbox.put((LINE, "live\n"))
        inbox.put((EOF, None))

    thread = threading.Thread(target=client)
    thread.start()
    thread.join()
    assert await asyncio.wait_for(reading, 5) == [
        "replay",
        "kept\n",
        "kept-after-loading\n",
        "live\n",
    ]


async def test_a_stop_signal_after_the_handoff_ends_the_input() -> None:
    inbox = Inbox()
    stdin = FrontStdin([], inbox, eof=False)
    reading = asyncio.ensure_future(_drain(stdin))
    await asyncio.sleep(0.01)
    inbox.put_from_signal((STOP, 15))
    assert await asyncio.wait_for(reading, 5) == []


async def test_input_that_ended_before_the_handoff_ends_after_the_kept_lines() -> None:
    assert await _drain(FrontStdin(["a\n"], Inbox(), eof=True)) == ["a\n"]


def test_a_line_read_after_the_loop_closed_is_dropped_quietly() -> None:
    inbox = Inbox()
    loop = asyncio.new_event_loop()
    inbox.attach(loop)
    loop.close()
    inbox.put((LINE, "late\n"))  # the stdin thread, after the server ended: no exception
    inbox.put_from_signal((STOP, 15))


def _pipe() -> tuple[int, int]:
    read_fd, write_fd = os.pipe()
    return read_fd, write_fd


async def test_the_sdks_answer_to_the_replay_is_dropped_and_nothing_else(
    caplog: pytest.LogCaptureFixture,
) -> None:
    read_fd, write_fd = _pipe()
    stdout = FrontStdout(Wire(-1, write_fd), drop_id="private")
    refused = {"jsonrpc": "2.0", "id": "private", "error": {"code": -32602, "message": "no"}}
    other = {"jsonrpc": "2.0", "id": 2, "result": {"note": "mentions private"}}
    with caplog.at_level(logging.WARNING):
        await stdout.write(json.dumps(refused) + "\n")
        await stdout.write(json.dumps(other) + "\n")
        await stdout.write(json.dumps({**refused, "error": None}) + "\n")  # only once
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as reader:
        written = [json.loads(line) for line in reader.read().splitlines()]
    assert written == [other, {**refused, "error": None}]
    assert "refused the replayed initialize" in caplog.text


def test_writing_to_a_client_that_left_raises_broken_pipe() -> None:
    read_fd, write_fd = _pipe()
    os.close(read_fd)
    try:
        with pytest.raises(BrokenPipeError):
            Wire(-1, write_fd).write("x\n")
    finally:
        os.close(write_fd)


def test_stdin_lines_the_sdk_could_not_parse_are_repaired_as_they_are_read() -> None:
    read_fd, write_fd = os.pipe()
    os.write(
        write_fd,
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"agent_browser",'
        b'"arguments":{"args":["get","url\xff"]}}}\n'
        b'{"jsonrpc":"2.0","id":4,"method":"ping"}\n'
        b"garbage \xfe\n",
    )
    os.close(write_fd)
    inbox = Inbox()
    try:
        read_lines(read_fd, inbox)
    finally:
        os.close(read_fd)
    items = [inbox.get() for _ in range(4)]
    assert [kind for kind, _ in items] == [LINE, LINE, LINE, EOF]
    repaired = json.loads(items[0][1])
    refusal = repaired["params"]["arguments"]["agent-browser-tools/refused-input"]
    assert refusal["limit"] == "invalid-utf8" and repaired["id"] == 3
    assert items[1][1] == '{"jsonrpc":"2.0","id":4,"method":"ping"}\n'
    assert items[2][1] == "garbage \ufffd\n"  # not JSON: decoded as the SDK decodes it
