"""A headless Chromium the test starts itself, with an OS-chosen DevTools port.

It stands in for a browser that is not the wrapper's (a user's browser attached with `--cdp`,
or a remote browser behind `cdp_url`): the tests check that the tools drive it and never stop
it. It is always killed (its whole process group) when the context ends, even when the test
failed, so the suite's leak guard finds nothing left.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.real_engine import EngineEnv


@contextlib.contextmanager
def own_chromium(
    engine_env: EngineEnv, profile: Path
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """(the Chromium process, its DevTools port); skips the test when there is no Chromium."""
    exe = engine_env.env.get("AGENT_BROWSER_EXECUTABLE_PATH") or next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None
    )
    if exe is None:
        message = "no Chromium to stand in for a browser that is not ours"
        if os.environ.get("CI"):  # scripts/setup.sh installs one: a failure there
            pytest.fail(message)
        pytest.skip(message)
    argv = [
        exe,
        "--headless=new",
        "--no-sandbox",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--remote-debugging-port=0",
        "about:blank",
    ]
    chrome = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        active = profile / "DevToolsActivePort"
        for _ in range(100):
            if active.is_file() and active.read_text().strip():
                break
            time.sleep(0.1)
        yield chrome, int(active.read_text().splitlines()[0])
    finally:
        os.killpg(chrome.pid, signal.SIGKILL)
        chrome.wait(timeout=10)
