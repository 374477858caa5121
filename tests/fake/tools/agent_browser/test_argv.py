"""The direct tool end to end against the fake engine: the exact argv the engine receives.

Every test goes through `BrowserTools.call("agent_browser", ...)` and reads what the fake
logged, so the planning rules are checked where they matter: at the process boundary. Rejected
inputs must spawn nothing at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine.discovery import clear_engine_cache
from agent_browser_tools.planning.sessions import managed_base_name
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.agent_browser.followups import TITLE_JS
from tests.support.fake import FakeEngine, fake_settings

CONVERSATION = "conv-argv-1"
MANAGED = managed_base_name(CONVERSATION)
PAGE = "https://a.test/"


@pytest.fixture(autouse=True)
def _fresh_engine_cache() -> Iterator[None]:
    """Each test resolves its own fake binary."""
    clear_engine_cache()
    yield
    clear_engine_cache()


def _settings(fake: FakeEngine, tmp_path: Path, **extra: str) -> Settings:
    return fake_settings(fake, tmp_path, **extra)


def _tools(fake: FakeEngine, tmp_path: Path, conversation: str = CONVERSATION) -> BrowserTools:
    """Tools on the fake engine, with discovery's own `--version` probe already done and
    forgotten, so `fake.calls()` holds exactly what the tool call spawned."""
    (tmp_path / "home").mkdir(exist_ok=True)
    tools = BrowserTools(
        settings=_settings(fake, tmp_path), conversation_id=conversation, cwd=tmp_path
    )
    assert tools.runtime.engine.path == str(fake.path)
    fake.reset()
    return tools


@pytest.fixture
def tools(fake_engine: FakeEngine, tmp_path: Path) -> BrowserTools:
    return _tools(fake_engine, tmp_path)


async def _call(tools: BrowserTools, params: dict[str, Any]) -> ToolResult:
    return await tools.call("agent_browser", params)


def _open_rule(fake: FakeEngine, url: str = PAGE, title: str = "Page A") -> None:
    fake.on({"command": ["open"]}, envelope={"data": {"url": url, "title": title}})


def _probe_rows(url: str, title: str) -> list[dict[str, Any]]:
    """The page scripts sent as one `eval`: the title and the click probe's counts (none:
    the fake page ran no probe), the answer naming the page's url."""
    scripts = json.dumps([{"v": title}, {"v": None}])
    said = {"result": scripts, "origin": url}  # the engine names the page with every answer
    return [{"command": ["eval"], "success": True, "result": said, "error": None}]


# --- exact argv of ordinary calls -------------------------------------------------------------


async def test_get_url_runs_with_json_and_the_managed_session(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": PAGE}})
    result = await _call(tools, {"args": ["get", "url"]})
    expected = ["--json", "--session", MANAGED, "get", "url"]
    assert fake_engine.argvs() == [expected]
    assert fake_engine.calls()[0]["stdin"] is None
    assert not result.is_error
    assert PAGE in result.text
    assert result.details["args"] == ["get", "url"]
    assert result.details["effectiveArgs"] == expected
    assert result.details["usedImplicitSession"] is True
    assert result.details["sessionName"] == MANAGED


async def test_explicit_session_is_used_as_given(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    result = await _call(tools, {"args": ["--session", "mine", "get", "title"]})
    assert fake_engine.argvs() == [["--json", "--session", "mine", "get", "title"]]
    assert result.details["usedImplicitSession"] is False
    assert result.details["sessionName"] == "mine"


async def test_root_env_gives_sub_agents_the_parents_session(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    (tmp_path / "home").mkdir()
    settings = _settings(fake_engine, tmp_path, AGENT_BROWSER_TOOLS_ROOT="parent-root")
    for conversation in ("parent", "child"):
        tools = BrowserTools(settings=settings, conversation_id=conversation, cwd=tmp_path)
        await _call(tools, {"args": ["get", "url"]})
    sessions = [argv[argv.index("--session") + 1] for argv in fake_engine.argvs()[-2:]]
    assert sessions == [managed_base_name("parent-root")] * 2


async def test_native_session_env_is_caller_owned(fake_engine: FakeEngine, tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    settings = _settings(fake_engine, tmp_path, AGENT_BROWSER_SESSION="from-env")
    tools = BrowserTools(settings=settings, conversation_id=CONVERSATION, cwd=tmp_path)
    result = await _call(tools, {"args": ["get", "url"]})
    assert fake_engine.argvs()[-1] == ["--json", "get", "url"]
    assert fake_engine.calls()[-1]["env"]["AGENT_BROWSER_SESSION"] == "from-env"  # type: ignore[index]
    assert result.details["usedImplicitSession"] is False
    assert result.details["sessionName"] == "from-env"


async def test_url_less_open_runs_get_url(tools: BrowserTools, fake_engine: FakeEngine) -> None:
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": "about:blank"}})
    result = await _call(tools, {"args": ["open"]})
    assert fake_engine.argvs() == [["--json", "--session", MANAGED, "get", "url"]]
    assert result.details["args"] == ["open"]
    assert result.details["effectiveArgs"] == ["--json", "--session", MANAGED, "get", "url"]
    assert result.details["command"] == "get url"


async def test_eval_stdin_tokens_are_sent_on_stdin(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    fake_engine.on({"command": ["eval"]}, envelope={"data": {"result": "Page A"}})
    result = await _call(tools, {"args": ["eval", "--stdin", "document.title"]})
    call = fake_engine.calls()[0]
    assert call["argv"] == ["--json", "--session", MANAGED, "eval", "--stdin"]
    # The script goes out behind the endpoint guard (planning/script_guard.py), on its line.
    stdin = str(call["stdin"])
    assert stdin.startswith("let{}=(()=>{const l=location;")
    assert stdin.endswith(";document.title") and "\n" not in stdin
    assert result.details["normalizedFrom"] == "eval-stdin-tokens"
    assert result.details["effectiveArgs"] == ["--json", "--session", MANAGED, "eval", "--stdin"]


async def test_batch_url_less_open_row_is_rewritten_in_stdin(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    rows = [
        {"command": ["get", "url"], "success": True, "result": {"url": PAGE}, "error": None},
        {"command": ["get", "title"], "success": True, "result": {"title": "A"}, "error": None},
    ]
    fake_engine.on({"command": ["batch"]}, json=rows[:1], times=1)  # one call per step
    fake_engine.on({"command": ["batch"]}, json=rows[1:])
    stdin = json.dumps([["open"], ["get", "title"]])
    result = await _call(tools, {"args": ["batch", "--bail"], "stdin": stdin})
    calls = [c for c in fake_engine.calls() if "batch" in str(c["argv"])]
    assert calls[0]["argv"] == ["--json", "--session", MANAGED, "batch", "--bail"]
    sent = [row for c in calls for row in json.loads(str(c["stdin"]))]
    assert sent == [["get", "url"], ["get", "title"]]
    assert not result.is_error


async def test_click_is_followed_by_one_url_title_probe(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    """Two helper batches in all: the click probe's install before (a CSS target has no
    marker to read back) and, after, one page script reading the title and collecting the
    probe, whose answer names the page's url."""
    _open_rule(fake_engine)
    fake_engine.on({"command": ["click"]}, envelope={"data": {"clicked": True}})
    fake_engine.on({"command": ["batch"]}, json=_probe_rows(PAGE + "next", "Next page"))
    await _call(tools, {"args": ["open", PAGE]})
    result = await _call(tools, {"args": ["click", "#go"]})
    calls = fake_engine.calls()
    assert [c["argv"] for c in calls] == [
        ["--json", "--session", MANAGED, "open", PAGE],
        ["--json", "--session", MANAGED, "batch"],
        ["--json", "--session", MANAGED, "click", "#go"],
        ["--json", "--session", MANAGED, "batch", "--bail"],
    ]
    (install,) = json.loads(str(calls[1]["stdin"]))
    assert install[0] == "eval"
    # The probe removes itself after the call's budget plus a 2 s grace if never collected.
    config = json.loads(install[1].split("const cfg = ", 1)[1].split(", w = window", 1)[0])
    budget = result.details["timeoutMs"] + tools.runtime.settings.process_timeout_ms
    assert config["ttl"] == budget + 2_000 and "xpath" not in config and "role" not in config
    after = json.loads(str(calls[3]["stdin"]))
    (scripts,) = after
    assert scripts[0] == "eval" and f"() => ({TITLE_JS})" in scripts[1]
    assert "__abtClickProbe" in scripts[1]
    assert result.details["navigationSummary"] == {
        "url": PAGE + "next",
        "title": "Next page",
        "urlChanged": True,
    }
    assert "Next page" in result.text


async def test_a_click_under_confirmation_settings_gets_no_page_probe(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    """The probe runs `eval`; under `--confirm-actions` it could queue a prompt of its own, so
    the click runs without one (only the url/title read-back follows, with the flag)."""
    _open_rule(fake_engine)
    fake_engine.on({"command": ["click"]}, envelope={"data": {"clicked": True}})
    fake_engine.on({"command": ["batch"]}, json=_probe_rows(PAGE, "Page"))
    await _call(tools, {"args": ["--confirm-actions", "eval", "open", PAGE]})
    fake_engine.reset()
    result = await _call(tools, {"args": ["--confirm-actions", "eval", "click", "#go"]})
    assert not result.is_error, result.text
    argvs = fake_engine.argvs()
    assert [argv[argv.index("--session") + 2 :][-2:] for argv in argvs] == [
        ["click", "#go"],
        ["batch", "--bail"],
    ]
    assert "--confirm-actions" in argvs[1]
    after = fake_engine.calls()[1]
    assert json.loads(str(after["stdin"])) == [["get", "url"], ["get", "title"]]


# --- sessionless and inspection -------------------------------------------------------------


async def test_version_gets_exactly_version(tools: BrowserTools, fake_engine: FakeEngine) -> None:
    result = await _call(tools, {"args": ["--version"]})
    assert fake_engine.argvs() == [["--version"]]
    assert result.text == "agent-browser 0.39.4\n"
    assert result.details["effectiveArgs"] == ["--version"]
    assert result.details["usedImplicitSession"] is False
    assert "sessionName" not in result.details
    assert not result.is_error


async def test_command_help_keeps_exact_argv(tools: BrowserTools, fake_engine: FakeEngine) -> None:
    fake_engine.on({"argv": ["open", "--help"]}, stdout="Usage: agent-browser open <url>\n")
    result = await _call(tools, {"args": ["open", "--help"]})
    assert fake_engine.argvs() == [["open", "--help"]]
    assert result.text == "Usage: agent-browser open <url>\n"


@pytest.mark.parametrize(
    ("args", "data"),
    [
        (["session", "list"], {"sessions": [{"name": "other"}]}),
        (["skills", "list"], {"skills": [{"name": "electron"}]}),
        (["auth", "list"], {"profiles": []}),
        (["device", "list"], {"devices": []}),
        (["state", "list"], {"files": []}),
    ],
)
async def test_sessionless_commands_get_no_session(
    tools: BrowserTools, fake_engine: FakeEngine, args: list[str], data: dict[str, Any]
) -> None:
    fake_engine.on({"command": args}, envelope={"data": data})
    result = await _call(tools, {"args": args})
    assert fake_engine.argvs() == [["--json", *args]]
    assert result.details["usedImplicitSession"] is False
    assert not result.is_error


# --- output mode ----------------------------------------------------------------------------


async def test_caller_json_output_is_parseable(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": PAGE}})
    result = await _call(tools, {"args": ["--json", "get", "url"]})
    assert fake_engine.argvs() == [["--session", MANAGED, "--json", "get", "url"]]
    visible = json.loads(result.text)
    assert visible["success"] is True
    assert visible["data"] == {"url": PAGE}


async def test_caller_json_true_output_is_parseable_on_failure(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    fake_engine.on({"command": ["get", "text"]}, envelope={"error": "Element not found: #nope"})
    result = await _call(tools, {"args": ["get", "text", "#nope", "--json", "true"]})
    assert fake_engine.argvs() == [["--session", MANAGED, "get", "text", "#nope", "--json", "true"]]
    visible = json.loads(result.text)
    assert visible["success"] is False
    assert "Element not found" in visible["error"]
    assert result.is_error


@pytest.mark.parametrize(
    "params",
    [
        {"args": ["--json", "open", PAGE, "&&", "snapshot", "-i"]},
        {"args": ["--json", "click", "#go"], "stdin": "x"},
        {"args": ["--json", "get", "url"], "script": "document.title"},
        {"args": ["get", "url", "--json", "--session=a"]},
    ],
)
async def test_caller_json_early_validation_failure_is_parseable(
    tools: BrowserTools, fake_engine: FakeEngine, params: dict[str, Any]
) -> None:
    result = await _call(tools, params)
    assert fake_engine.calls() == []
    visible = json.loads(result.text)
    assert visible["success"] is False
    assert visible["failureCategory"] == "validation-error"
    assert result.is_error


async def test_json_false_output_is_native_text_verbatim(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    native = "  https://a.test/\n\n"
    fake_engine.on({"command": ["get", "url"]}, stdout=native)
    result = await _call(tools, {"args": ["--json", "false", "get", "url"]})
    assert fake_engine.argvs() == [["--session", MANAGED, "--json", "false", "get", "url"]]
    assert result.text == native
    assert not result.is_error


async def test_last_json_occurrence_selects_text(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    native = '{"looks": "like json"}\n'
    fake_engine.on({"command": ["get", "title"]}, stdout=native)
    result = await _call(tools, {"args": ["--json", "get", "title", "--json", "false"]})
    assert fake_engine.argvs() == [
        ["--session", MANAGED, "--json", "get", "title", "--json", "false"]
    ]
    assert result.text == native


# --- rejected inputs spawn nothing --------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "fix"),
    [
        ({}, "missing required field `args`"),
        ({"args": []}, '{"args": ["snapshot", "-i"]}'),
        ({"args": [""]}, '["snapshot", "-i"]'),
        ({"args": ["get", "url"], "script": "document.title"}, "agent_browser_code"),
        ({"args": ["get", "url"], "job": {"steps": []}}, '["batch", "--bail"]'),
        ({"args": ["agent-browser", "open", PAGE]}, f'["open", "{PAGE}"]'),
        ({"args": ["open", PAGE, "&&", "snapshot", "-i"]}, '["batch", "--bail"]'),
        ({"args": ["open", PAGE, "--session=a"]}, '["--session", "a"]'),
        ({"args": ["--profile=Work", "open", PAGE]}, '["--profile", "Work"]'),
        ({"args": ["--no-sandbox", "open", PAGE]}, "serve --browser-arg"),
        ({"args": ["open", PAGE, "--no-sandbox"]}, "Chromium launch argument"),
        ({"args": ["--session-mode", "fresh", "open", PAGE]}, "sessionMode"),
        ({"args": ["click", "#go"], "stdin": "x"}, "remove the stdin field"),
        ({"args": ["eval", "--stdin"]}, '"stdin": "document.title"'),
        ({"args": ["batch"], "stdin": '[[""]]'}, "empty command"),
        ({"args": ["batch"], "stdin": '[["batch", "--bail"]]'}, "Flatten"),
        ({"args": ["batch"], "stdin": '[["--restore=k", "open", "x"]]'}, "before `batch`"),
        ({"args": ["batch"], "stdin": '[["--args", "--no-sandbox", "open", "x"]]'}, "outer call"),
        ({"args": ["batch"], "stdin": "open x"}, "JSON array of argv rows"),
        ({"args": ["get", "url"], "timeoutMs": 0}, "`timeoutMs`"),
        ({"args": ["get", "url"], "sessionMode": "new"}, "`sessionMode`"),
    ],
)
async def test_rejected_input_spawns_nothing_and_names_the_fix(
    tools: BrowserTools, fake_engine: FakeEngine, params: dict[str, Any], fix: str
) -> None:
    result = await _call(tools, params)
    assert fake_engine.calls() == []
    assert result.is_error
    assert result.details["failureCategory"] == "validation-error"
    assert fix in result.text
    assert fix in result.details["validationError"]


# --- fresh sessions ---------------------------------------------------------------------------


async def test_failed_fresh_launch_without_a_previous_session_is_abandoned(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    fake_engine.on({"command": ["open"]}, envelope={"error": "Chrome exited before CDP was ready"})
    result = await _call(tools, {"args": ["--headed", "open", PAGE], "sessionMode": "fresh"})
    argvs = fake_engine.argvs()
    fresh = argvs[0][2]
    assert fresh != MANAGED and fresh.startswith(MANAGED + "-")
    assert argvs[0] == ["--json", "--session", fresh, "--headed", "open", PAGE]
    assert argvs[1:] == [["--json", "--session", fresh, "close"]]  # best-effort cleanup
    assert result.is_error
    outcome = result.details["managedSessionOutcome"]
    assert outcome["outcome"] == "abandoned"
    assert outcome["session"] == fresh and outcome["previousSession"] is None
    assert "Managed session outcome:" in result.text
    assert result.details["sessionName"] == fresh
    # The abandoned name is not adopted: the next auto call uses the stable managed name.
    await _call(tools, {"args": ["get", "url"]})
    assert fake_engine.argvs()[-1] == ["--json", "--session", MANAGED, "get", "url"]


async def test_failed_fresh_launch_preserves_an_active_previous_session(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    fake_engine.on({"command": ["open", PAGE]}, envelope={"data": {"url": PAGE, "title": "A"}})
    fake_engine.on({"command": ["open"]}, envelope={"error": "launch failed"})
    await _call(tools, {"args": ["open", PAGE]})
    result = await _call(
        tools, {"args": ["--user-agent", "Bot", "open", "https://b.test/"], "sessionMode": "fresh"}
    )
    outcome = result.details["managedSessionOutcome"]
    assert outcome["outcome"] == "preserved" and outcome["previousSession"] == MANAGED
    assert "Managed session outcome:" in result.text and MANAGED in result.text
    await _call(tools, {"args": ["get", "url"]})
    assert fake_engine.argvs()[-1] == ["--json", "--session", MANAGED, "get", "url"]


async def test_successful_fresh_launch_replaces_and_closes_the_previous_session(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    _open_rule(fake_engine)
    await _call(tools, {"args": ["open", PAGE]})
    result = await _call(tools, {"args": ["--headed", "open", PAGE], "sessionMode": "fresh"})
    fresh = result.details["sessionName"]
    assert fresh.startswith(MANAGED + "-")
    assert result.details["managedSessionOutcome"]["outcome"] == "replaced"
    assert ["--json", "--session", MANAGED, "close"] in fake_engine.argvs()
    await _call(tools, {"args": ["get", "url"]})
    # The fresh browser's launch flags are repeated so the engine keeps its launch identity.
    assert fake_engine.argvs()[-1] == ["--json", "--session", fresh, "--headed", "get", "url"]


# --- launch-scoped flags ----------------------------------------------------------------------


async def test_launch_flag_on_first_call_is_passed_through(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    _open_rule(fake_engine)
    result = await _call(tools, {"args": ["--headed", "open", PAGE]})
    assert fake_engine.argvs() == [["--json", "--session", MANAGED, "--headed", "open", PAGE]]
    assert not result.is_error


async def test_launch_flag_is_rejected_once_the_implicit_session_is_active(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    _open_rule(fake_engine)
    first = await _call(tools, {"args": ["open", PAGE]})
    assert not first.is_error
    before = fake_engine.argvs()
    result = await _call(tools, {"args": ["--headed", "open", "https://b.test/"]})
    assert fake_engine.argvs() == before  # nothing new was spawned
    assert result.is_error
    assert result.details["failureCategory"] == "validation-error"
    assert 'sessionMode: "fresh"' in result.text
    # The same launch under fresh goes through.
    fresh = await _call(
        tools, {"args": ["--headed", "open", "https://b.test/"], "sessionMode": "fresh"}
    )
    assert not fresh.is_error
    assert fake_engine.argvs()[len(before)][3:] == ["--headed", "open", "https://b.test/"]
