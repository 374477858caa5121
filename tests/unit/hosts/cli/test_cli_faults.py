"""Bad input to the command line is one line on stderr, never a traceback.

Each case runs the real entry point in a subprocess with an engine path that does not exist,
so nothing here can start a browser. Full disks (which need a mount) are in `test_full_disk`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent_browser_tools.state.sqlite_journal import DB_NAME
from tests.support.cli import MCP_INITIALIZE, STATE_ENV, cli_env, closed_pipe, one_line, run_cli

CALL = ["call", "agent_browser", '{"args": ["get", "url"]}']


def _config(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "config" / "agent-browser-tools"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(text)


@pytest.mark.parametrize("args", [CALL, ["state", "list"], ["tools"], ["demo"]])
def test_an_unreadable_config_file_is_one_line(tmp_path: Path, args: list[str]) -> None:
    env = cli_env(tmp_path)
    _config(tmp_path, "this is [not toml\n")
    done = run_cli(args, env)
    assert done.returncode == 2 and done.stdout == ""
    assert "cannot read config file" in one_line(done.stderr)


@pytest.mark.parametrize("args", [CALL, ["tools"]])
def test_a_setting_the_tools_refuse_is_one_line(tmp_path: Path, args: list[str]) -> None:
    env = cli_env(tmp_path)
    _config(tmp_path, "[policy]\nallow_model_flags = 5\n")
    done = run_cli(args, env)
    assert done.returncode == 2 and done.stdout == ""
    assert "allow_model_flags must be a list of strings" in one_line(done.stderr)


@pytest.mark.parametrize(("args", "code"), [(CALL, 1), (["tools"], 2)])
def test_a_missing_execution_dir_is_one_line(tmp_path: Path, args: list[str], code: int) -> None:
    env = cli_env(tmp_path, AGENT_BROWSER_TOOLS_CWD=str(tmp_path / "gone"))
    done = run_cli(args, env)
    assert done.returncode == code and done.stdout == ""
    assert "execution directory" in one_line(done.stderr)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (CALL, 1),
        (["state", "list"], 1),
        (["state", "prune", "--conversation", "x"], 1),
        (["serve"], 2),
    ],
)
def test_a_damaged_journal_is_one_line(tmp_path: Path, args: list[str], code: int) -> None:
    env = cli_env(tmp_path)
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    (state / DB_NAME).write_bytes(os.urandom(8192))
    done = run_cli(args, env)
    assert done.returncode == code and done.stdout == ""
    assert "is not a usable journal" in one_line(done.stderr)


@pytest.mark.parametrize(
    ("args", "code"), [(CALL, 1), (["state", "list"], 1), (["serve"], 2), (["demo"], 1)]
)
def test_a_state_dir_that_is_a_file_is_one_line(tmp_path: Path, args: list[str], code: int) -> None:
    env = cli_env(tmp_path)
    (tmp_path / "state").write_text("not a dir")
    done = run_cli(args, env)
    assert done.returncode == code and done.stdout == ""
    line = one_line(done.stderr)
    assert str(tmp_path / "state") in line and STATE_ENV in line


@pytest.mark.parametrize("args", [["tools"], ["doctor"], CALL, ["call", "nope", "{}"]])
def test_output_into_a_closed_pipe_ends_quietly(tmp_path: Path, args: list[str]) -> None:
    pipe = closed_pipe()
    try:
        done = run_cli(args, cli_env(tmp_path), stdout=pipe)
    finally:
        os.close(pipe)
    assert done.stderr == ""
    assert done.returncode == 1


def test_stdio_serve_whose_client_closed_stdout_ends_quietly(tmp_path: Path) -> None:
    """The client went away: that is an ending like EOF, not a failure to report."""
    pipe = closed_pipe()
    try:
        done = run_cli(
            ["serve"], cli_env(tmp_path), stdin=json.dumps(MCP_INITIALIZE) + "\n", stdout=pipe
        )
    finally:
        os.close(pipe)
    assert done.stderr == ""
    assert done.returncode == 0
