"""`agent-browser-tools doctor`: passes on this machine, fails with a remedy when it should."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from agent_browser_tools.engine.discovery import clear_engine_cache, wheel_binary
from agent_browser_tools.hosts.cli.doctor import run_doctor
from agent_browser_tools.settings import Settings
from tests.support.real_engine import EngineEnv, ProcInfo, scan_browser_processes
from tests.support.second_engine import chosen_engine

pytestmark = pytest.mark.real_engine


@pytest.fixture(autouse=True)
def _fresh_engine_cache() -> None:
    clear_engine_cache()


def _doctor(env: dict[str, str], tmp_path: Path) -> tuple[int, str]:
    """Run doctor with a test-owned state dir; return its exit code and printed report."""
    settings = Settings.load(
        env={**env, "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state")}, cwd=tmp_path
    )
    out = io.StringIO()
    code = run_doctor(settings, out)
    return code, out.getvalue()


def test_doctor_passes_here_with_a_live_smoke(engine_env: EngineEnv, tmp_path: Path) -> None:
    code, text = _doctor(engine_env.env, tmp_path)
    assert code == 0, text
    if chosen_engine() is None:
        assert "engine" in text and "version 0.39.4, supported" in text and "(wheel)" in text
    else:  # CI's second engine (`ABT_TEST_ENGINE`), named by the operator's setting
        assert "engine" in text and "version 0.41.2, supported" in text and "(explicit)" in text
    assert "browser" in text and "hromium" in text
    assert "mode 0o700" in text
    assert f"file access  roots {Path.cwd()}" in text and "never the state dir" in text
    assert "smoke" in text and "read its title" in text
    assert "doctor: all checks passed" in text


def test_doctor_fails_with_remedy_when_the_binary_is_missing(
    engine_env: EngineEnv, tmp_path: Path
) -> None:
    missing = tmp_path / "gone" / "agent-browser"
    code, text = _doctor({**engine_env.env, "AGENT_BROWSER_TOOLS_BIN": str(missing)}, tmp_path)
    assert code == 1
    assert "FAIL  engine" in text and str(missing) in text
    assert "fix:" in text and "pip install agent-browser-cli==0.39.4" in text


def test_doctor_fails_with_remedy_when_no_browser_is_found(
    engine_env: EngineEnv, tmp_path: Path
) -> None:
    engine = wheel_binary()
    assert engine is not None
    env = {
        **engine_env.env,
        "PATH": str(tmp_path / "empty-bin"),
        "HOME": str(tmp_path / "empty-home"),
        "AGENT_BROWSER_TOOLS_BIN": engine,
    }
    env.pop("AGENT_BROWSER_EXECUTABLE_PATH", None)
    code, text = _doctor(env, tmp_path)
    assert code == 1
    assert "FAIL  browser" in text
    assert "apt-get install chromium" in text
    assert "smoke  " not in text, "the live smoke must not run without a browser"


def test_doctor_names_a_broken_executable_path_variable(
    engine_env: EngineEnv, tmp_path: Path
) -> None:
    """The engine's own doctor would report the system Chromium as fine; ours must not."""
    env = {**engine_env.env, "AGENT_BROWSER_EXECUTABLE_PATH": "/nonexistent"}
    code, text = _doctor(env, tmp_path)
    assert code == 1
    assert "FAIL  browser" in text
    assert "AGENT_BROWSER_EXECUTABLE_PATH = /nonexistent: no such file" in text
    assert "fix: point AGENT_BROWSER_EXECUTABLE_PATH at a working Chrome/Chromium" in text
    assert "smoke  " not in text, "the live smoke must not run with a missing browser"


def test_doctor_names_the_operators_browser_executable_setting(
    engine_env: EngineEnv, tmp_path: Path
) -> None:
    config = tmp_path / "operator.toml"
    config.write_text('[browser]\nexecutable_path = "/nonexistent/chrome"\n', encoding="utf-8")
    env = {**engine_env.env, "AGENT_BROWSER_TOOLS_CONFIG": str(config)}
    env.pop("AGENT_BROWSER_EXECUTABLE_PATH", None)
    code, text = _doctor(env, tmp_path)
    assert code == 1
    assert "[browser] executable_path = /nonexistent/chrome: no such file" in text
    assert "fix: point [browser] executable_path at" in text


def _started_since(baseline: set[tuple[int, int]], socket_dir: Path) -> list[ProcInfo]:
    """Live engine/Chromium processes started after `baseline` with `socket_dir` (and their
    children, whose environment Chromium overwrites)."""
    new = {p.pid: p for p in scan_browser_processes() if p.key not in baseline and p.state != "Z"}
    ours: set[int] = set()
    for pid in new:
        try:
            environ = (Path("/proc") / str(pid) / "environ").read_bytes()
        except OSError:
            continue
        if f"AGENT_BROWSER_SOCKET_DIR={socket_dir}".encode() in environ.split(b"\0"):
            ours.add(pid)
    while heirs := {pid for pid, p in new.items() if pid not in ours and p.ppid in ours}:
        ours |= heirs
    return [new[pid] for pid in sorted(ours)]


def test_a_failed_smoke_names_the_setting_and_leaves_nothing_running(
    engine_env: EngineEnv, tmp_path: Path
) -> None:
    """An executable that exists but is no browser passes the file check, fails the smoke;
    the fix names the variable and no engine daemon or browser it started survives."""
    fake = tmp_path / "not-a-browser"
    fake.write_text("#!/bin/sh\necho 'not a browser' >&2\nexit 1\n", encoding="utf-8")
    fake.chmod(0o755)
    baseline = {p.key for p in scan_browser_processes()}
    env = {**engine_env.env, "AGENT_BROWSER_EXECUTABLE_PATH": str(fake)}
    code, text = _doctor(env, tmp_path)
    assert code == 1, text
    assert f"{fake} (set by AGENT_BROWSER_EXECUTABLE_PATH)" in text
    assert "FAIL  smoke" in text
    assert "fix: point AGENT_BROWSER_EXECUTABLE_PATH at a working Chrome/Chromium" in text
    leftover = _started_since(baseline, engine_env.socket_dir)
    assert leftover == [], [p.describe() for p in leftover]
    left = [n for n in os.listdir(engine_env.socket_dir) if n.startswith("abt-doctor-")]
    assert left == [], "the smoke session's socket and pid files must be gone"
