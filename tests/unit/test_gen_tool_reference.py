"""The README's tools table is generated from the tool specs and must be in sync."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gen_tool_reference.py"


def _check(*extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--check", *extra],
        capture_output=True,
        text=True,
        check=False,
    )


def test_readme_tools_table_is_in_sync() -> None:
    done = _check()
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_stale_table_fails_the_check_with_a_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    import gen_tool_reference as gen

    readme = gen.README.read_text(encoding="utf-8")
    stale = readme.replace("| `agent_browser` | Browser |", "| `agent_browser` | Old |")
    assert stale != readme
    copy = tmp_path / "README.md"
    copy.write_text(stale, encoding="utf-8")
    monkeypatch.setattr(gen, "README", copy)
    assert gen.main(["--check"]) == 1
    assert "-| `agent_browser` | Old |" in capsys.readouterr().out
    assert gen.main([]) == 0 and copy.read_text(encoding="utf-8") == readme
    assert gen.main(["--check"]) == 0
