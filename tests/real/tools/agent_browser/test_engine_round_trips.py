"""Engine processes per call, counted by a shim around the real engine binary (issue 31).

Every engine process the tools start is one spawn of `AGENT_BROWSER_TOOLS_BIN`; the shim logs
each and execs the real binary (real engine, real Chromium). On a small page: a ref click and a
ref fill are a pre-dispatch batch, the action and a post-action batch (3); `get url` is the
engine alone (1); `snapshot -i` is the page's change-log mark and the snapshot (2).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, ref_for, tools_settings

pytestmark = pytest.mark.real_engine

LIMITS = {"ref click": 3, "ref fill": 3, "ref type": 3, "get url": 1, "snapshot -i": 2}


def _shim(tmp_path: Path, real: Path) -> tuple[Path, Path]:
    log = tmp_path / "spawns.log"
    shim = tmp_path / "agent-browser-shim"
    shim.write_text(
        f'#!/bin/sh\necho spawn >> {shlex.quote(str(log))}\nexec {shlex.quote(str(real))} "$@"\n'
    )
    shim.chmod(0o755)
    return shim, log


async def test_a_ref_action_is_three_engine_processes(
    engine_env: EngineEnv, tmp_path: Path, fixture_site: FixtureServer
) -> None:
    shim, log = _shim(tmp_path, engine_env.binary)
    settings = tools_settings(engine_env, tmp_path / "state", AGENT_BROWSER_TOOLS_BIN=str(shim))
    tools = BrowserTools(settings=settings, cwd=tmp_path)
    try:
        assert not (await ab(tools, "open", fixture_site.url("effects.html"))).is_error
        snap = await ab(tools, "snapshot", "-i")
        name = ref_for(snap, "textbox", "Display name")
        calls = {
            "ref click": ["click", name],
            "ref fill": ["fill", name, "Ada Lovelace"],
            "ref type": ["type", name, " King"],
            "get url": ["get", "url"],
            "snapshot -i": ["snapshot", "-i"],
        }
        counts: dict[str, int] = {}
        for label, args in calls.items():
            before = len(log.read_text().splitlines())
            result = await ab(tools, *args)
            assert not result.is_error, (label, result.text)
            counts[label] = len(log.read_text().splitlines()) - before
    finally:
        await tools.aclose()
    assert all(counts[k] <= LIMITS[k] for k in LIMITS), counts
    assert counts["ref fill"] == 3, "the credential-field reads ride in the identity batch"
