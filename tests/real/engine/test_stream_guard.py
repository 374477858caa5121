"""The engine's stream server stays off for every browser the tools use (real engine).

Engine 0.39.4 starts a stream WebSocket with every daemon; a page on any loopback origin can
connect to it (screen frames, tab list, remote input). The tools turn it off before a call
that starts a daemon and after any call that left one streaming, so a session never has one
to find: not on its first call, not in a namespace, not after a close and reopen, not after
its daemon was killed and the engine started a new one, not after something outside the
tools turned it on. The model cannot turn it on. The two-conversation attack itself, from a
page, is `tests/e2e/test_listening_ports.py`.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine.browser_ports import listening_ports
from agent_browser_tools.engine.daemons import read_daemon_pid
from agent_browser_tools.engine.stream_guard import stream_file
from agent_browser_tools.state.models import SessionKey
from tests.support.fixture_server import FixtureServer
from tests.support.leftovers import EXIT_WAIT_S, gone
from tests.support.mcp_server import eventually
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, assert_policy_blocked

pytestmark = pytest.mark.real_engine


def _quiet(tools: BrowserTools, session: str, namespace: str | None = None) -> int:
    """The session's daemon runs, has no stream file and listens on no TCP port; its pid."""
    directory = tools.runtime.socket_dir(SessionKey(session=session, namespace=namespace))
    pid = read_daemon_pid(directory, session, namespace)
    assert pid is not None, sorted(directory.rglob("*"))
    assert not stream_file(directory, session, namespace).exists()
    assert listening_ports([pid]) == {}
    return pid


async def _opened(tools: BrowserTools, *args: str) -> str:
    result = await ab(tools, *args)
    assert not result.is_error, result.text
    return str(result.details["sessionName"])


async def test_no_session_ever_streams(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    page = fixture_site.url("/form.html")
    managed = await _opened(browser_tools, "open", page)
    first = _quiet(browser_tools, managed)
    status = await ab(browser_tools, "stream", "status")
    assert status.details["data"]["enabled"] is False, status.details

    named = await _opened(browser_tools, "--namespace", "team", "--session", "s2", "open", page)
    _quiet(browser_tools, named, "team")

    closed = await ab(browser_tools, "close")
    assert not closed.is_error, closed.text
    assert await eventually(lambda: gone(first), EXIT_WAIT_S)
    again = await _opened(browser_tools, "open", page)
    assert again == managed and _quiet(browser_tools, managed) != first

    refused = await ab(browser_tools, "stream", "enable")
    assert_policy_blocked(refused, "operator-command", "stream enable")
    _quiet(browser_tools, managed)


async def test_a_daemon_started_again_or_turned_on_outside_is_turned_off(
    browser_tools: BrowserTools, fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    page = fixture_site.url("/form.html")
    session = await _opened(browser_tools, "open", page)
    pid = _quiet(browser_tools, session)
    directory: Path = browser_tools.runtime.socket_dir(SessionKey(session=session))

    # Something outside the tools turns streaming on (the user's terminal, a stale script).
    env = browser_tools.runtime.env_for(SessionKey(session=session))
    subprocess.run(
        [str(engine_env.binary), "--session", session, "stream", "enable"],
        env=env,
        check=True,
        capture_output=True,
        timeout=30,
    )
    assert stream_file(directory, session, None).exists()
    assert listening_ports([pid]) != {}
    assert not (await ab(browser_tools, "get", "title")).is_error
    assert _quiet(browser_tools, session) == pid

    # The daemon dies; the engine starts a new one at the next call (which reports the loss).
    os.kill(pid, signal.SIGKILL)
    assert await eventually(lambda: gone(pid), EXIT_WAIT_S)
    await ab(browser_tools, "get", "url")
    reopened = await _opened(browser_tools, "open", page)
    assert reopened == session and _quiet(browser_tools, session) != pid
