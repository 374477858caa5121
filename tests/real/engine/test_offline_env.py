"""The engine never reaches the internet on its own: every child runs with
`AGENT_BROWSER_NO_VERSION_CHECK=1` (real).

Why a test from the child's side: from 0.41 the engine fetches a Chrome release feed when it
starts unless that variable is set, so "nothing leaves the machine but the pages you open"
holds only if every engine process, and the daemon it starts, really has it. Read here from
`/proc/<pid>/environ` of the live daemon, whatever the operator's own environment says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine import discovery
from agent_browser_tools.engine.discovery import EngineBinary, read_engine_version
from agent_browser_tools.engine.environment import OFFLINE_ENV
from agent_browser_tools.engine.runner import QuickOutcome, run_engine_quick
from agent_browser_tools.state.models import SessionKey
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, tools_settings

pytestmark = pytest.mark.real_engine


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.partition(b"=") for item in raw.split(b"\0") if item)
    return {key.decode(): value.decode(errors="replace") for key, _, value in pairs}


async def test_the_daemon_of_a_call_runs_with_the_version_check_off(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    # The operator's own environment asks for the check: the wrapper's rule wins.
    settings = tools_settings(engine_env, tmp_path / "state", AGENT_BROWSER_NO_VERSION_CHECK="0")
    tools = BrowserTools(settings=settings, cwd=tmp_path)
    try:
        opened = await ab(tools, "open", fixture_site.url("form.html"))
        assert not opened.is_error, opened.text
        key = SessionKey(session=str(opened.details["sessionName"]))
        pid = tools.runtime.log.state.session(key).daemon_pid
        assert pid is not None
        assert _environ(pid)["AGENT_BROWSER_NO_VERSION_CHECK"] == "1"
        assert tools.runtime.env_for(key).items() >= OFFLINE_ENV.items()
    finally:
        await tools.aclose()


def test_the_version_read_runs_with_the_version_check_off(
    engine_env: EngineEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--version` runs before any settings exist: it gets the rule from `offline`."""
    monkeypatch.setenv("AGENT_BROWSER_NO_VERSION_CHECK", "0")
    seen: list[Mapping[str, str] | None] = []
    real = run_engine_quick

    def recording(
        argv: Sequence[str], *, timeout_s: float, env: dict[str, str] | None = None
    ) -> QuickOutcome:
        seen.append(env)
        return real(argv, timeout_s=timeout_s, env=env)

    monkeypatch.setattr(discovery, "run_engine_quick", recording)
    found = read_engine_version(EngineBinary(path=str(engine_env.binary), source="explicit"))
    assert found.version is not None
    assert [env and env.get("AGENT_BROWSER_NO_VERSION_CHECK") for env in seen] == ["1"]
