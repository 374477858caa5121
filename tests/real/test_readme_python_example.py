"""The README's Python API example runs as written against the real engine and Chromium.

Only its URL is swapped: for the local fixture site (tests have no internet), for a closed
local port (the page cannot load) and for a fixture page that leaves for that port once it
has loaded (the tab ends on Chromium's error page). It runs in a child process with the test's
private engine socket and state dirs, and closes its own browser. The example must exit 0 only
when it read the page it opened: a host that copies it must not take an error page for one.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fixture_server import FixtureServer
from tests.support.readme import block_after
from tests.support.real_engine import EngineEnv

SRC = Path(__file__).resolve().parents[2] / "src"
EXAMPLE_URL = "https://example.com"


def _run_example(
    url: str, engine_env: EngineEnv, tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    block = block_after("### Python", "python")
    assert EXAMPLE_URL in block.body
    env = {
        **engine_env.env,
        "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
        "PYTHONPATH": str(SRC),
    }
    return subprocess.run(
        [sys.executable, "-c", block.body.replace(EXAMPLE_URL, url)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A local port that refuses connections: bound (so nothing else takes it), not listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


def test_the_python_api_example_runs(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    url = fixture_site.url("/tabs.html")
    done = _run_example(url, engine_env, tmp_path)
    assert done.returncode == 0, done.stderr
    text, _, details = done.stdout.partition("\n{")
    assert text.startswith("Snapshot: ") and url in text, done.stdout
    assert "'refs': {" in details, done.stdout  # print(snap.details["refSnapshot"])


def test_the_example_exits_non_zero_when_the_page_cannot_load(
    engine_env: EngineEnv, closed_port: int, tmp_path: Path
) -> None:
    done = _run_example(f"http://127.0.0.1:{closed_port}/", engine_env, tmp_path)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stdout == ""  # nothing printed as if it were the page
    assert done.stderr.startswith("open failed:\n"), done.stderr
    assert "ERR_CONNECTION_REFUSED" in done.stderr, done.stderr


def test_the_example_exits_non_zero_on_chromium_s_error_page(
    engine_env: EngineEnv, fixture_site: FixtureServer, closed_port: int, tmp_path: Path
) -> None:
    """`open` succeeded (the page loaded), then the page left for an unreachable URL: the
    snapshot reads `chrome-error://chromewebdata/`, which is no page to read either."""
    url = fixture_site.url(f"/leave.html?to=http://127.0.0.1:{closed_port}/")
    done = _run_example(url, engine_env, tmp_path)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stdout == ""
    # Which call saw the failure depends on how far the page had gone when `open` returned;
    # either way the example says so and prints no page.
    if not done.stderr.startswith("open failed:\n"):
        assert done.stderr.startswith("no page to read:\n"), done.stderr
        assert "chrome-error://chromewebdata/" in done.stderr, done.stderr
