"""file:// pages that can show other local files need the operator's `--allow-file-pages`."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.planning.argv_rules import check_argv
from agent_browser_tools.planning.file_access import FileRoots
from agent_browser_tools.planning.file_config import FileAccess
from agent_browser_tools.planning.file_policy import confine, shows_other_files
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.settings import Settings, SettingsError


@pytest.mark.parametrize(
    ("name", "shows"),
    [
        ("page.html", True),
        ("page.HTM", True),
        ("image.svg", True),
        ("feed.xml", True),
        ("no-suffix", True),
        ("notes.txt", False),
        ("data.JSON", False),
        ("shot.png", False),
        ("report.pdf", False),
    ],
)
def test_what_counts_as_a_page(tmp_path: Path, name: str, shows: bool) -> None:
    path = tmp_path / name
    path.write_text("x")
    assert shows_other_files(path) is shows


def test_a_folder_listing_links_its_parent(tmp_path: Path) -> None:
    assert shows_other_files(tmp_path)


def _open(tmp_path: Path, target: Path, *, file_pages: bool) -> None:
    roots = FileRoots(cwd=tmp_path, file_pages=file_pages)
    inp = AgentBrowserInput(args=["open", target.as_uri()])
    confine(inp, check_argv(inp.args, None), roots)


def test_refused_by_default_and_allowed_by_the_operator(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<iframe src='file:///etc/passwd'>")
    with pytest.raises(PolicyBlocked) as caught:
        _open(tmp_path, page, file_pages=False)
    assert caught.value.rule == "file-page" and caught.value.allow_with == "--allow-file-pages"
    _open(tmp_path, page, file_pages=True)
    notes = tmp_path / "notes.txt"
    notes.write_text("n")
    _open(tmp_path, notes, file_pages=False)


def test_the_switch_reads_env_and_config(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[files]\nallow_file_pages = true\n")
    env = {"HOME": str(tmp_path)}
    assert not FileAccess.from_settings(Settings.load(env=env, cwd=tmp_path)).file_pages
    on = Settings.load(env={**env, "AGENT_BROWSER_TOOLS_CONFIG": str(config)}, cwd=tmp_path)
    assert FileAccess.from_settings(on).file_pages
    off = {
        **env,
        "AGENT_BROWSER_TOOLS_CONFIG": str(config),
        "AGENT_BROWSER_TOOLS_ALLOW_FILE_PAGES": "0",
    }
    assert not FileAccess.from_settings(Settings.load(env=off, cwd=tmp_path)).file_pages
    bad = {**env, "AGENT_BROWSER_TOOLS_ALLOW_FILE_PAGES": "maybe"}
    with pytest.raises(SettingsError):
        FileAccess.from_settings(Settings.load(env=bad, cwd=tmp_path))
