"""`serve --shared-session NAME`: parsed, passed on, and checked before the server listens."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.hosts.cli.main import main as cli_main
from agent_browser_tools.hosts.mcp import serve
from agent_browser_tools.hosts.mcp.options import ServeOptions, resolve_options


def test_the_flag_is_repeatable_and_reaches_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[ServeOptions] = []

    def record(options: ServeOptions) -> int:
        seen.append(options)
        return 0

    monkeypatch.setattr(serve, "run", record)
    argv = ["serve", "--http", "--shared-session", "work", "--shared-session", "qa"]
    assert cli_main(argv) == 0
    assert seen[0].shared_sessions == ("work", "qa")
    assert seen[0].http
    plain = resolve_options(
        http=False, host=None, port=None, token=None, tools=None, conversation=None, env={}
    )
    assert plain.shared_sessions == ()


@pytest.mark.parametrize(
    ("options", "config", "expected"),
    [
        (ServeOptions(shared_sessions=("../work",)), "", "not a shareable session name"),
        (ServeOptions(), '[isolation]\nshared_sessions = ["abt-x"]\n', "shareable"),
        (ServeOptions(), "[isolation]\nshared_sessions = 1\n", "list of strings"),
    ],
)
def test_bad_isolation_settings_stop_the_server_before_it_listens(
    options: ServeOptions,
    config: str,
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("AGENT_BROWSER_TOOLS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("AGENT_BROWSER_TOOLS_PROJECT_CONFIG", "0")
    if config:
        (tmp_path / "c.toml").write_text(config)
        monkeypatch.setenv("AGENT_BROWSER_TOOLS_CONFIG", str(tmp_path / "c.toml"))

    async def never(*_args: object) -> int:
        raise AssertionError("the server must not start")

    monkeypatch.setattr(serve, "_serve", never)
    assert serve.run(options) == 2
    assert expected in capsys.readouterr().err
