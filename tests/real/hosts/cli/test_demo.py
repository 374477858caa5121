"""`agent-browser-tools demo` runs its five calls and leaves no temp folder behind."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.real_engine import EngineEnv

pytestmark = pytest.mark.real_engine


def test_the_demo_succeeds_and_removes_its_workspace(engine_env: EngineEnv, tmp_path: Path) -> None:
    # Short: Chromium puts its singleton socket in TMPDIR, and socket paths are limited.
    temp = Path(tempfile.mkdtemp(prefix="abtd-", dir="/tmp"))
    try:
        _run_demo_in(engine_env, tmp_path, temp)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _run_demo_in(engine_env: EngineEnv, tmp_path: Path, temp: Path) -> None:
    env = {
        **engine_env.env,
        "TMPDIR": str(temp),
        "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "agent_browser_tools", "demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Welcome, Ada Lovelace" in done.stdout
    assert "demo: ok (its temporary workspace" in done.stdout
    assert list(temp.glob("abt-demo-*")) == []
