"""The README's Python API example runs as written against the real engine and Chromium.

Only its URL is swapped for the local fixture site (tests have no internet); it runs in a child
process with the test's private engine socket and state dirs, and closes its own browser.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.fixture_server import FixtureServer
from tests.support.readme import block_after
from tests.support.real_engine import EngineEnv

SRC = Path(__file__).resolve().parents[2] / "src"


def test_the_python_api_example_runs(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    block = block_after("### Python", "python")
    assert "https://example.com" in block.body
    url = fixture_site.url("/tabs.html")
    code = block.body.replace("https://example.com", url)
    env = {
        **engine_env.env,
        "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
        "PYTHONPATH": str(SRC),
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    text, _, details = done.stdout.partition("\n{")
    assert text.startswith("Snapshot: ") and url in text, done.stdout
    assert "'refs': {" in details, done.stdout  # print(snap.details["refSnapshot"])
