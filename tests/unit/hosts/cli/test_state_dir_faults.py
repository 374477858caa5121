"""A read-only state dir and a closed stdout, through the real command line.

Root ignores `chmod`, so the read-only dir is a tmpfs remounted read-only; where mounting is
impossible (not root, no mount privilege) those tests skip and say why. Every case checks the
exit code, that the user got one line with the fix, and that no traceback reached them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_browser_tools.settings import Settings
from agent_browser_tools.state.writable import (
    EPHEMERAL_ENV,
    ephemeral_requested,
    state_dir_problem,
)
from tests.support.cli import MCP_INITIALIZE

STATE_ENV = "AGENT_BROWSER_TOOLS_STATE_DIR"


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, check=False)


@pytest.fixture
def readonly_state_dir(tmp_path: Path) -> Iterator[Path]:
    """An existing, private state dir on a read-only filesystem."""
    if os.geteuid() != 0:
        pytest.skip("a read-only mount needs root (chmod does not stop root, mount does)")
    point = tmp_path / "ro"
    point.mkdir()
    made = _mount("-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(point))
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        (point / "state").mkdir(mode=0o700)
        remount = _mount("-o", "remount,ro", str(point))
        if remount.returncode != 0:
            pytest.skip(f"cannot remount the tmpfs read-only: {remount.stderr.strip()}")
        yield point / "state"
    finally:
        subprocess.run(["umount", str(point)], check=False)


def _cli(
    args: list[str], state: Path, *, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    inherited = {k: v for k, v in os.environ.items() if k != EPHEMERAL_ENV}
    full = {**inherited, STATE_ENV: str(state), **env}
    return subprocess.run(
        [sys.executable, "-m", "agent_browser_tools", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full,
        timeout=60,
        check=False,
    )


def _one_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def test_call_on_a_readonly_state_dir_is_one_line(readonly_state_dir: Path) -> None:
    done = _cli(["call", "agent_browser", '{"args": ["get", "url"]}'], readonly_state_dir)
    line = _one_line(done.stderr)
    assert done.returncode == 1 and done.stdout == ""
    assert "Read-only file system" in line and f"set {STATE_ENV}" in line


@pytest.mark.parametrize("args", [["list"], ["prune", "--conversation", "x"]])
def test_state_on_a_readonly_state_dir_is_one_line(
    readonly_state_dir: Path, args: list[str]
) -> None:
    done = _cli(["state", *args], readonly_state_dir)
    line = _one_line(done.stderr)
    assert done.returncode == 1
    assert line.startswith("state: ") and "Read-only file system" in line


def test_serve_refuses_a_readonly_state_dir(readonly_state_dir: Path) -> None:
    done = _cli(["serve"], readonly_state_dir)
    line = _one_line(done.stderr)
    assert done.returncode == 2 and done.stdout == ""
    assert "Read-only file system" in line and f"set {STATE_ENV}" in line
    assert "--ephemeral-state" in line


_MCP_SESSION = [
    MCP_INITIALIZE,
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


@pytest.mark.parametrize(
    ("flags", "env"), [(["--ephemeral-state"], {}), ([], {EPHEMERAL_ENV: "1"})]
)
def test_ephemeral_serve_answers_on_a_readonly_state_dir(
    readonly_state_dir: Path, flags: list[str], env: dict[str, str]
) -> None:
    inherited = {k: v for k, v in os.environ.items() if k != EPHEMERAL_ENV}
    server = subprocess.Popen(
        [sys.executable, "-m", "agent_browser_tools", "serve", *flags],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**inherited, STATE_ENV: str(readonly_state_dir), **env},
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write("".join(json.dumps(message) + "\n" for message in _MCP_SESSION))
    server.stdin.flush()
    answers: dict[object, dict[str, object]] = {}
    while 2 not in answers:  # a client closes stdin only once it has its answers
        answer = json.loads(server.stdout.readline())
        answers[answer.get("id")] = answer
    _, stderr = server.communicate(timeout=60)
    assert server.returncode == 0, stderr
    line = _one_line(stderr)
    assert "ephemeral state" in line and "lost when the server stops" in line
    result = answers[2]["result"]
    assert isinstance(result, dict)
    names = {tool["name"] for tool in result["tools"]}
    assert "agent_browser" in names
    scratch = re.search(r"scratch files in (\S+),", line)
    assert scratch is not None and not Path(scratch.group(1)).exists()


def test_state_list_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "agent_browser_tools", "state", "list"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, STATE_ENV: str(tmp_path / "state")},
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 1


def test_state_dir_problem_names_the_fix(tmp_path: Path) -> None:
    assert state_dir_problem(tmp_path / "state") is None
    (tmp_path / "file").write_text("not a dir")
    problem = state_dir_problem(tmp_path / "file" / "state")
    assert problem is not None and f"set {STATE_ENV}" in problem


def test_ephemeral_requested_by_env_or_config(tmp_path: Path) -> None:
    base = {STATE_ENV: str(tmp_path)}
    assert not ephemeral_requested(Settings.load(env=base, trust_project=False))
    assert ephemeral_requested(Settings.load(env={**base, EPHEMERAL_ENV: "1"}))
    assert not ephemeral_requested(Settings.load(env={**base, EPHEMERAL_ENV: "0"}))
    layered = Settings.load(env=base, trust_project=False).with_layer(
        "test", {"state": {"ephemeral": True}}
    )
    assert ephemeral_requested(layered)
