"""Doctor's smoke cleanup signals only the engine named in its own session's pid file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agent_browser_tools.hosts.cli.smoke_cleanup import stop_session_daemon


def test_a_pid_file_naming_another_program_is_never_signalled(tmp_path: Path) -> None:
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / "abt-doctor-x.pid").write_text(str(other.pid))
        assert stop_session_daemon(tmp_path, "abt-doctor-x", "/nonexistent/agent-browser") is False
        assert other.poll() is None, "a process that is not the engine must be left alone"
    finally:
        other.kill()
        other.wait()


def test_a_stopped_sessions_files_are_removed_and_others_kept(tmp_path: Path) -> None:
    for name in ("abt-doctor-x.sock", "abt-doctor-x.pid", "someone-else.sock"):
        (tmp_path / name).write_text("999999999")
    assert stop_session_daemon(tmp_path, "abt-doctor-x", "/nonexistent/agent-browser") is False
    assert sorted(p.name for p in tmp_path.iterdir()) == ["someone-else.sock"]
