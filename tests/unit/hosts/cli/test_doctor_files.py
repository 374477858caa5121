"""`doctor` states the file-access mode: the roots, or unrestricted as a note to the operator."""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.hosts.cli.doctor import _files_check
from agent_browser_tools.settings import Settings


def _settings(tmp_path: Path, **env: str) -> Settings:
    base = {"HOME": str(tmp_path / "home"), "AGENT_BROWSER_TOOLS_CWD": str(tmp_path)}
    return Settings.load(env={**base, **env}, cwd=tmp_path)


def test_doctor_names_the_roots(tmp_path: Path) -> None:
    check = _files_check(_settings(tmp_path, AGENT_BROWSER_TOOLS_FILE_ROOTS="/srv/shared"))
    assert check.ok and not check.warn
    assert check.message.startswith(f"roots {tmp_path}, /srv/shared plus the MCP client's roots")


def test_doctor_flags_unrestricted_access(tmp_path: Path) -> None:
    settings = _settings(tmp_path, AGENT_BROWSER_TOOLS_ALLOW_UNRESTRICTED_FILE_ACCESS="1")
    check = _files_check(settings)
    assert check.ok and check.warn
    assert "unrestricted" in check.message and str(settings.state_dir) in check.message


def test_doctor_fails_on_a_bad_setting(tmp_path: Path) -> None:
    check = _files_check(
        _settings(tmp_path, AGENT_BROWSER_TOOLS_ALLOW_UNRESTRICTED_FILE_ACCESS="perhaps")
    )
    assert not check.ok and check.remedy
