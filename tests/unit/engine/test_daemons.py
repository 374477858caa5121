"""Daemon health and orphan reaping, on a stand-in process tree (real processes, real /proc).

The stand-in mimics what the engine does: a session leader whose executable name starts with
`agent-browser` (the daemon), one child carrying the socket dir in its environment and an
engine-style temporary profile on its command line (the browser). The real engine is killed
the same way in `tests/real/state/test_lifecycle_faults.py`; here each state is produced on
demand, including the ones the engine cannot be made to show (a reused pid, a stranger's
process group).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_browser_tools.engine.daemons import Health, check_daemon, is_live_daemon
from agent_browser_tools.engine.orphans import orphans_of, reap_dead, reap_orphans
from tests.support.leftovers import gone

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

DAEMON_CODE = """
import os, subprocess, sys, time
child = subprocess.Popen(
    ["chromium-stand-in", "-c", "import time; time.sleep(120)", "--user-data-dir=" + sys.argv[1]],
    executable=sys.argv[3], env={"AGENT_BROWSER_SOCKET_DIR": sys.argv[2]},
)
stranger = subprocess.Popen(
    ["unrelated-job", "-c", "import time; time.sleep(120)"], executable=sys.argv[3], env={}
)
print(child.pid, stranger.pid, flush=True)
while True:
    try:
        os.waitpid(-1, 0)
    except ChildProcessError:
        time.sleep(0.05)
"""


@dataclass
class Tree:
    daemon: subprocess.Popen[str]
    browser: int
    stranger: int
    """A process in the daemon's session that carries no socket dir: never ours to stop."""
    profile: Path
    socket_dir: Path


def _waitgone(pid: int) -> None:
    deadline = time.monotonic() + 10
    while not gone(pid):
        assert time.monotonic() < deadline, f"{pid} still alive"
        time.sleep(0.02)


def _start(tmp_path: Path, socket_dir: Path) -> Tree:
    profile = tmp_path / "agent-browser-chrome-standin"
    profile.mkdir()
    (profile / "Default").mkdir()
    socket_dir.mkdir(exist_ok=True)
    daemon = subprocess.Popen(
        [
            "agent-browser-test-daemon",
            "-c",
            DAEMON_CODE,
            str(profile),
            str(socket_dir),
            sys.executable,
        ],
        executable=sys.executable,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert daemon.stdout is not None
    browser, stranger = map(int, daemon.stdout.readline().split())
    (socket_dir / "s1.pid").write_text(f"{daemon.pid}\n")
    return Tree(daemon, browser, stranger, profile, socket_dir)


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Tree]:
    started = _start(tmp_path, tmp_path / "sockets")
    try:
        yield started
    finally:
        for pid in (started.browser, started.stranger, started.daemon.pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        started.daemon.wait(timeout=10)


def _health(tree: Tree, expected: int | None = None) -> Health:
    pid = tree.daemon.pid if expected is None else expected
    return check_daemon(tree.socket_dir, "s1", None, pid, had_browser=True)


def test_a_daemon_with_its_browser_is_running(tree: Tree) -> None:
    assert _health(tree) is Health.RUNNING
    assert is_live_daemon(tree.daemon.pid)


def test_a_killed_browser_under_a_live_daemon_is_seen(tree: Tree) -> None:
    for child in (tree.browser, tree.stranger):
        os.kill(child, signal.SIGKILL)
        _waitgone(child)
    assert _health(tree) is Health.BROWSER_DIED
    attached = check_daemon(tree.socket_dir, "s1", None, tree.daemon.pid, had_browser=False)
    assert attached is Health.RUNNING, "a daemon never seen with a browser child has none to miss"


def test_a_killed_daemon_is_seen_even_as_a_zombie(tree: Tree) -> None:
    os.kill(tree.daemon.pid, signal.SIGKILL)
    time.sleep(0.2)  # not reaped yet: the daemon is a zombie child of this test
    assert _health(tree) is Health.DAEMON_DIED


def test_a_missing_or_rewritten_pid_file_is_seen(tree: Tree) -> None:
    (tree.socket_dir / "s1.pid").write_text("1\n")
    assert _health(tree) is Health.REPLACED
    (tree.socket_dir / "s1.pid").unlink()
    assert _health(tree) is Health.NO_DAEMON


def test_a_reused_pid_is_not_taken_for_the_daemon(tree: Tree) -> None:
    (tree.socket_dir / "s1.pid").write_text(f"{os.getpid()}\n")
    assert not is_live_daemon(os.getpid()), "pytest is not an engine daemon"
    assert _health(tree, os.getpid()) is Health.DAEMON_DIED


async def test_the_orphans_of_a_killed_daemon_are_stopped_and_their_profile_removed(
    tree: Tree,
) -> None:
    assert orphans_of(tree.daemon.pid, tree.socket_dir) == [], "a live daemon has no orphans"
    os.kill(tree.daemon.pid, signal.SIGKILL)
    tree.daemon.wait(timeout=10)
    assert not gone(tree.browser), "the browser outlives its daemon, as Chromium does"
    assert orphans_of(tree.daemon.pid, tree.socket_dir) == [tree.browser]
    assert orphans_of(tree.daemon.pid, tree.socket_dir.parent) == [], "not a shared base dir"

    reaped = await reap_orphans(tree.daemon.pid, tree.socket_dir)
    assert reaped.stopped == (tree.browser,) and reaped.left == ()
    assert reaped.profiles == (str(tree.profile),) and not tree.profile.exists()
    _waitgone(tree.browser)
    assert not gone(tree.stranger), "a session member without our socket dir is left alone"


async def test_conversation_end_reaps_dead_daemons_named_by_pid_files_or_the_journal(
    tree: Tree,
) -> None:
    os.kill(tree.daemon.pid, signal.SIGKILL)
    tree.daemon.wait(timeout=10)
    (tree.socket_dir / "s1.pid").write_text("999999999\n")  # a new daemon took the file
    assert (await reap_dead(tree.socket_dir)).stopped == ()
    reaped = await reap_dead(tree.socket_dir, known=[tree.daemon.pid])
    assert reaped.stopped == (tree.browser,)
    _waitgone(tree.browser)


async def test_a_group_without_our_socket_dir_is_never_touched(tree: Tree, tmp_path: Path) -> None:
    os.kill(tree.daemon.pid, signal.SIGKILL)
    tree.daemon.wait(timeout=10)
    other = tmp_path / "another-conversation"
    other.mkdir()
    assert orphans_of(tree.daemon.pid, other) == []
    assert (await reap_orphans(tree.daemon.pid, other)).stopped == ()
    assert not gone(tree.browser) and tree.profile.exists()
