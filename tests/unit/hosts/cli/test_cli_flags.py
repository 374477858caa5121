"""The command line's flags say the truth and fail helpfully.

`--version` names ours and the engine's; unknown `serve --tools`/`--enable` names refuse the
start with exit 2 and the valid names; an unrecognized argument is reported with its
subcommand's usage; help texts match behaviour; the demo leaves no temp folder, even when it
fails. Nothing here starts a browser (the engine is a script that only prints a version).
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from agent_browser_tools import __version__
from agent_browser_tools.hosts.cli.main import main, parse_args
from agent_browser_tools.hosts.mcp.options import ServeRefused, resolve_options
from agent_browser_tools.hosts.mcp.tool_names import capability_names, tool_names
from agent_browser_tools.tools import catalog
from agent_browser_tools.tools.capabilities import ADVANCED
from tests.support.cli import cli_env, one_line, run_cli

ENGINE_ENV = "AGENT_BROWSER_TOOLS_BIN"


def _refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["serve", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return one_line(captured.err)


def test_an_unknown_tools_name_refuses_the_start_and_lists_the_valid_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = _refusal(capsys, "--tools", "agent_browser,agent_browsr")
    assert "--tools: unknown name(s) agent_browsr;" in line
    assert "valid names: " + ", ".join(tool_names()) in line


def test_an_unknown_enable_name_refuses_the_start_and_lists_the_capabilities(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = _refusal(capsys, "--enable", "qa,agent_browser_qa,actions")
    assert "--enable: unknown name(s) agent_browser_qa, actions;" in line
    assert "valid names: action, qa, electron, source, network." in line


def test_enabling_a_tool_the_allowlist_excludes_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = _refusal(capsys, "--tools", "agent_browser,agent_browser_tools", "--enable", "qa")
    assert "--enable qa: agent_browser_qa is not in the --tools allowlist" in line


def test_enable_names_reach_the_serve_options_in_order_without_repeats() -> None:
    options = resolve_options(
        http=False,
        host=None,
        port=None,
        token=None,
        tools="agent_browser,agent_browser_tools,agent_browser_qa,agent_browser_action",
        enable="qa, action,qa",
        conversation=None,
        env={},
    )
    assert options.enable == ("qa", "action")
    with pytest.raises(ServeRefused, match="unknown name"):
        resolve_options(
            http=True,
            host=None,
            port=None,
            token=None,
            tools=None,
            enable="x",
            conversation=None,
            env={},
        )


def test_the_checked_names_are_the_catalogs() -> None:
    """`--tools` names come from the front's recorded declarations: they must be every tool
    the catalog declares, and `--enable` names every capability `enable` takes."""
    assert tool_names() == tuple(spec.name for spec in catalog.declared(web_search=True))
    assert capability_names() == tuple(spec.capability for spec in ADVANCED if spec.capability)


def test_listed_at_start_includes_what_the_host_enables() -> None:
    from agent_browser_tools.settings import Settings

    settings = Settings.load(env={})
    names = [spec.name for spec in catalog.listed_at_start(settings, None, ("qa",))]
    assert "agent_browser_qa" in names and "agent_browser_action" not in names


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["serve", "--bogus"], "usage: agent-browser-tools serve "),
        (["call", "agent_browser", "{}", "extra"], "usage: agent-browser-tools call "),
        (["state", "list", "--nope"], "usage: agent-browser-tools state "),
        (["doctor", "--fast"], "usage: agent-browser-tools doctor "),
    ],
)
def test_an_unrecognized_argument_prints_its_subcommands_usage(
    capsys: pytest.CaptureFixture[str], argv: list[str], usage: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_args(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage)
    assert "error: unrecognized arguments: " + argv[-1] in err


def _fake_engine(tmp_path: Path, printed: str) -> Path:
    engine = tmp_path / "agent-browser"
    engine.write_text(f"#!/bin/sh\necho '{printed}'\n")
    engine.chmod(engine.stat().st_mode | stat.S_IXUSR)
    return engine


@pytest.mark.parametrize(
    ("printed", "support"),
    [
        ("0.39.7", "0.39.7 is not a supported engine (supported: 0.39.4, 0.41.2)"),
        ("0.41.2", "supported"),
    ],
)
def test_version_prints_ours_and_the_engines_and_whether_it_is_supported(
    printed: str,
    support: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from agent_browser_tools.engine.discovery import clear_engine_cache

    clear_engine_cache()
    engine = _fake_engine(tmp_path, f"agent-browser {printed}")
    monkeypatch.setenv(ENGINE_ENV, str(engine))
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"agent-browser-tools {__version__}"
    assert lines[1].startswith(f"engine: agent-browser {printed} (explicit: {engine}), {support}")


def test_version_without_an_engine_says_so_and_still_exits_0(tmp_path: Path) -> None:
    done = run_cli(["--version"], cli_env(tmp_path))
    assert done.returncode == 0, done.stderr
    ours, engine = done.stdout.splitlines()
    assert ours == f"agent-browser-tools {__version__}"
    assert engine.startswith("engine: not usable: ") and "no-engine-here" in engine


def test_call_help_names_the_real_default_conversation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        parse_args(["call", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "shares the conversation 'cli'" in help_text
    assert "new one" not in help_text


def test_a_failing_demo_leaves_no_temp_folder(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    folder = tmp_path / "config" / "agent-browser-tools"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text("this is [not toml\n")
    done = run_cli(["demo"], env)
    assert done.returncode == 2
    assert list((tmp_path / "tmp").glob("abt-demo-*")) == []
