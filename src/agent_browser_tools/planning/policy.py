"""The operator's policy for what the model may ask for (pure).

The model reads untrusted pages, so a page can make it ask for anything it may ask for. Which
global flags and commands are the operator's is a column of the taxonomy (`ModelAccess`); this
module applies that column, and the operator's exceptions, to one checked argv: every global
flag of the call and of each batch row, and every command. A violation raises `PolicyBlocked`
before anything is spawned, naming the operator setting that would allow it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_browser_tools import taxonomy
from agent_browser_tools.planning.argv_rules import CheckedArgv
from agent_browser_tools.settings import ENV_PREFIX, Settings, SettingsError
from agent_browser_tools.taxonomy import CommandMatch, ModelAccess

ALLOW_FLAGS_ENV = ENV_PREFIX + "ALLOW_MODEL_FLAGS"
ALLOW_FLAG_OPTION = "--allow-model-flag"
ALLOW_FLAGS_KEY = "[policy] allow_model_flags"
MAX_TIMEOUT_ENV = ENV_PREFIX + "MAX_TIMEOUT_MS"
ALLOW_ELECTRON_ENV = ENV_PREFIX + "ALLOW_ELECTRON"
ALLOW_ELECTRON_KEY = "[policy] allow_electron"
ELECTRON_APP_DIRS_KEY = "[policy] electron_app_dirs"
ELECTRON_APP_DIRS_ENV = ENV_PREFIX + "ELECTRON_APP_DIRS"
ELECTRON_APP_SWITCHES_KEY = "[policy] electron_app_switches"
_ON = frozenset({"1", "true", "yes", "on"})
_OFF = frozenset({"", "0", "false", "no", "off"})
DEFAULT_MAX_TIMEOUT_MS = 600_000
"""Longest `timeoutMs` a call may ask for unless the operator sets another bound (10 min)."""


class PolicyBlocked(Exception):
    """A model-supplied input the operator's policy does not allow.

    `rule` is a stable code (`operator-flag`, `operator-command`, `shared-store`, `file-root`,
    `timeout-cap`, `session-name`); `allow_with` names the operator setting that would allow it
    (None: nothing does, e.g. the server's own state dir).
    """

    def __init__(self, message: str, *, rule: str, subject: str, allow_with: str | None) -> None:
        super().__init__(message)
        self.rule = rule
        self.subject = subject
        self.allow_with = allow_with

    def as_details(self) -> dict[str, Any]:
        return {"rule": self.rule, "subject": self.subject, "allowWith": self.allow_with}


@dataclass(frozen=True)
class ModelPolicy:
    """What the operator lets the model do beyond the default policy."""

    allowed_flags: frozenset[str] = frozenset()
    """Operator-only global flags the model may pass anyway (canonical long names)."""
    isolated_conversations: bool = False
    """Several conversations share this server: the engine's per-user stores are off limits."""
    max_timeout_ms: int = DEFAULT_MAX_TIMEOUT_MS
    allow_electron: bool = False
    """The model may discover and launch desktop (Electron) apps through
    `agent_browser_electron`. Off by default: launching a host program is a step past the
    browser the operator configured, so the operator turns it on (`[policy] allow_electron`,
    `AGENT_BROWSER_TOOLS_ALLOW_ELECTRON=1`)."""
    electron_app_dirs: tuple[str, ...] = ()
    """Dirs the operator vouches for as holding apps (besides the host install roots): the
    only places a launch may start a program from inside the model's file roots."""
    electron_app_switches: frozenset[str] = frozenset()
    """App switches the model may pass besides the appearance/locale allow-list."""

    @classmethod
    def from_settings(
        cls, settings: Settings, *, isolated_conversations: bool = False
    ) -> ModelPolicy:
        """Read `[policy]` from the config layers and the `AGENT_BROWSER_TOOLS_*` env."""
        section = settings.merged_config.get("policy", {})
        if not isinstance(section, Mapping):
            raise SettingsError("config [policy] must be a table; fix or remove it.")
        names = list(_string_list(section.get("allow_model_flags", ()), ALLOW_FLAGS_KEY))
        raw_env = settings.env.get(ALLOW_FLAGS_ENV, "")
        names += [part.strip() for part in raw_env.split(",") if part.strip()]
        return cls(
            allowed_flags=frozenset(canonical_flag(name) for name in names),
            isolated_conversations=isolated_conversations,
            max_timeout_ms=_max_timeout(settings, section),
            allow_electron=_allow_electron(settings, section),
            electron_app_dirs=(
                *_string_list(section.get("electron_app_dirs", ()), ELECTRON_APP_DIRS_KEY),
                *(d for d in settings.env.get(ELECTRON_APP_DIRS_ENV, "").split(os.pathsep) if d),
            ),
            electron_app_switches=frozenset(
                _string_list(section.get("electron_app_switches", ()), ELECTRON_APP_SWITCHES_KEY)
            ),
        )


@dataclass(frozen=True)
class WrapperGrant:
    """One operator-only command the wrapper itself runs, with exactly these operands.

    A tool the operator enabled (desktop apps: `allow_electron`) attaches to the browser it
    launched with `connect <its own port>`; the grant lets that one argv through and nothing
    else, so no model-written argv (and no batch row) can ride on it. Only wrapper code builds
    grants: tool inputs never carry one."""

    command: str
    operands: tuple[str, ...]


def canonical_flag(name: str) -> str:
    """`--cdp` / `cdp` / `-p` -> the global flag's long name; unknown names are refused."""
    token = name if name.startswith("-") else f"--{name}"
    flag = taxonomy.global_flag(token)
    if flag is None:
        raise SettingsError(
            f"{ALLOW_FLAG_OPTION} {name!r} is not a global flag of the engine; use a long name "
            "such as --args or --cdp."
        )
    return flag.name


def _string_list(value: Any, key: str) -> Sequence[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and all(isinstance(item, str) for item in value):
        return list(value)
    raise SettingsError(f"config {key} must be a list of strings; fix or remove it.")


def _max_timeout(settings: Settings, section: Mapping[str, Any]) -> int:
    raw: Any = settings.env.get(MAX_TIMEOUT_ENV) or section.get("max_timeout_ms")
    if raw is None or raw == "":
        return DEFAULT_MAX_TIMEOUT_MS
    try:
        value = int(raw)
    except (TypeError, ValueError):
        value = 0
    if value <= 0:
        raise SettingsError(
            f"{MAX_TIMEOUT_ENV} / [policy] max_timeout_ms = {raw!r} must be a positive number "
            f"of milliseconds; unset it or use e.g. {DEFAULT_MAX_TIMEOUT_MS}."
        )
    return value


def _allow_electron(settings: Settings, section: Mapping[str, Any]) -> bool:
    raw = settings.env.get(ALLOW_ELECTRON_ENV)
    if raw is not None:
        if raw.strip().lower() in _ON | _OFF:
            return raw.strip().lower() in _ON
        raise SettingsError(f"{ALLOW_ELECTRON_ENV}={raw!r} must be 1 or 0; fix or unset it.")
    value = section.get("allow_electron", False)
    if not isinstance(value, bool):
        raise SettingsError(f"config {ALLOW_ELECTRON_KEY} must be true or false; fix it.")
    return value


def calls_of(
    checked: CheckedArgv,
) -> Iterator[tuple[str, list[tuple[str, str | None]], CommandMatch | None]]:
    """(where, global flags, command) for the call itself and for each batch row.

    Help/version calls keep their argv verbatim (`globals_` is empty), but the engine still
    applies their global flags (it loads a `--config` file before printing help), so their
    flags are read from the argv here."""
    if checked.inspection:
        yield "", taxonomy.split_global_flags(checked.caller_args)[0], None
        return
    yield "", list(checked.globals_), checked.match
    if checked.batch is None:
        return
    for index, row in enumerate(checked.batch.rows, start=1):
        row_globals, command = taxonomy.split_global_flags(row)
        match = taxonomy.resolve_command(command) if command else None
        yield f"batch row {index}: ", row_globals, match


def check_model_policy(
    checked: CheckedArgv, policy: ModelPolicy, grant: WrapperGrant | None = None
) -> None:
    """Raise `PolicyBlocked` for an operator-only flag or command, or a shared store.

    `grant` lets the wrapper's own call (never a batch row) run its one granted command."""
    for where, globals_, match in calls_of(checked):
        for name, _value in globals_:
            _check_flag(where, name, policy)
        if match is not None and not _granted(where, match, grant):
            _check_command(where, match, policy)
    _check_unknown_commands(checked)


def _check_unknown_commands(checked: CheckedArgv) -> None:
    """An unknown word under a group that holds a guarded command is refused.

    The engine knows spellings the taxonomy may not (`plugin install` is `plugin add`), and
    an unknown subcommand passes every column; under a group with operator-only or shared
    members (`plugin`, `dashboard`, `get`, `state`, `auth`) that is not a risk worth taking.
    """
    if checked.inspection:
        return
    rows = [checked.command_tokens]
    if checked.batch is not None:
        rows += [tuple(taxonomy.split_global_flags(row)[1]) for row in checked.batch.rows]
    for (where, _globals, match), command in zip(calls_of(checked), rows, strict=True):
        if match is not None or not command or command[0] not in _GUARDED_GROUPS:
            continue
        head = command[0]
        raise PolicyBlocked(
            f"{where}`{' '.join(command[:2])}` is not a command this server knows in the "
            f"`{head}` group, which holds operator-only commands; use a listed "
            f"subcommand ({', '.join(sorted(_GROUP_WORDS[head]))}).",
            rule="unknown-command",
            subject=" ".join(command[:2]),
            allow_with=None,
        )


def _guarded_groups() -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    words: dict[str, set[str]] = {}
    guarded: set[str] = set()
    for spec in taxonomy.all_commands():
        for path in (spec.path, *spec.aliases):
            if len(path) > 1:
                words.setdefault(path[0], set()).add(path[1])
                if spec.access is not ModelAccess.MODEL:
                    guarded.add(path[0])
    return frozenset(guarded), {head: frozenset(w) for head, w in words.items()}


_GUARDED_GROUPS, _GROUP_WORDS = _guarded_groups()


def _check_flag(where: str, name: str, policy: ModelPolicy) -> None:
    flag = taxonomy.global_flag(name)
    if flag is None or flag.access is not ModelAccess.OPERATOR:
        return
    if flag.name in policy.allowed_flags:
        return
    raise PolicyBlocked(
        f"{where}{flag.name} is set by the operator, not by the model: it decides how the "
        "browser launches or what it can reach beyond the page. Leave it out; if this server "
        f"should let the model choose it, the operator starts it with `serve "
        f"{ALLOW_FLAG_OPTION}={flag.name}` (or {ALLOW_FLAGS_KEY} / {ALLOW_FLAGS_ENV}).",
        rule="operator-flag",
        subject=flag.name,
        allow_with=f"{ALLOW_FLAG_OPTION}={flag.name}",
    )


def _granted(where: str, match: CommandMatch, grant: WrapperGrant | None) -> bool:
    return (
        grant is not None
        and where == ""
        and match.spec.name == grant.command
        and tuple(match.operands) == grant.operands
        and not match.flags
        and not match.unknown_flags
    )


def _check_command(where: str, match: CommandMatch, policy: ModelPolicy) -> None:
    spec = match.spec
    if spec.access is ModelAccess.OPERATOR:
        raise PolicyBlocked(
            f"{where}`{spec.name}` reaches past this conversation's browser (another browser, "
            "a server port, an installer or the user's own profiles), so only the operator "
            "runs it, outside this tool. Use the browser you have (`snapshot -i`, `get url`).",
            rule="operator-command",
            subject=spec.name,
            allow_with=None,
        )
    if spec.access is ModelAccess.SHARED_STORE and policy.isolated_conversations:
        raise PolicyBlocked(
            f"{where}`{spec.name}` reads or changes the engine's store shared by every "
            "conversation on this server (saved states, the auth vault), so it is refused "
            "here. Save and load state with `state save <file>` / `state load <file>` inside "
            "the workspace; sign in by typing, with the operator's secrets as "
            "`{{secret:NAME}}`.",
            rule="shared-store",
            subject=spec.name,
            allow_with=None,
        )


def check_timeout(timeout_ms: int | None, policy: ModelPolicy) -> None:
    """Refuse a `timeoutMs` above the operator's bound."""
    if timeout_ms is None or timeout_ms <= policy.max_timeout_ms:
        return
    raise PolicyBlocked(
        f"timeoutMs {timeout_ms} is above this server's limit of {policy.max_timeout_ms} ms; "
        f"use at most {policy.max_timeout_ms}, or split the work into shorter calls.",
        rule="timeout-cap",
        subject="timeoutMs",
        allow_with=f"{MAX_TIMEOUT_ENV} / [policy] max_timeout_ms",
    )
