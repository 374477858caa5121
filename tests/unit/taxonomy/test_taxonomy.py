"""The command taxonomy: coverage of the engine's documented surface, grammar and rule facts.

Coverage tests run the real engine binary's `--help` (it needs no browser and answers in
milliseconds) and fail naming every command path the table does not account for; on an engine
upgrade, re-run `scripts/extract_engine_commands.py` and extend `taxonomy/commands.py` (commands)
or `taxonomy/global_flags.py` (global flags).
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_browser_tools.taxonomy import (
    ArtifactKind,
    CommandMatch,
    CommandSpec,
    FlagValue,
    PageEffect,
    SessionNeed,
    TimeoutFamily,
    all_commands,
    all_global_flags,
    command,
    global_flag,
    inventory,
    resolve_command,
    split_global_flags,
)

ENGINE_VERSION = "0.39.4"
REFERENCE = Path(__file__).resolve().parents[2] / "fixtures" / "engine_reference"
HELP_FIXTURE = REFERENCE / f"help-{ENGINE_VERSION}.txt"
SKILLS_FIXTURE = REFERENCE / f"skills-commands-{ENGINE_VERSION}.txt"

# The contract's launch-scoped list, verbatim (`-p` is the short form of `--provider`).
CONTRACT_LAUNCH_SCOPED = {
    "--auto-connect", "--allowed-domains", "--namespace", "--cdp", "--ca-cert", "--no-ca-cert",
    "--enable", "--executable-path", "--webgpu", "--no-webmcp", "--init-script", "--idle-timeout",
    "--args", "--user-agent", "--headed", "--device", "--profile", "--provider", "--session-name",
    "--restore", "--restore-save", "--restore-check-url", "--restore-check-text",
    "--restore-check-fn", "--state",
}  # fmt: skip


def _engine() -> str:
    try:
        import agent_browser  # type: ignore[import-untyped]

        path = str(agent_browser.get_cli_binary_path())
    except ImportError:
        path = shutil.which("agent-browser") or ""
    if not path or not Path(path).is_file():
        pytest.fail("agent-browser engine not found: install the pinned agent-browser-cli wheel")
    return path


def _help(*words: str) -> str:
    result = subprocess.run(
        [_engine(), *words, "--help"], capture_output=True, text=True, timeout=30, check=False
    )
    return result.stdout


def _assert_covered(paths: set[inventory.Path], source: str) -> None:
    missing = inventory.uncovered(paths)
    assert not missing, (
        f"{len(missing)} command path(s) from {source} are not in the taxonomy table "
        "(add rows to src/agent_browser_tools/taxonomy/commands.py):\n  "
        + "\n  ".join(" ".join(path) for path in missing)
    )


def _names(predicate: Callable[[CommandSpec], bool]) -> set[str]:
    return {spec.name for spec in all_commands() if predicate(spec)}


def _spec(path: str) -> CommandSpec:
    spec = command(path.split())
    assert spec is not None, path
    return spec


def _match(*argv: str) -> CommandMatch:
    match = resolve_command(argv)
    assert match is not None, argv
    return match


# --- coverage --------------------------------------------------------------------------------


def test_live_engine_help_is_covered() -> None:
    paths = inventory.help_command_paths(_help())
    assert len(paths) > 100, "the --help parser found suspiciously few commands"
    _assert_covered(paths, "the live engine's --help")


def test_live_engine_per_command_help_is_covered() -> None:
    spellings = [(spec.path, *spec.aliases) for spec in all_commands() if spec.cli_available]
    heads = sorted({path[0] for paths in spellings for path in paths})
    paths: set[inventory.Path] = set()
    for head in heads:
        paths |= inventory.command_help_paths(head, _help(head))
    assert ("state", "rename") in paths and ("storage", "session", "set") in paths
    _assert_covered(paths, "the live engine's `<command> --help` output")


def test_stored_help_fixture_is_covered_and_current() -> None:
    stored = HELP_FIXTURE.read_text(encoding="utf-8")
    _assert_covered(inventory.help_command_paths(stored), HELP_FIXTURE.name)
    version = subprocess.run(
        [_engine(), "--version"], capture_output=True, text=True, timeout=30, check=False
    ).stdout
    if ENGINE_VERSION in version:
        assert _help() == stored, f"{HELP_FIXTURE.name} differs from the live engine's --help"


def test_stored_skills_reference_is_covered() -> None:
    paths = inventory.parse_paths(SKILLS_FIXTURE.read_text(encoding="utf-8"))
    assert len(paths) > 100
    _assert_covered(paths, SKILLS_FIXTURE.name)


def test_every_table_path_resolves_to_itself() -> None:
    for spec in all_commands():
        if spec.synthetic:
            continue
        for path in (spec.path, *spec.aliases):
            match = resolve_command(path)
            assert match is not None and match.spec is spec, path


def test_no_path_or_flag_is_listed_twice() -> None:
    paths = Counter(path for spec in all_commands() for path in (spec.path, *spec.aliases))
    assert [path for path, count in paths.items() if count > 1] == []
    tokens = Counter(
        token for flag in all_global_flags() for token in (flag.name, flag.short) if token
    )
    assert [token for token, count in tokens.items() if count > 1] == []
    for spec in all_commands():
        local = Counter(token for flag in spec.flags for token in (flag.name, flag.short) if token)
        assert [token for token, count in local.items() if count > 1] == [], spec.name
        assert not any(global_flag(token) for token in local), f"{spec.name} shadows a global"


def test_inventory_parsers_on_known_shapes() -> None:
    assert inventory.synopsis_paths("har <start|stop> [path]", ("network",)) == [
        ("network", "har", "start"),
        ("network", "har", "stop"),
    ]
    assert inventory.synopsis_paths("tab [new|list|close|<n>]") == [
        ("tab",), ("tab", "new"), ("tab", "list"), ("tab", "close"),
    ]  # fmt: skip
    assert inventory.invocation_path("--session a --restore open https://x # c") == ("open",)
    assert inventory.invocation_path('find label "Email" fill "x"') == ("find", "label")
    assert not inventory.covered(("network", "teleport"))
    assert inventory.covered(("network",))


# --- grammar ---------------------------------------------------------------------------------


def test_split_global_flags() -> None:
    assert split_global_flags(["--json", "false", "snapshot", "-i"]) == (
        [("--json", "false")],
        ["snapshot", "-i"],
    )
    assert split_global_flags(["--headed", "open", "https://x"]) == (
        [("--headed", None)],
        ["open", "https://x"],
    )
    assert split_global_flags(["--session", "x", "click", "@e1", "--json"]) == (
        [("--session", "x"), ("--json", None)],
        ["click", "@e1"],
    )
    # Value flags take the next token even when it looks like a flag (`--args --no-sandbox`).
    assert split_global_flags(["--args", "--no-sandbox", "open"])[0] == [("--args", "--no-sandbox")]
    assert split_global_flags(["-p", "ios", "tap", "@e1"])[0] == [("--provider", "ios")]
    # `--restore` consumes a key only before the command and never a command word.
    assert split_global_flags(["--restore", "a1", "open"]) == ([("--restore", "a1")], ["open"])
    assert split_global_flags(["--restore", "key", "Enter"])[0] == [("--restore", None)]  # press
    assert split_global_flags(["--restore", "open"]) == ([("--restore", None)], ["open"])
    assert split_global_flags(["open", "--restore", "u"]) == ([("--restore", None)], ["open", "u"])
    assert split_global_flags(["--restore=k", "open"])[0] == [("--restore", "k")]
    # `--state` is global everywhere, even after `wait` (upstream loads it as a state file).
    assert split_global_flags(["wait", "#x", "--state", "hidden"]) == (
        [("--state", "hidden")],
        ["wait", "#x"],
    )
    assert split_global_flags(["--session"]) == ([("--session", None)], [])


def test_global_flag_table() -> None:
    launch = {flag.name for flag in all_global_flags() if flag.launch_scoped}
    assert launch == CONTRACT_LAUNCH_SCOPED
    user_agent = global_flag("--user-agent")
    assert user_agent is not None and user_agent.launch_scoped
    assert global_flag("-p") is global_flag("--provider")
    for name in ("--extension", "--proxy", "--input-mode", "--json"):
        flag = global_flag(name)
        assert flag is not None and not flag.launch_scoped, name
    sensitive = {flag.name for flag in all_global_flags() if flag.sensitive}
    assert {"--headers", "--proxy"} <= sensitive
    session = global_flag("--session")
    assert session is not None and session.session_selecting
    assert [f.name for f in all_global_flags() if f.session_selecting] == ["--session"]
    assert {f.name for f in all_global_flags() if f.inspection} == {"--help", "--version"}
    for name in ("--json", "--headed", "--webgpu", "--no-webmcp", "--hide-scrollbars", "-v"):
        flag = global_flag(name)
        assert flag is not None and flag.value is FlagValue.OPTIONAL_BOOL, name
    restore = global_flag("--restore")
    assert restore is not None and restore.value is FlagValue.OPTIONAL


def test_group_defaults_and_aliases() -> None:
    assert _match("tab").path == ("tab", "list")
    assert _match("tab", "t2").path == ("tab", "select")
    assert _match("tab", "docs").operands == ("docs",)
    assert _match("tab", "close", "t2").path == ("tab", "close")
    assert _match("cookies").path == ("cookies", "get")
    assert _match("storage", "local", "token").path == ("storage", "local", "get")
    assert _match("storage", "session").path == ("storage", "session", "get")
    assert _match("dashboard", "--port", "8080").path == ("dashboard", "start")
    assert _match("skills").path == ("skills", "list")
    assert _match("plugins", "list").path == ("plugin", "list")
    for alias, canonical in (
        ("goto", "open"), ("navigate", "open"), ("quit", "close"), ("exit", "close"),
        ("key", "press"), ("scrollinto", "scrollintoview"), ("web-vitals", "vitals"),
    ):  # fmt: skip
        assert _match(alias, "x").spec is _spec(canonical), alias
    assert _match("set", "geolocation", "1", "2").path == ("set", "geo")
    assert _match("auth", "remove", "x").path == ("auth", "delete")
    assert _match("goto", "https://x").tokens == ("goto",)
    assert resolve_command(["get"]) is None
    assert resolve_command(["get", "bogus"]) is None
    assert resolve_command(["teleport"]) is None
    assert resolve_command([]) is None
    assert not _spec("addinitscript").cli_available


def test_local_flags_and_shape() -> None:
    match = _match("click", "@e1", "--new-tab")
    assert match.operands == ("@e1",) and match.has_flag("--new-tab") and match.well_formed
    assert _match("mouse", "wheel", "-50", "0").operands == ("-50", "0")
    snapshot = _match("snapshot", "-i", "-d", "3", "-s", "#main")
    assert snapshot.flag_value("--depth") == "3" and snapshot.flag_value("--selector") == "#main"
    assert not _match("click", "@e1", "--bogus").well_formed
    assert not _match("fill", "@e1").well_formed
    assert not _match("auth", "list", "extra").well_formed
    assert _match("diff", "screenshot", "--baseline").missing_values == ("--baseline",)


# --- rule facts ------------------------------------------------------------------------------


def test_ref_slots() -> None:
    assert _spec("get count").ref_slots.positions == ()
    assert _spec("get text").ref_slots.positions == (0,)
    # `get attr <selector> <name>`: the selector comes first (per-command help and live engine).
    assert _spec("get attr").ref_slots.positions == (0,)
    assert _match("get", "attr", "@e1", "href").ref_values() == ("@e1",)
    assert _match("fill", "@e1", "@e2").ref_values() == ("@e1",)
    assert _match("type", "@e3", "e4").ref_values() == ("@e3",)
    assert _match("drag", "@e1", "@e2").ref_values() == ("@e1", "@e2")
    assert _match("select", "@e1", "a", "b").ref_values() == ("@e1",)
    assert _spec("diff snapshot").ref_slots.flags == ()
    for keyboard in ("press", "keyboard type", "keyboard inserttext", "keydown", "mouse move"):
        assert _spec(keyboard).ref_slots.positions == (), keyboard
    assert _match("wait", "2000").ref_values() == ()
    assert _match("wait", "@e5").ref_values() == ("@e5",)
    assert _match("screenshot", "shot.png").ref_values() == ()
    assert _match("screenshot", "@e2").ref_values() == ("@e2",)


def test_ref_guards_and_batch_latch() -> None:
    for spec in all_commands():
        assert not spec.guards_refs or spec.ref_slots.positions, f"{spec.name}: guard, no slot"
        if spec.page_effect not in (PageEffect.NONE, PageEffect.CLOSE):
            assert spec.invalidates_batch_refs, f"{spec.name} can change the page but no latch"
    for name in ("click", "fill", "download", "scrollintoview", "check", "select", "upload"):
        assert _spec(name).guards_refs, name
    assert not _spec("get text").guards_refs
    for name in ("fill", "focus", "download"):
        assert not _spec(name).invalidates_batch_refs, name
    assert _spec("click").latch_exempt_roles == {"checkbox", "radio"}
    assert _spec("select").latch_exempt_roles == {"combobox"}
    assert not _spec("dblclick").latch_exempt_roles
    for name in ("open", "back", "forward", "reload", "tab select", "tab new", "tab close",
                 "window new", "pushstate", "record start", "webmcp invoke", "webmcp result",
                 "webmcp cancel", "state load", "connect", "diff url"):  # fmt: skip
        assert _spec(name).invalidates_batch_refs, name
    assert _match("record", "start", "a.webm").sets_batch_latch
    assert not _match("record", "restart", "a.webm").sets_batch_latch
    assert _match("record", "restart", "a.webm", "https://x").sets_batch_latch
    assert not _match("vitals").sets_batch_latch and _match("vitals", "https://x").sets_batch_latch


def test_page_effects_and_summaries() -> None:
    assert _spec("open").page_effect is PageEffect.NAVIGATES
    assert _spec("click").page_effect is PageEffect.MAY_NAVIGATE
    assert _spec("reload").page_effect is PageEffect.HISTORY
    assert _spec("close").page_effect is PageEffect.CLOSE
    switching = _names(lambda spec: spec.page_effect is PageEffect.TARGET_SWITCH)
    assert {"tab select", "tab close", "window new", "connect", "diff url"} <= switching
    # Restoring an origin's storage navigates the same tab; the page is read back after it.
    assert _spec("state load").page_effect is PageEffect.HISTORY
    summaries = _names(lambda spec: spec.navigation_summary)
    assert {"click", "back", "forward", "reload", "tab select", "tab close", "window new",
            "diff url", "state load"} <= summaries  # fmt: skip
    probes = _names(lambda spec: spec.failure_probe)
    assert probes == {"eval", "back", "forward", "reload", "connect", "state load", "tab select"}
    assert _spec("fill").page_change_summary and _spec("download").page_change_summary
    assert not _spec("get text").page_change_summary


def test_session_needs() -> None:
    sessionless = _names(lambda spec: spec.session is SessionNeed.SESSIONLESS)
    expected = {
        "session list", "state list", "state show", "state rename", "state clear", "state clean",
        "auth save", "auth list", "auth show", "auth delete", "profiles", "install", "upgrade",
        "doctor", "skills list", "skills get", "skills path", "mcp", "dashboard start",
        "dashboard stop", "device list", "plugin list",
    }  # fmt: skip
    assert expected <= sessionless
    for name in ("state save", "state load", "auth login", "session info", "chat", "open", "read"):
        assert _spec(name).session is SessionNeed.BROWSER, name
    for spec in all_commands():
        if spec.session is SessionNeed.SESSIONLESS:
            assert spec.page_effect is PageEffect.NONE, spec.name


def test_stdin_timeouts_and_artifacts() -> None:
    assert _names(lambda spec: spec.accepts_stdin) == {"eval", "batch", "auth save"}
    assert _match("eval", "--stdin").reads_stdin and not _match("eval", "1+1").reads_stdin
    assert _match("batch", "--bail").reads_stdin
    assert _match("auth", "save", "a", "--password-stdin").reads_stdin
    assert _match("wait", "2000").requested_duration_ms() == 2000
    assert _match("wait", "#x", "--timeout", "9000").requested_duration_ms() == 9000
    assert _match("webmcp", "invoke", "t", "--timeout", "60000").requested_duration_ms() == 60000
    assert _spec("wait").timeout_family is TimeoutFamily.WAIT
    assert _spec("webmcp result").timeout_family is TimeoutFamily.WEBMCP
    assert _spec("dialog status").timeout_family is TimeoutFamily.DIALOG
    for name in ("chat", "dashboard start", "stream enable", "trace start", "profiler start",
                 "record start", "inspect", "install", "upgrade"):  # fmt: skip
        assert _spec(name).timeout_family is TimeoutFamily.LONG_RUNNING, name
    kinds = {slot.kind for spec in all_commands() for slot in spec.artifacts}
    assert kinds == set(ArtifactKind)
    [(slot, path)] = _match("screenshot", "#x", "out.png").artifact_requests()
    assert slot.kind is ArtifactKind.IMAGE and path == "out.png"
    assert _match("screenshot", "@e1").artifact_requests()[0][1] is None
    assert _match("screenshot", "./shot").artifact_requests()[0][1] == "./shot"
    video, sheet = _match("record", "start", "demo.webm").artifact_requests()
    assert video == (video[0], "demo.webm") and video[0].pending_until == ("record", "stop")
    assert sheet[0].data_fields == ("contactSheetPath",)
    assert _match("wait", "#x").artifact_requests() == ()
    assert _match("wait", "--download", "f.pdf").artifact_requests()[0][1] == "f.pdf"
    diff = _match("diff", "screenshot", "--baseline", "b.png", "-o", "d.png").artifact_requests()
    assert diff[0][0].data_fields == ("diffPath",) and diff[0][1] == "d.png"


def test_sensitive_values() -> None:
    password = _spec("auth save").local_flag("--password")
    body = _spec("network route").local_flag("--body")
    assert password is not None and password.sensitive and body is not None and body.sensitive
    assert _spec("cookies set").sensitive_operands == (1,)
    assert _spec("storage local set").sensitive_operands == (1,)
    assert _spec("set credentials").sensitive_operands == (1,)
    assert _spec("clipboard write").sensitive_operands == (0,)


@pytest.mark.parametrize(
    ("token", "is_path"),
    [
        (".dogfood/run/foo.png", True),
        (".cache/shots/a.JPEG", True),
        (".hero", False),
        (".a\\/b.png", False),  # an escaped slash is a CSS class, not a path
        (".dir/name", False),  # no image suffix: left to the engine's own rule
        ("#x", False),
        ("@e2", False),
    ],
)
def test_hidden_dir_screenshot_paths_are_paths_not_selectors(token: str, is_path: bool) -> None:
    requested = _match("screenshot", token).artifact_requests()[0][1]
    assert (requested == token) is is_path
    assert (_match("screenshot", token).ref_values() == ()) is is_path
