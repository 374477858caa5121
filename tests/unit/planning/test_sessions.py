"""Session choice, output mode and help/version inspection in the execution plan (pure).

The plan decides the exact argv after the binary: whether `--json` is injected, which
`--session` (if any) is prepended, and whether a launch-scoped flag can still take effect.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest

from agent_browser_tools.engine.envelope import OutputMode
from agent_browser_tools.planning.argv_rules import ArgvRejected
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.plan import ExecutionPlan, build_plan
from agent_browser_tools.planning.sessions import (
    MANAGED_PREFIX,
    engine_namespace,
    fresh_name,
    is_managed_name,
    managed_base_name,
    native_session_default,
)
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.models import ConversationState, SessionPageState

ROOT = "root-conversation-1"
MANAGED = managed_base_name(ROOT)
SETTINGS = Settings(env={}, state_dir=Path("/nonexistent-state"))
Mode = Literal["auto", "fresh"]


def _plan(
    args: list[str],
    *,
    state: ConversationState | None = None,
    mode: Mode = "auto",
    root: str = ROOT,
    native: str | None = None,
    stdin: str | None = None,
) -> ExecutionPlan:
    inp = AgentBrowserInput(args=args, stdin=stdin, sessionMode=mode)
    return build_plan(
        inp, state or ConversationState(), SETTINGS, root_id=root, native_default=native
    )


def _state(
    managed: str | None = MANAGED, *, active: bool = True, **entry: object
) -> ConversationState:
    sessions = {}
    if managed is not None:
        sessions[managed] = SessionPageState(ownership="managed", active=active, **entry)  # type: ignore[arg-type]
    return ConversationState(managed_session=managed, sessions=sessions)


# --- implicit managed session ---------------------------------------------------------------


def test_first_call_gets_json_and_the_managed_session() -> None:
    plan = _plan(["get", "url"])
    assert plan.effective_args == ("--json", "--session", MANAGED, "get", "url")
    assert plan.session.used_implicit_session is True
    assert plan.session.ownership == "managed"
    assert plan.session.key is not None and plan.session.key.session == MANAGED
    assert plan.args == ("get", "url")


def test_managed_name_is_stable_per_root_and_distinct_across_roots() -> None:
    assert managed_base_name(ROOT) == managed_base_name(ROOT)
    assert managed_base_name(ROOT).startswith(MANAGED_PREFIX)
    assert managed_base_name("another-root") != MANAGED
    assert _plan(["get", "url"]).session.inject == _plan(["snapshot", "-i"]).session.inject
    assert _plan(["get", "url"], root="another-root").session.inject[1] != MANAGED


def test_managed_name_is_short_enough_for_socket_paths() -> None:
    assert len(MANAGED) <= 20
    assert len(managed_base_name("x" * 500)) == len(MANAGED)


def test_root_env_is_shared_by_sub_agents(tmp_path: Path) -> None:
    env = {"AGENT_BROWSER_TOOLS_ROOT": "parent-1", "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path)}
    settings = Settings.load(env=env, cwd=tmp_path)
    parent = Runtime(settings, conversation_id="parent-conv", cwd=tmp_path)
    child = Runtime(settings, conversation_id="child-conv", cwd=tmp_path)
    assert parent.root_id == child.root_id == "parent-1"
    alone = Runtime(Settings.load(env={}, cwd=tmp_path), conversation_id="solo", cwd=tmp_path)
    assert alone.root_id == "solo"
    names = {
        _plan(["get", "url"], root=rt.root_id).session.inject[1] for rt in (parent, child, alone)
    }
    assert names == {managed_base_name("parent-1"), managed_base_name("solo")}


def test_auto_follows_the_current_managed_session_after_a_rotation() -> None:
    rotated = MANAGED + "-abc123"
    plan = _plan(["snapshot", "-i"], state=_state(rotated))
    assert plan.session.inject == ("--session", rotated)
    assert plan.session.used_implicit_session is True


# --- caller-owned sessions ------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "fresh"])
def test_explicit_session_wins_and_is_caller_owned(mode: Mode) -> None:
    plan = _plan(["--session", "mine", "get", "url"], state=_state(), mode=mode)
    assert plan.effective_args == ("--json", "--session", "mine", "get", "url")
    assert plan.session.inject == ()
    assert plan.session.used_implicit_session is False
    assert plan.session.ownership == "caller"
    assert plan.session.fresh is False
    assert plan.session.key is not None and plan.session.key.session == "mine"


@pytest.mark.parametrize(
    ("raw", "engine"),
    [
        ("team", "team"),
        ("Team", "team"),
        ("a/b", "a-b"),
        ("x y", "x-y"),
        ("Té_am--X..", "té_am-x"),
        ("--agent__ ", "agent"),
        (".", None),
        ("..", None),
        ("../..", None),
        ("", None),
        (None, None),
    ],
)
def test_a_namespace_is_keyed_by_the_name_the_engine_uses(
    raw: str | None, engine: str | None
) -> None:
    """Measured on engine 0.39.4 (`--namespace 'Té_am--X..'` ran in `namespaces/té_am-x/`):
    two spellings of one engine namespace are one browser, and its run files are found."""
    assert engine_namespace(raw) == engine
    if raw is not None:
        plan = _plan(["--namespace", raw, "--session", "s", "get", "url"])
        assert plan.session.key is not None and plan.session.key.namespace == engine
        assert "--namespace" in plan.effective_args  # the engine still gets what was written


def test_trailing_explicit_session_also_wins() -> None:
    plan = _plan(["get", "url", "--session", "mine"])
    assert plan.effective_args == ("--json", "get", "url", "--session", "mine")
    assert plan.session.key is not None and plan.session.key.session == "mine"


def test_explicit_session_naming_the_managed_one_stays_managed() -> None:
    plan = _plan(["--session", MANAGED, "get", "url"], state=_state())
    assert plan.session.ownership == "managed"
    assert plan.session.used_implicit_session is False
    assert plan.session.inject == ()


@pytest.mark.parametrize("mode", ["auto", "fresh"])
def test_native_default_session_wins_over_injection_and_fresh(mode: Mode) -> None:
    plan = _plan(["get", "url"], state=_state(), mode=mode, native="from-config")
    assert plan.effective_args == ("--json", "get", "url")
    assert plan.session.key is not None and plan.session.key.session == "from-config"
    assert plan.session.ownership == "caller"
    assert plan.session.used_implicit_session is False
    assert plan.session.fresh is False


def test_explicit_session_beats_the_native_default() -> None:
    plan = _plan(["--session", "mine", "get", "url"], native="from-config")
    assert plan.session.key is not None and plan.session.key.session == "mine"


def test_native_default_from_env(tmp_path: Path) -> None:
    env = {"AGENT_BROWSER_SESSION": "env-session", "HOME": str(tmp_path)}
    assert native_session_default(env, tmp_path) == "env-session"


def test_native_default_from_user_and_project_config(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".agent-browser").mkdir(parents=True)
    project.mkdir()
    env = {"HOME": str(home)}
    assert native_session_default(env, project) is None
    (home / ".agent-browser" / "config.json").write_text(json.dumps({"session": "user"}))
    assert native_session_default(env, project) == "user"
    (project / "agent-browser.json").write_text(json.dumps({"session": "project"}))
    assert native_session_default(env, project) == "project"
    (project / "agent-browser.json").write_text("{not json")
    assert native_session_default(env, project) == "user"


def test_native_default_from_explicit_config_file(tmp_path: Path) -> None:
    config = tmp_path / "custom.json"
    config.write_text(json.dumps({"session": "custom", "headed": True}))
    env = {"HOME": str(tmp_path), "AGENT_BROWSER_CONFIG": str(config)}
    assert native_session_default(env, tmp_path) == "custom"
    config.write_text(json.dumps({"session": ""}))
    assert native_session_default(env, tmp_path) is None


# --- sessionless commands -------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["--help"],
        ["skills", "list"],
        ["skills"],
        ["session", "list"],
        ["auth", "list"],
        ["profiles"],
        ["state", "list"],
    ],
)
def test_sessionless_commands_never_get_a_session(args: list[str]) -> None:
    plan = _plan(args, state=_state())
    assert "--session" not in plan.effective_args
    assert plan.session.key is None
    assert plan.session.used_implicit_session is False


@pytest.mark.parametrize(
    "args", [["auth", "login", "site"], ["state", "save", "s.json"], ["state", "load", "s.json"]]
)
def test_browser_backed_auth_and_state_commands_get_the_managed_session(args: list[str]) -> None:
    plan = _plan(args)
    assert plan.effective_args == ("--json", "--session", MANAGED, *args)
    assert plan.session.used_implicit_session is True


def test_sessionless_command_keeps_a_callers_explicit_session() -> None:
    plan = _plan(["--session", "mine", "session", "list"])
    assert plan.effective_args == ("--json", "--session", "mine", "session", "list")


# --- fresh rotation -------------------------------------------------------------------------


def test_fresh_rotates_to_a_new_name_and_records_the_active_previous() -> None:
    plan = _plan(["open", "https://x.test"], state=_state(), mode="fresh")
    name = plan.session.inject[1]
    assert plan.session.inject[0] == "--session"
    assert name != MANAGED and name.startswith(MANAGED + "-")
    assert plan.effective_args == ("--json", "--session", name, "open", "https://x.test")
    assert plan.session.fresh is True
    assert plan.session.fresh_from == MANAGED
    assert plan.session.used_implicit_session is True
    assert plan.session.ownership == "managed"


def test_fresh_names_differ_per_journal_position_and_replan_identically() -> None:
    """Names come from the nonce (conversation + journal position): planning stays pure, so
    re-planning one call after waiting for its lock yields the same browser identity."""
    states = [ConversationState(last_seq=seq) for seq in range(5)]
    names = {_plan(["get", "url"], state=st, mode="fresh").session.inject[1] for st in states}
    assert len(names) == 5
    again = {_plan(["get", "url"], state=states[0], mode="fresh").session.inject[1] for _ in "ab"}
    assert len(again) == 1


def test_fresh_without_a_previous_session_has_nothing_to_replace() -> None:
    plan = _plan(["open", "https://x.test"], mode="fresh")
    assert plan.session.fresh is True and plan.session.fresh_from is None


def test_fresh_does_not_claim_an_inactive_previous_session() -> None:
    plan = _plan(["get", "url"], state=_state(active=False), mode="fresh")
    assert plan.session.fresh_from is None


# --- launch-scoped flags ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "launch",
    [
        ["--headed"],
        ["--headed", "false"],
        ["--profile", "Default"],
        ["--executable-path", "/opt/chrome"],
        ["--args", "--no-sandbox"],
        ["--no-webmcp", "false"],
        ["--webgpu"],
        ["--allowed-domains", "example.com"],
        ["--restore=work"],
        ["-p", "browserbase"],
    ],
)
def test_launch_flag_on_an_active_implicit_session_recommends_fresh(launch: list[str]) -> None:
    with pytest.raises(ArgvRejected) as caught:
        _plan([*launch, "open", "https://x.test"], state=_state())
    message = str(caught.value)
    assert 'sessionMode: "fresh"' in message
    assert "already running" in message and MANAGED in message


@pytest.mark.parametrize("state", [None, "inactive"])
def test_launch_flag_is_allowed_when_no_implicit_browser_runs(state: str | None) -> None:
    current = _state(active=False) if state else ConversationState()
    plan = _plan(["--headed", "open", "https://x.test"], state=current)
    assert plan.effective_args == (
        "--json",
        "--session",
        MANAGED,
        "--headed",
        "open",
        "https://x.test",
    )
    assert plan.session.launch_flags == ("--headed",)


def test_launch_flag_is_allowed_under_fresh() -> None:
    plan = _plan(["--profile", "Work", "open", "https://x.test"], state=_state(), mode="fresh")
    assert plan.session.fresh is True
    assert plan.session.launch_flags == ("--profile=Work",)


def test_repeating_the_launch_flags_the_session_started_with_is_allowed() -> None:
    """A follow-up that restates the recorded launch settings changes nothing upstream."""
    state = _state(launch_flags=("--headed",))
    assert _plan(["--headed", "get", "url"], state=state).session.inject[1] == MANAGED
    with pytest.raises(ArgvRejected):
        _plan(["--headed", "--profile", "Work", "get", "url"], state=state)


@pytest.mark.parametrize("flags", [["--input-mode", "human"], ["--json"], ["--extension", "ext"]])
def test_non_launch_globals_pass_on_an_active_session(flags: list[str]) -> None:
    plan = _plan([*flags, "get", "url"], state=_state())
    assert plan.session.inject == ("--session", MANAGED)


@pytest.mark.parametrize(
    "flag", [["--confirm-actions", "click"], ["--debug"], ["--no-auto-dialog"]]
)
def test_a_daemon_setting_the_running_browser_lacks_is_refused(flag: list[str]) -> None:
    """Measured on the engine: adding one later replaces the daemon and blanks the page."""
    with pytest.raises(ArgvRejected, match="sessionMode"):
        _plan([*flag, "get", "url"], state=_state())


def test_a_recorded_daemon_setting_follows_every_call_of_the_session() -> None:
    """`--confirm-actions click` on the first call: every follow-up (and so every helper)
    repeats it, or the engine would replace the daemon and drop pending confirmations."""
    state = _state(launch_flags=("--user-agent=UA", "--confirm-actions=click"))
    assert _plan(["snapshot", "-i"], state=state).session.inject == (
        "--session",
        MANAGED,
        "--user-agent",
        "UA",
        "--confirm-actions",
        "click",
    )
    partial = _plan(["--confirm-actions", "click", "confirm", "c1"], state=state)
    assert partial.session.inject == ("--session", MANAGED, "--user-agent", "UA")
    with pytest.raises(ArgvRejected, match="--confirm-actions=fill"):
        _plan(["--confirm-actions", "fill", "get", "url"], state=state)


def test_an_explicit_session_keeps_its_daemon_settings_but_not_its_launch_flags() -> None:
    """The offered `confirm <id>` on a named session must not replace its daemon."""
    state = ConversationState(
        sessions={
            "mine": SessionPageState(
                ownership="caller",
                active=True,
                launch_flags=("--user-agent=UA", "--confirm-actions=click"),
            )
        }
    )
    plan = _plan(["--session", "mine", "confirm", "c1"], state=state)
    assert plan.session.inject == ("--confirm-actions", "click")


def test_launch_flag_with_an_explicit_session_is_the_callers_business() -> None:
    plan = _plan(["--session", "other", "--headed", "open", "https://x.test"], state=_state())
    assert plan.session.ownership == "caller"


# --- output mode ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "mode", "caller_json", "injected"),
    [
        (["get", "url"], OutputMode.JSON, False, True),
        (["--json", "get", "url"], OutputMode.JSON, True, False),
        (["get", "url", "--json"], OutputMode.JSON, True, False),
        (["--json", "true", "get", "url"], OutputMode.JSON, True, False),
        (["--json", "false", "get", "url"], OutputMode.TEXT, False, False),
        (["get", "url", "--json", "false"], OutputMode.TEXT, False, False),
        (["--json", "false", "get", "url", "--json"], OutputMode.JSON, True, False),
        (["--json", "get", "url", "--json", "false"], OutputMode.TEXT, False, False),
        (["--json", "true", "--json", "false", "get", "url"], OutputMode.TEXT, False, False),
    ],
)
def test_output_mode_follows_the_last_json_occurrence(
    args: list[str], mode: OutputMode, caller_json: bool, injected: bool
) -> None:
    plan = _plan(args)
    assert plan.output_mode is mode
    assert plan.caller_json is caller_json
    assert (
        plan.effective_args[0] == "--json" and plan.effective_args[1] == "--session"
    ) is injected
    assert plan.effective_args.count("--json") == args.count("--json") + (1 if injected else 0)
    # The caller's own tokens reach the engine unchanged and in order.
    assert plan.effective_args[-len(args) :] == tuple(args)


def test_text_mode_batch_keeps_the_callers_choice() -> None:
    plan = _plan(["--json", "false", "batch"], stdin='[["get", "url"]]')
    assert plan.output_mode is OutputMode.TEXT
    assert plan.effective_args == ("--session", MANAGED, "--json", "false", "batch")


# --- help/version inspection ----------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["-V"],
        ["--help"],
        ["-h"],
        ["open", "--help"],
        ["batch", "--help"],
        ["--json", "--version"],
    ],
)
def test_inspection_keeps_exact_argv_without_json_or_session(args: list[str]) -> None:
    plan = _plan(args, state=_state())
    assert plan.effective_args == tuple(args)
    assert plan.checked.inspection is True
    assert plan.output_mode is OutputMode.TEXT
    assert plan.caller_json is False
    assert plan.session.key is None and plan.session.inject == ()


def test_inspection_does_not_trip_the_launch_flag_rule() -> None:
    plan = _plan(["--headed", "--help"], state=_state())
    assert plan.effective_args == ("--headed", "--help")


def test_inspection_skips_the_equals_rule() -> None:
    """Upstream prints help here too; the exact argv is preserved."""
    assert _plan(["--session=a", "--help"]).effective_args == ("--session=a", "--help")


# --- what the plan records --------------------------------------------------------------------


def test_normalized_call_keeps_the_request_and_names_what_ran() -> None:
    plan = _plan(["open"])
    assert plan.args == ("open",)
    assert plan.effective_args == ("--json", "--session", MANAGED, "get", "url")
    assert plan.path == ("get", "url")
    assert plan.checked.normalized_from == "url-less-open"


def test_unknown_command_still_plans_with_its_first_words() -> None:
    plan = _plan(["frobnicate", "now", "please"])
    assert plan.match is None
    assert plan.path == ("frobnicate", "now")
    assert plan.effective_args == ("--json", "--session", MANAGED, "frobnicate", "now", "please")


def test_managed_names_are_the_slot_and_its_rotations_only() -> None:
    base = managed_base_name("root-1")
    assert is_managed_name(base, "root-1")
    assert is_managed_name(fresh_name("root-1", "7"), "root-1")
    assert not is_managed_name(base + "x", "root-1")
    assert not is_managed_name(base + "-xyz", "root-1")
    assert not is_managed_name(base + "-ABCDEF", "root-1")
    assert not is_managed_name(managed_base_name("root-2"), "root-1")
