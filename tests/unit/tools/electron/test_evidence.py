"""The Electron evidence check and app discovery on real files (nothing is executed)."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest

from agent_browser_tools.tools.electron.discovery import (
    Roots,
    desktop_entry,
    desktop_program,
    discover,
    sensitivity,
)
from agent_browser_tools.tools.electron.evidence import (
    MARKER,
    NotElectron,
    app_for_executable,
    app_for_folder,
)

FIXTURE_APP = Path(__file__).parents[3] / "fixtures" / "electron_app"


def _exe(path: Path, body: bytes = b"#!/bin/sh\nexit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def fake_app(folder: Path, name: str, *, main: bool = True) -> Path:
    package = folder / "resources" / "app" / "package.json"
    package.parent.mkdir(parents=True)
    package.write_text(json.dumps({"productName": name, **({"main": "main.js"} if main else {})}))
    return _exe(folder / folder.name)


def test_the_stand_in_fixture_passes_on_its_layout() -> None:
    app = app_for_folder(FIXTURE_APP)
    assert app.executable.name == "standin-app"
    assert app.evidence == ("resources/app/package.json main",)
    assert app.name == "ABT Stand-in App"


@pytest.mark.parametrize("path", ["/bin/sh", "/usr/bin/chromium", "/usr/lib/chromium/chromium"])
def test_shell_and_plain_chromium_show_no_evidence(path: str) -> None:
    if not Path(path).exists():
        pytest.skip(f"{path} is not installed")
    with pytest.raises(NotElectron, match="no Electron evidence"):
        app_for_executable(Path(path))


def test_a_package_without_main_a_non_executable_and_a_folder_without_an_app_fail(
    tmp_path: Path,
) -> None:
    with pytest.raises(NotElectron):
        app_for_executable(fake_app(tmp_path / "nomain", "x", main=False))
    plain = tmp_path / "download.bin"
    plain.write_bytes(b"#!/bin/sh\n")  # a download is never executable
    with pytest.raises(NotElectron, match="not an executable"):
        app_for_executable(plain)
    two = tmp_path / "two"
    fake_app(two, "two").rename(two / "alpha")
    _exe(two / "beta")
    with pytest.raises(NotElectron, match=r"found: alpha, beta\); give executablePath"):
        app_for_folder(two)
    _exe(two / "two")  # the one named like its folder is the app
    assert app_for_folder(two).executable == two / "two"


def test_asar_layout_a_bin_launcher_and_the_binary_marker_count(tmp_path: Path) -> None:
    asar = tmp_path / "code"
    (asar / "resources").mkdir(parents=True)
    (asar / "resources" / "app.asar").write_bytes(b"asar")
    binary = _exe(asar / "code")
    launcher = _exe(asar / "bin" / "code")
    assert app_for_executable(launcher).executable == binary  # bin/code -> the app binary
    marked = _exe(tmp_path / "elf" / "app", b"\x7fELF" + b"\0" * 100 + MARKER + b"\0")
    assert app_for_executable(marked).evidence == (f"binary marker {MARKER.decode()}",)
    script = _exe(tmp_path / "script" / "app", b"#!/bin/sh\n# " + MARKER + b"\n")
    with pytest.raises(NotElectron):
        app_for_executable(script)  # the marker only counts in a native executable


def test_discovery_is_bounded_filtered_and_annotated(tmp_path: Path) -> None:
    root = tmp_path / "opt"
    for index in range(5):
        fake_app(root / f"app{index}", f"App {index}")
    fake_app(root / "vendor" / "slack", "Slack")  # two levels down
    (root / "notanapp").mkdir()
    roots = Roots(folders=(root,), desktop_dirs=())
    every = discover(roots, None, 200)
    assert sorted(a.name for a in every.apps) == [*(f"App {i}" for i in range(5)), "Slack"]
    assert not every.truncated
    bounded = discover(roots, None, 3)
    assert len(bounded.apps) == 3 and bounded.truncated
    (slack,) = discover(roots, "SLACK", 50).apps
    assert sensitivity(slack) == "likely sensitive (slack)"
    assert sensitivity(every.apps[0]) is None


def test_desktop_files_lead_to_their_app(tmp_path: Path) -> None:
    app = tmp_path / "apps" / "standin"
    shutil.copytree(FIXTURE_APP, app)
    desktop = tmp_path / "applications"
    desktop.mkdir()
    exe = app / "standin-app"
    (desktop / "org.example.Standin.desktop").write_text(
        f"[Desktop Entry]\nName=Stand-in\nExec=env A=1 {exe} %U\n[Desktop Action new]\nExec=x\n"
    )
    (desktop / "shell.desktop").write_text("[Desktop Entry]\nName=Shell\nExec=/bin/sh\n")
    (found,) = discover(Roots(folders=(), desktop_dirs=(desktop,)), None, 50).apps
    assert (found.name, found.app_id, found.executable) == ("Stand-in", "org.example.Standin", exe)
    entry = desktop_entry('[Desktop Entry]\nExec="/opt/My App/app" --x %F\nName=A\n')
    assert desktop_program(entry) == "/opt/My App/app"
