"""`scripts/setup.sh`, run in a scratch tree whose `.venv/bin/python` only records how it was
called: what each mode runs, the duration it announces first, the install that writes no
`build/` or `*.egg-info` into the tree, and the refusal of a mode it does not know."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "scripts" / "setup.sh"
USAGE = "usage: bash scripts/setup.sh [demo|test [unit]|install]\n"

#: Stands in for the venv's python: one line per call (argv, then the extra setuptools config
#: the install was given and that file's text).
RECORDER = """#!/bin/sh
{ echo "$*"; echo "config=${DIST_EXTRA_CONFIG:-}"; cat "${DIST_EXTRA_CONFIG:-/dev/null}"; } \\
  >>"$(dirname "$0")/../../calls.log"
"""


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "setup.sh").write_text(SETUP.read_text())
    # The grid installer stands in as a line in the log (it would fetch and apt-install).
    grid = tmp_path / "scripts" / "selenium_grid.sh"
    grid.write_text('echo "selenium_grid.sh $*" >>"$(dirname "$0")/../calls.log"\n')
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(RECORDER)
    python.chmod(0o755)
    return tmp_path


def _setup(tree: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    # A browser "found", so no package manager is asked for one.
    env = {**os.environ, "AGENT_BROWSER_EXECUTABLE_PATH": "/bin/true"}
    return subprocess.run(
        ["bash", str(tree / "scripts" / "setup.sh"), *argv],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env=env,
    )


@pytest.mark.parametrize(
    ("argv", "runs", "said"),
    [
        ([], "-m pytest -q", "the whole suite takes about 20 minutes"),
        (["test"], "-m pytest -q", "the whole suite takes about 20 minutes"),
        (["test", "unit"], "-m pytest -q tests/unit", "the unit tests (tests/unit) take under"),
    ],
)
def test_the_tests_it_runs_and_the_time_it_announces(
    argv: list[str], runs: str, said: str, tmp_path: Path
) -> None:
    tree = _tree(tmp_path)
    done = _setup(tree, *argv)
    assert done.returncode == 0, done
    assert done.stderr.startswith("setup: ") and said in done.stderr, done.stderr
    calls = (tree / "calls.log").read_text().splitlines()
    assert calls[0].startswith("-m pip install") and calls[0].endswith("-e .[dev]")
    assert calls[1].startswith("config=/")  # the install got its scratch config
    assert calls[-2:] == [runs, "config="]  # the tests run without the install's config
    # The whole suite starts a Selenium Grid; the unit tests need none.
    assert ("selenium_grid.sh install" in calls) == (argv != ["test", "unit"])
    if argv != ["test", "unit"]:
        assert "'bash scripts/setup.sh test unit'" in done.stderr  # the quick subset is named


def test_the_install_keeps_build_output_out_of_the_tree(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    assert _setup(tree, "install").returncode == 0
    calls = (tree / "calls.log").read_text().splitlines()
    # The package install (argv, config path, its four lines), then the grid's.
    assert len(calls) == 7 and calls[6] == "selenium_grid.sh install", calls
    scratch = Path(calls[1].removeprefix("config=")).parent
    assert calls[2:6] == [
        "[egg_info]",
        f"egg_base = {scratch}",
        "[build]",
        f"build_base = {scratch}/build",
    ]
    assert not scratch.is_relative_to(tree) and not scratch.exists()  # removed afterwards
    assert sorted(p.name for p in tree.iterdir()) == [".venv", "calls.log", "scripts"]


@pytest.mark.parametrize("argv", [["bogus"], ["test", "everything"], ["demo", "unit"]])
def test_an_unknown_mode_or_subset_is_refused_before_any_install(
    argv: list[str], tmp_path: Path
) -> None:
    tree = _tree(tmp_path)
    done = _setup(tree, *argv)
    assert done.returncode == 2, done
    assert done.stderr == USAGE
    assert not (tree / "calls.log").exists()


def test_ci_runs_the_whole_suite() -> None:
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    runs = [line for line in lines if line.startswith("bash scripts/setup.sh test")]
    assert runs == ["bash scripts/setup.sh test"]
