"""`agent-browser-tools doctor`: passes on this machine, fails with a remedy when it should."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent_browser_tools.engine.discovery import clear_engine_cache, wheel_binary
from agent_browser_tools.hosts.cli.doctor import run_doctor
from agent_browser_tools.settings import Settings
from tests.support.real_engine import EngineEnv

pytestmark = pytest.mark.real_engine


@pytest.fixture(autouse=True)
def _fresh_engine_cache() -> None:
    clear_engine_cache()


def _doctor(env: dict[str, str], tmp_path: Path) -> tuple[int, str]:
    settings = Settings.load(
        env={**env, "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state")}, cwd=tmp_path
    )
    out = io.StringIO()
    code = run_doctor(settings, out)
    return code, out.getvalue()


def test_doctor_passes_here_with_a_live_smoke(engine_env: EngineEnv, tmp_path: Path) -> None:
    code, text = _doctor(engine_env.env, tmp_path)
    assert code == 0, text
    assert "engine" in text and "0.39.4" in text and "(wheel)" in text
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
