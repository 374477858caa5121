"""The contract rows we deliberately differ from, each pinned at the process boundary.

The contract passes these through to the engine; this server refuses them to the model (the
operator's policy and the file roots of `README.md` "Security model"), or adds nothing where
the contract adds a Chrome switch. Each test checks the refusal the model sees (category,
`details.policy`, the words of the message) and that nothing reached the engine; the rows of
`docs/contract-coverage.md` that name them are `deviation`s.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine.discovery import clear_engine_cache
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fake import FakeEngine, fake_settings
from tests.support.tools import assert_policy_blocked

PAGE = "https://a.test/"


@pytest.fixture(autouse=True)
def _fresh_engine_cache() -> Iterator[None]:
    clear_engine_cache()
    yield
    clear_engine_cache()


def _tools(fake: FakeEngine, tmp_path: Path, **env: str) -> BrowserTools:
    (tmp_path / "home").mkdir(exist_ok=True)
    settings = fake_settings(fake, tmp_path, **env)
    tools = BrowserTools(settings=settings, conversation_id="conv-deviations", cwd=tmp_path)
    assert tools.runtime.engine.path == str(fake.path)
    fake.reset()
    return tools


async def _refused(
    tools: BrowserTools, fake: FakeEngine, params: dict[str, Any], rule: str, subject: str
) -> ToolResult:
    """`params` is refused by `rule` naming `subject`, in the text too, and spawns nothing."""
    result = await tools.call("agent_browser", params)
    assert_policy_blocked(result, rule, subject)
    assert "policy-blocked" in result.text
    assert fake.calls() == [], fake.argvs()
    return result


async def test_a_profile_launch_is_refused_even_on_a_fresh_session(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Row 70: the contract passes `--profile` through; here it is the operator's."""
    tools = _tools(fake_engine, tmp_path)
    params = {"args": ["--profile", "Default", "open", PAGE], "sessionMode": "fresh"}
    result = await _refused(tools, fake_engine, params, "operator-flag", "--profile")
    assert "--profile is set by the operator, not by the model" in result.text
    assert "serve --allow-model-flag=--profile" in result.text
    assert result.details["policy"]["allowWith"] == "--allow-model-flag=--profile"
    await tools.aclose()


@pytest.mark.parametrize(
    "flag",
    [
        ["--executable-path", "/usr/bin/chromium"],
        ["--ca-cert", "ca.pem"],
        ["--no-ca-cert"],
        ["--allowed-domains", "a.test"],
    ],
)
async def test_the_rows_launch_flags_are_the_operators_even_on_a_fresh_session(
    fake_engine: FakeEngine, tmp_path: Path, flag: list[str]
) -> None:
    """Row 71: refused before the fresh-launch rule is ever reached."""
    tools = _tools(fake_engine, tmp_path)
    params = {"args": [*flag, "open", PAGE], "sessionMode": "fresh"}
    result = await _refused(tools, fake_engine, params, "operator-flag", flag[0])
    assert f"{flag[0]} is set by the operator" in result.text
    await tools.aclose()


async def test_an_allowed_launch_flag_still_needs_a_fresh_managed_launch(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Row 71, once the operator allows `--allowed-domains`: on the running implicit session
    it is refused with the fresh-launch advice; with `sessionMode: "fresh"` it launches."""
    tools = _tools(fake_engine, tmp_path, AGENT_BROWSER_TOOLS_ALLOW_MODEL_FLAGS="--allowed-domains")
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": PAGE, "title": "A"}})
    assert not (await tools.call("agent_browser", {"args": ["open", PAGE]})).is_error
    before = fake_engine.argvs()
    args = ["--allowed-domains", "a.test", "open", PAGE]
    refused = await tools.call("agent_browser", {"args": args})
    assert refused.details["failureCategory"] == "validation-error", refused.text
    assert 'sessionMode: "fresh"' in refused.text
    assert fake_engine.argvs() == before
    fresh = await tools.call("agent_browser", {"args": args, "sessionMode": "fresh"})
    assert not fresh.is_error, fresh.text
    assert fake_engine.argvs()[len(before)][3:7] == ["--allowed-domains", "a.test", "open", PAGE]
    await tools.aclose()


async def test_the_idle_timeout_flag_is_the_operators(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Row 73: the model cannot pass `--idle-timeout` at all (the equality check is the
    operator's, `test_a_managed_idle_timeout_other_than_the_servers_is_refused...`)."""
    tools = _tools(fake_engine, tmp_path)
    params = {"args": ["--idle-timeout", "5m", "open", PAGE], "sessionMode": "fresh"}
    await _refused(tools, fake_engine, params, "operator-flag", "--idle-timeout")
    await tools.aclose()


async def test_an_action_policy_file_is_the_operators(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Row 50: `--action-policy` does not reach helpers because it never reaches a call."""
    tools = _tools(fake_engine, tmp_path)
    (tmp_path / "policy.json").write_text("{}")
    params = {"args": ["--action-policy", "policy.json", "get", "url"]}
    await _refused(tools, fake_engine, params, "operator-flag", "--action-policy")
    await tools.aclose()


async def test_mcp_is_the_operators_and_skills_get_stays_sessionless(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Row 61: `mcp --tools` would start another agent loop outside this policy."""
    tools = _tools(fake_engine, tmp_path)
    result = await _refused(
        tools, fake_engine, {"args": ["mcp", "--tools", "core"]}, "operator-command", "mcp"
    )
    assert "only the operator runs it" in result.text
    fake_engine.on({"command": ["skills", "get"]}, envelope={"data": {"name": "webmcp-gen"}})
    skill = await tools.call("agent_browser", {"args": ["skills", "get", "webmcp-gen"]})
    assert not skill.is_error, skill.text
    assert fake_engine.argvs() == [["--json", "skills", "get", "webmcp-gen"]]
    assert skill.details["usedImplicitSession"] is False
    await tools.aclose()


@pytest.mark.parametrize(
    "args",
    [
        ["dashboard", "start", "--port", "4848"],
        ["dashboard", "--port", "4848", "--allowed-origins", "http://x.test"],
        ["dashboard"],
    ],
)
async def test_the_dashboard_is_the_operators_in_every_spelling(
    fake_engine: FakeEngine, tmp_path: Path, args: list[str]
) -> None:
    """Row 62: a server port that reaches every browser of the user is not the model's."""
    tools = _tools(fake_engine, tmp_path)
    await _refused(tools, fake_engine, {"args": args}, "operator-command", "dashboard start")
    await tools.aclose()


@pytest.mark.parametrize(
    ("args", "rule", "subject"),
    [
        (["connect", "9222"], "operator-command", "connect"),
        (["--cdp", "9222", "get", "url"], "operator-flag", "--cdp"),
        (["--auto-connect", "get", "url"], "operator-flag", "--auto-connect"),
    ],
)
async def test_attaching_to_another_browser_is_the_operators(
    fake_engine: FakeEngine, tmp_path: Path, args: list[str], rule: str, subject: str
) -> None:
    """Row 87: attachments come from the operator (allowed flags, `cdp_url`), not the model."""
    tools = _tools(fake_engine, tmp_path)
    await _refused(tools, fake_engine, {"args": args}, rule, subject)
    await tools.aclose()


async def test_profiles_is_the_operators(fake_engine: FakeEngine, tmp_path: Path) -> None:
    """Row 49: `profiles` lists the user's own Chrome profiles: the operator's command."""
    tools = _tools(fake_engine, tmp_path)
    await _refused(tools, fake_engine, {"args": ["profiles"]}, "operator-command", "profiles")
    await tools.aclose()


async def test_an_output_path_outside_the_file_roots_is_refused(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Row 144: the contract writes an absolute outputPath as given; here only inside the
    roots (an absolute path inside them, and `@`-prefixed relative ones, are written)."""
    tools = _tools(fake_engine, tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}-elsewhere" / "out.json"
    params = {"args": ["get", "url"], "outputPath": str(outside)}
    result = await _refused(tools, fake_engine, params, "file-root", str(outside))
    assert "outputPath" in result.text
    assert not outside.exists()
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": PAGE}})
    inside = tmp_path / "out" / "url.json"
    inside.parent.mkdir()
    written = await tools.call("agent_browser", {"args": ["get", "url"], "outputPath": str(inside)})
    assert not written.is_error, written.text
    assert PAGE in inside.read_text()
    relative = await tools.call("agent_browser", {"args": ["get", "url"], "outputPath": "@r.json"})
    assert not relative.is_error, relative.text
    assert PAGE in (tmp_path / "r.json").read_text()
    await tools.aclose()


async def test_local_pages_and_session_paths_do_not_pass_through(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Row 74: the contract passes local file pages and any `--session` through; here a
    file:// page is refused (inside the roots: it can frame other files; outside: the roots),
    and a session name that is a path is refused (it would leave the conversation's dir)."""
    tools = _tools(fake_engine, tmp_path)
    page = tmp_path / "page.html"
    page.write_text("<iframe src='file:///etc/passwd'></iframe>")
    inside = await _refused(
        tools, fake_engine, {"args": ["open", page.as_uri()]}, "file-page", str(page)
    )
    assert "file:// pages are off on this server" in inside.text
    await _refused(
        tools, fake_engine, {"args": ["open", "file:///etc/hostname"]}, "file-root", "/etc/hostname"
    )
    await _refused(
        tools,
        fake_engine,
        {"args": ["--session", "../work", "get", "url"]},
        "session-name",
        "../work",
    )
    await tools.aclose()


async def test_a_headed_launch_gets_no_startup_window_switch_unless_the_operator_adds_it(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Row 63: the wrapper adds no `--args --no-startup-window`; Chrome switches are the
    operator's (`[browser] browser_arg`), and one set there reaches the launch."""
    tools = _tools(fake_engine, tmp_path)
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": PAGE, "title": "A"}})
    params = {"args": ["--headed", "open", PAGE], "sessionMode": "fresh"}
    assert not (await tools.call("agent_browser", params)).is_error
    for call in fake_engine.calls():
        env = call["env"]
        assert isinstance(env, dict)
        assert "--no-startup-window" not in env.get("AGENT_BROWSER_ARGS", "")
    assert not any("--no-startup-window" in " ".join(argv) for argv in fake_engine.argvs())
    await tools.aclose()

    config = tmp_path / "c.toml"
    config.write_text('[browser]\nbrowser_arg = ["--no-startup-window"]\n')
    operator = _tools(fake_engine, tmp_path, AGENT_BROWSER_TOOLS_CONFIG=str(config))
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": PAGE, "title": "A"}})
    assert not (await operator.call("agent_browser", params)).is_error
    launches = [c for c in fake_engine.calls() if "open" in c["argv"]]  # type: ignore[operator]
    env = launches[0]["env"]
    assert isinstance(env, dict) and "--no-startup-window" in env["AGENT_BROWSER_ARGS"]
    await operator.aclose()
