"""`agent-browser-tools call` with ephemeral state, and interrupted with Ctrl-C.

The real command line in a subprocess, over the scripted fake engine.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_browser_tools.state.sqlite_journal import DB_NAME, list_conversations
from agent_browser_tools.state.writable import EPHEMERAL_ENV
from tests.support.cli import cli_env, one_line, run_cli
from tests.support.fake import FakeEngine

GET_URL = ["call", "agent_browser", '{"args": ["get", "url"]}']
WAIT = ["call", "agent_browser", '{"args": ["wait", "20000"]}']


@pytest.fixture
def env(fake_engine: FakeEngine, tmp_path: Path) -> Iterator[dict[str, str]]:
    fake_engine.on({"command": ["get"]}, envelope={"data": {"url": "https://a.test/"}})
    fake_engine.on({"command": ["wait"]}, delay_ms=30_000, envelope={"data": {}})
    sockets = Path(tempfile.mkdtemp(prefix="abt-f", dir="/tmp"))  # short: socket path limit
    try:
        yield cli_env(
            tmp_path,
            AGENT_BROWSER_TOOLS_BIN=str(fake_engine.path),
            AGENT_BROWSER_SOCKET_DIR=str(sockets),
        )
    finally:
        shutil.rmtree(sockets, ignore_errors=True)


def _ephemeral(how: str, env: dict[str, str], tmp_path: Path) -> list[str]:
    """Ask for ephemeral state the `how` way; returns the extra argv."""
    if how == "flag":
        return ["--ephemeral-state"]
    if how == "env":
        env[EPHEMERAL_ENV] = "1"
    else:
        folder = tmp_path / "config" / "agent-browser-tools"
        folder.mkdir(parents=True)
        (folder / "config.toml").write_text("[state]\nephemeral = true\n")
    return []


@pytest.mark.parametrize("how", ["flag", "env", "config"])
def test_an_ephemeral_conversation_says_it_cannot_be_resumed(
    env: dict[str, str], tmp_path: Path, how: str
) -> None:
    extra = _ephemeral(how, env, tmp_path)
    done = run_cli([*GET_URL, "--conversation", "trip-42", *extra], env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "https://a.test/"
    line = one_line(done.stderr)
    assert "ephemeral state" in line and "'trip-42'" in line
    assert "a later call cannot resume it" in line
    assert not (tmp_path / "state" / DB_NAME).exists()  # nothing was written


def test_a_persistent_call_is_journaled_and_says_nothing(
    env: dict[str, str], tmp_path: Path
) -> None:
    done = run_cli([*GET_URL, "--conversation", "trip-42"], env)
    assert done.returncode == 0 and done.stderr == ""
    assert [info.id for info in list_conversations(tmp_path / "state")] == ["trip-42"]


def test_ephemeral_state_on_an_unusable_state_dir_uses_a_removed_scratch_dir(
    env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "state").write_text("not a dir")
    done = run_cli([*GET_URL, "--ephemeral-state"], env)
    assert done.returncode == 0, done.stderr
    line = one_line(done.stderr)
    assert "'cli'" in line and "cannot resume it" in line
    scratch = re.search(r"scratch files in (\S+), removed at exit", line)
    assert scratch is not None and not Path(scratch.group(1)).exists()


def test_ctrl_c_ends_the_call_in_one_line_and_stops_the_engine_child(
    env: dict[str, str], fake_engine: FakeEngine
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_browser_tools", *WAIT],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not _engine_pids(fake_engine, "wait") and time.monotonic() < deadline:
            time.sleep(0.05)
        [child] = _engine_pids(fake_engine, "wait")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and out == ""
    assert one_line(err) == "agent-browser-tools: interrupted"
    assert not _running(child)


def _engine_pids(fake: FakeEngine, command: str) -> list[int]:
    pids = []
    for call in fake.calls():
        argv, pid = call.get("argv"), call.get("pid")
        if isinstance(argv, list) and command in argv and isinstance(pid, int):
            pids.append(pid)
    return pids


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"
