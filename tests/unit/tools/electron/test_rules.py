"""Pure input rules of `agent_browser_electron`: appArgs, allow/deny, bounds, field sets."""

from __future__ import annotations

import pytest

from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.tools.electron.rules import (
    ElectronRejected,
    check_app_args,
    check_fields,
    launch_budget_ms,
    list_limit,
    policy_refusal,
)
from agent_browser_tools.tools.electron.schema import ElectronInput


@pytest.mark.parametrize(
    "token",
    [
        "--",  # ends switch parsing: the launch's own switches would become plain arguments
        "--user-data-dir=/home/me/.config/Code",
        "-user-data-dir=/tmp/other",  # Chromium also reads single-dash switches
        "--User-Data-Dir=/tmp/x",
        "--remote-debugging-port=9222",
        "--remote-debugging-pipe",
        "--remote-debugging-address=0.0.0.0",
        "--remote-allow-origins=*",
        "--inspect=9229",
        "--inspect-brk",
    ],
)
def test_lifecycle_switches_and_a_bare_double_dash_are_validation_errors(token: str) -> None:
    with pytest.raises(ElectronRejected):
        check_app_args(["--lang=en", token])


@pytest.mark.parametrize(
    "token",
    [
        "--renderer-cmd-prefix=/bin/sh -c id",  # runs another program for every renderer
        "--gpu-launcher=/tmp/x",
        "--utility-cmd-prefix=x",
        "--browser-subprocess-path=/bin/sh",
        "--log-file=/etc/cron.d/x",
        "--disk-cache-dir=/tmp/x",
        "--load-extension=/tmp/ext",
        "--proxy-server=http://evil:8080",
        "--js-flags=--allow-natives-syntax",
    ],
)
def test_switches_that_run_programs_or_write_anywhere_are_policy_blocked(token: str) -> None:
    with pytest.raises(PolicyBlocked) as caught:
        check_app_args([token])
    assert caught.value.rule == "operator-flag"


def test_appearance_switches_pass_and_the_operator_can_allow_more() -> None:
    check_app_args(["--lang=en-US", "--disable-gpu", "--window-size=800,600"])
    check_app_args(["--enable-features=X"], extra_switches=["--enable-features"])


@pytest.mark.parametrize(
    "arg",
    [
        "notes.md",  # an Electron runtime runs the script it is given
        "-",
        "--enable-features=X",
        "--no-sandbox",
        "--register-pepper-plugins=/x.so;application/x",
        "--renderer-startup-dialog",
        "--gpu-launcher=sh",
    ],
)
def test_anything_else_is_the_operators(arg: str) -> None:
    with pytest.raises(PolicyBlocked):
        check_app_args([arg])


def test_deny_wins_over_allow_and_matching_is_case_insensitive() -> None:
    subjects = ["Slack", "/usr/lib/slack/slack"]
    assert policy_refusal(["slack"], ["SLACK"], subjects) == "it matches deny 'SLACK'"
    assert policy_refusal(["code"], None, subjects) == "it matches none of allow ['code']"
    assert policy_refusal(["/usr/lib/"], None, subjects) is None
    assert policy_refusal(None, ["discord"], subjects) is None
    assert policy_refusal([], None, subjects) is not None  # an empty allow list allows nothing


def test_list_and_launch_bounds() -> None:
    assert (list_limit(None), list_limit(7), list_limit(10_000)) == (50, 7, 200)
    assert (launch_budget_ms(None), launch_budget_ms(3000)) == (15_000, 3000)
    assert launch_budget_ms(600_000) == 120_000


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"action": "launch"}, "exactly one of"),
        ({"action": "launch", "appName": "a", "appPath": "/opt/a"}, "exactly one of"),
        ({"action": "list", "timeoutMs": 1000}, "list does not take timeoutMs"),
        ({"action": "status", "appArgs": ["x"]}, "status does not take appArgs"),
        ({"action": "cleanup", "launchId": "electron-1", "all": True}, "not both"),
        ({"action": "probe", "all": True}, "probe does not take all"),
    ],
)
def test_fields_each_action_does_not_take_are_refused(
    params: dict[str, object], message: str
) -> None:
    with pytest.raises(ElectronRejected, match=message):
        check_fields(ElectronInput.model_validate(params))


def test_stdin_and_session_mode_are_not_accepted() -> None:
    for extra in ({"stdin": "x"}, {"sessionMode": "fresh"}):
        with pytest.raises(ValueError):
            ElectronInput.model_validate({"action": "status", **extra})
