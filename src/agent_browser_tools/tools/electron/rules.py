"""The pure input rules of `agent_browser_electron`, checked before anything runs.

Why so strict: a launch starts a host program. Its arguments are Chromium/Electron switches,
and several of them would undo the isolation the launch promises (another profile, a second
debug endpoint the wrapper does not own) or run other programs and write files anywhere
(`--renderer-cmd-prefix`, `--gpu-launcher`, `--log-file`, ...). Chromium reads a switch with
one or two leading dashes and stops reading switches at a bare `--`, so names are compared
after stripping dashes, and a bare `--` is refused outright.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.tools.electron.schema import TARGETS, ElectronInput

LIST_DEFAULT = 50
LIST_CAP = 200
LAUNCH_DEFAULT_MS = 15_000
LAUNCH_CAP_MS = 120_000

LIFECYCLE_SWITCHES = frozenset(
    {
        "user-data-dir",
        "remote-debugging-port",
        "remote-debugging-pipe",
        "remote-debugging-address",
        "remote-debugging-io-pipes",
        "remote-debugging-targets",
        "remote-allow-origins",
        "inspect",
        "inspect-brk",
        "inspect-port",
        "inspect-publish-uid",
    }
)
"""Switches the launch sets itself: the private profile and the one debug endpoint it owns."""

MODEL_SWITCHES = frozenset(
    {
        "lang",
        "force-device-scale-factor",
        "window-size",
        "window-position",
        "start-maximized",
        "start-fullscreen",
        "disable-gpu",
        "disable-gpu-compositing",
        "force-dark-mode",
        "force-color-profile",
        "high-dpi-support",
        "no-first-run",
    }
)
"""The only switches the model may pass (an allow-list, not a deny-list): appearance and
locale. Chromium and Electron apps read hundreds of switches, and many load code, write files
or lower defences (`--utility-cmd-prefix`, `--log-net-log=PATH`, `--disable-web-security`,
VS Code's `--extensionDevelopmentPath`); no deny-list keeps up with them. Plain arguments are
refused too: an Electron runtime runs the script it is given. The operator adds switch names
with `[policy] electron_app_switches`."""

FIELDS_BY_ACTION: dict[str, frozenset[str]] = {
    "list": frozenset({"query", "maxResults"}),
    "launch": frozenset(
        {*TARGETS, "appArgs", "handoff", "targetType", "timeoutMs", "allow", "deny"}
    ),
    "status": frozenset({"launchId", "all", "timeoutMs"}),
    "probe": frozenset({"launchId", "timeoutMs"}),
    "cleanup": frozenset({"launchId", "all", "timeoutMs"}),
}
COMMON_FIELDS = frozenset({"action", "outputPath"})


class ElectronRejected(Exception):
    """The input breaks a rule of the tool (a `validation-error`); the message says which."""


def check_fields(inp: ElectronInput) -> None:
    """Fields the action does not take, a launch target count other than one, `launchId` with
    `all`: refused before anything runs."""
    given = {name for name, value in inp.model_dump().items() if value is not None}
    allowed = FIELDS_BY_ACTION[inp.action] | COMMON_FIELDS
    extra = sorted(given - allowed)
    if extra:
        raise ElectronRejected(
            f"{inp.action} does not take {', '.join(extra)}; it takes "
            f"{', '.join(sorted(FIELDS_BY_ACTION[inp.action])) or 'no other field'}."
        )
    if inp.action == "launch":
        targets = [name for name in TARGETS if getattr(inp, name) is not None]
        if len(targets) != 1:
            shown = ", ".join(targets) if targets else "none"
            raise ElectronRejected(
                f"launch takes exactly one of {', '.join(TARGETS)} (got {shown})."
            )
    if inp.launchId is not None and inp.all:
        raise ElectronRejected("give launchId or all: true, not both.")


def list_limit(max_results: int | None) -> int:
    """How many apps `list` returns: default 50, never more than 200."""
    return min(max_results or LIST_DEFAULT, LIST_CAP)


def launch_budget_ms(timeout_ms: int | None) -> int:
    """Launch readiness budget: default 15 s, capped at 120 s."""
    return min(timeout_ms or LAUNCH_DEFAULT_MS, LAUNCH_CAP_MS)


def switch_name(token: str) -> str | None:
    """The switch a token sets (`--a=b`, `-a`), or None for a plain argument."""
    if not token.startswith("-") or token in ("-", "--"):
        return None
    return token.lstrip("-").split("=", 1)[0].lower()


def check_app_args(args: Sequence[str], extra_switches: Iterable[str] = ()) -> None:
    """Raise `ElectronRejected` for a bare `--` or a lifecycle switch, `PolicyBlocked` for a
    plain argument or a switch outside `MODEL_SWITCHES` and the operator's `extra_switches`."""
    allowed = MODEL_SWITCHES | {name.lstrip("-").lower() for name in extra_switches}
    for token in args:
        if token == "--":
            raise ElectronRejected(
                "appArgs cannot contain a bare `--`: it ends switch parsing, so the launch's "
                "own profile and debug-port switches could be turned into plain arguments."
            )
        if "\0" in token:
            raise ElectronRejected("appArgs cannot contain NUL bytes.")
        name = switch_name(token)
        if name in LIFECYCLE_SWITCHES:
            raise ElectronRejected(
                f"appArgs cannot set {token.split('=', 1)[0]}: the launch owns the profile "
                "(a private temporary user-data-dir) and the one debug endpoint it attaches to."
            )
        if name is None or name not in allowed:
            what = (
                "a plain argument (a file or script for the app to open)"
                if name is None
                else (f"switch {token.split('=', 1)[0]}")
            )
            raise PolicyBlocked(
                f"appArgs {what} is not one the model may pass: apps only get appearance and "
                f"locale switches ({', '.join('--' + n for n in sorted(MODEL_SWITCHES))}). "
                "Leave it out; the operator can allow a switch by name.",
                rule="operator-flag",
                subject=token.split("=", 1)[0],
                allow_with="[policy] electron_app_switches",
            )


def policy_refusal(
    allow: Iterable[str] | None, deny: Iterable[str] | None, subjects: Iterable[str]
) -> str | None:
    """Why the caller's own allow/deny substrings refuse an app (None: allowed).

    Subjects are its name, ids and paths; matching is case-insensitive; deny wins."""
    texts = [s.casefold() for s in subjects if s]
    for needle in deny or ():
        if needle and any(needle.casefold() in text for text in texts):
            return f"it matches deny {needle!r}"
    allowed = [needle for needle in allow or () if needle]
    if allow is not None and not any(n.casefold() in t for n in allowed for t in texts):
        return f"it matches none of allow {allowed!r}"
    return None
