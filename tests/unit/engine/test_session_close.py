"""Which calls may close their session, and which answers say they did."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from agent_browser_tools.engine.runner import RawOutcome
from agent_browser_tools.engine.session_close import answered_closed, may_close, wait_for_exit


@pytest.mark.parametrize(
    ("args", "stdin", "closes"),
    [
        (["--json", "--session", "s", "close"], None, True),
        (["--json", "--session", "s", "quit"], None, True),
        (["batch", "get title", "exit"], None, True),
        (["--json", "batch"], '[["get", "title"], ["quit"]]', True),
        (["--json", "batch"], "not json", False),
        (["--session", "s", "close", "--all"], None, True),
        (["--json", "batch", "get title", "close"], None, True),
        (["batch", "open https://a.test", "close --all"], None, True),
        (["--json", "batch"], '[["get", "title"], ["close"]]', True),
        (["--json", "tab", "close"], None, False),
        (["batch", "tab close", "get title"], None, False),
        (["--json", "open", "close"], None, False),
        (["--json", "batch"], '[["get", "title"]]', False),
        (["--json", "--session", "close", "get", "title"], None, False),
    ],
)
def test_only_a_close_or_a_batch_close_row_may_close(
    args: list[str], stdin: str | None, closes: bool
) -> None:
    assert may_close(args, stdin) is closes


def _raw(stdout: str) -> RawOutcome:
    return RawOutcome(
        argv=("agent-browser",),
        exit_code=0,
        stdout=stdout,
        stdout_path=None,
        stdout_bytes=len(stdout),
        stderr="",
        timed_out=False,
        missing_binary=False,
        spawn_error=None,
        started_at=0.0,
        ended_at=0.0,
        timeout_ms=1000,
    )


def test_the_answer_says_whether_a_browser_was_closed() -> None:
    assert answered_closed(_raw('{"success":true,"data":{"closed": true}}'))
    assert answered_closed(_raw("\u2713 Browser closed\n"))
    assert not answered_closed(_raw('{"success":false,"error":"no browser"}'))
    assert not answered_closed(_raw('{"success":true,"data":{"closed":false}}'))


def test_waiting_for_a_process_that_is_not_a_daemon_returns_at_once() -> None:
    assert asyncio.run(wait_for_exit(os.getpid(), 5.0)) is True  # python is no engine daemon


def test_waiting_for_a_gone_process_returns_at_once() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert asyncio.run(wait_for_exit(child.pid, 5.0)) is True
