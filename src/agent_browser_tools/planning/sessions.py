"""Which browser session a call runs against (pure).

- A caller's `--session`, `AGENT_BROWSER_SESSION` or a native config `session` default wins:
  that browser is caller-owned and never closed by us.
- Sessionless commands (help/version, skills, local auth/profile/setup, `session list`, local
  state lifecycle) never get `--session`: they must not allocate or consume a browser.
- Otherwise the call uses the conversation's implicit managed session: a stable name derived
  from the root group id (shared by sub-agents), or a new name under `sessionMode: "fresh"`.
- Launch-scoped flags are only honoured by the engine when a browser starts; on an already
  active implicit session they would be silently ignored, so they are rejected with the
  `sessionMode: "fresh"` fix.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent_browser_tools import taxonomy
from agent_browser_tools.planning.argv_rules import ArgvRejected, CheckedArgv
from agent_browser_tools.state.models import ConversationState, SessionKey

MANAGED_PREFIX = "abt-"
_FRESH_SUFFIX_LEN = 6


@dataclass(frozen=True)
class SessionPlan:
    """The session decision for one call."""

    key: SessionKey | None
    inject: tuple[str, ...]
    used_implicit_session: bool
    ownership: Literal["managed", "caller"] | None
    launch_flags: tuple[str, ...]
    fresh_from: str | None = None  # previous managed session when rotating
    fresh: bool = False


def managed_base_name(root_id: str) -> str:
    """Stable managed session name for a root conversation (short: sockets have path limits)."""
    return MANAGED_PREFIX + hashlib.sha256(root_id.encode()).hexdigest()[:12]


def is_managed_name(session: str, root_id: str) -> bool:
    """The one test of "the wrapper's own managed slot": `abt-<root>` or one of its fresh
    rotations (`abt-<root>-<6 hex>`). Planning (ownership, the idle-timeout rule) and the
    child environment both use it, so no name is managed for one and caller-owned for the
    other (`abt-<root>x` is the caller's)."""
    base = managed_base_name(root_id)
    if session == base:
        return True
    suffix = session[len(base) + 1 :] if session.startswith(base + "-") else ""
    return len(suffix) == _FRESH_SUFFIX_LEN and all(c in "0123456789abcdef" for c in suffix)


def fresh_name(root_id: str, nonce: str) -> str:
    """A new managed name for a fresh launch. Derived from `nonce` (conversation + journal
    position) so that planning stays pure and re-planning the same call gives the same name."""
    suffix = hashlib.sha256(f"{root_id}\0{nonce}".encode()).hexdigest()[:_FRESH_SUFFIX_LEN]
    return f"{managed_base_name(root_id)}-{suffix}"


def native_session_default(env: Mapping[str, str], cwd: Path) -> str | None:
    """A session chosen by the user's engine configuration, if any."""
    if env.get("AGENT_BROWSER_SESSION"):
        return env["AGENT_BROWSER_SESSION"]
    candidates = []
    if env.get("AGENT_BROWSER_CONFIG"):
        candidates.append(Path(env["AGENT_BROWSER_CONFIG"]).expanduser())
    else:
        home = Path(env.get("HOME", "~")).expanduser()
        candidates += [home / ".agent-browser" / "config.json", cwd / "agent-browser.json"]
    chosen: str | None = None
    for path in candidates:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("session"), str) and data["session"]:
            chosen = data["session"]
    return chosen


def engine_namespace(raw: str | None) -> str | None:
    """The namespace the engine uses for `--namespace RAW`, or None for its root dir.

    Engine 0.39.4 turns the value into a path component before using it (measured: `Team`,
    `a/b` and `x y` run in `team`, `a-b` and `x-y`; `.` and `..` in the root): letters and
    digits lowercased, `-`/`_` kept after a letter or digit, any other run of characters one
    `-`, trailing separators dropped. Keys use the engine's name, so `Team` and `team` are one
    browser (one lock, one state entry) and its run files are found where the engine put them.
    """
    if raw is None:
        return None
    out: list[str] = []
    separated = False
    for char in raw:
        if char.isalnum():
            out.append(char.lower())
            separated = False
        elif out and not separated:
            out.append(char if char in "-_" else "-")
            separated = True
    return "".join(out).rstrip("-_") or None


def _flag_value(globals_: Sequence[tuple[str, str | None]], name: str) -> str | None:
    value: str | None = None
    for flag, flag_value in globals_:
        if flag == name:
            value = flag_value
    return value


def launch_flags_of(globals_: Sequence[tuple[str, str | None]]) -> tuple[str, ...]:
    """Launch-scoped flags and daemon settings in the call, rendered `--flag` or
    `--flag=value` for comparison: both are fixed for a running browser."""
    found = []
    for name, value in globals_:
        spec = taxonomy.global_flag(name)
        if spec is not None and (spec.launch_scoped or spec.daemon_setting):
            found.append(name if value is None else f"{name}={value}")
    return tuple(found)


def plan_session(
    checked: CheckedArgv,
    *,
    session_mode: Literal["auto", "fresh"],
    state: ConversationState,
    root_id: str,
    native_default: str | None,
    nonce: str = "",
) -> SessionPlan:
    """Decide session injection; raise `ArgvRejected` for launch flags on an active session."""
    launch = launch_flags_of(checked.globals_)
    namespace = engine_namespace(_flag_value(checked.globals_, "--namespace"))
    explicit = _flag_value(checked.globals_, "--session")
    if checked.inspection:
        return SessionPlan(None, (), False, None, launch)
    if explicit is not None:
        owner = _owner(explicit, root_id)
        key = SessionKey(session=explicit, namespace=namespace)
        if owner == "managed":
            _reject_ignored_launch_flags(launch, state, key, explicit)
        # The caller's own launch flags are the caller's business, but a daemon setting it
        # gave once is repeated: without it the engine replaces the daemon (and its pending
        # confirmations) under the offered `confirm <id>`.
        kept = _relaunch_guard(launch, state, key, daemon_only=owner == "caller")
        return SessionPlan(key, kept, False, owner, launch)
    if native_default is not None:
        key = SessionKey(session=native_default, namespace=namespace)
        return SessionPlan(key, (), False, _owner(native_default, root_id), launch)
    if checked.match is not None and checked.match.spec.session is taxonomy.SessionNeed.SESSIONLESS:
        return SessionPlan(None, (), False, None, launch)
    current = state.managed_session or managed_base_name(root_id)
    if session_mode == "fresh":
        name = fresh_name(root_id, nonce or str(state.last_seq))
        key = SessionKey(session=name, namespace=namespace)
        previous = state.managed_session
        active_prev = (
            previous is not None
            and state.session(SessionKey(session=previous, namespace=namespace)).active
        )
        return SessionPlan(
            key,
            ("--session", name),
            True,
            "managed",
            launch,
            fresh_from=previous if active_prev else None,
            fresh=True,
        )
    key = SessionKey(session=current, namespace=namespace)
    _reject_ignored_launch_flags(launch, state, key, current)
    inject = ("--session", current, *_relaunch_guard(launch, state, key))
    return SessionPlan(key, inject, True, "managed", launch)


def _owner(session: str, root_id: str) -> Literal["managed", "caller"]:
    return "managed" if is_managed_name(session, root_id) else "caller"


def _relaunch_guard(
    launch: tuple[str, ...], state: ConversationState, key: SessionKey, *, daemon_only: bool = False
) -> tuple[str, ...]:
    """Repeat the managed browser's recorded launch flags and daemon settings that a
    follow-up omits.

    The engine treats them as part of a daemon's identity: a follow-up without the first
    call's `--confirm-actions click` (or, when environment or config also carries launch
    settings, its `--user-agent X`) silently relaunches a blank browser and drops pending
    confirmations. Sending the same flags keeps the identity, and the page, stable.
    """
    entry = state.session(key)
    if not entry.active or not entry.launch_flags:
        return ()
    given = {flag.partition("=")[0] for flag in launch}
    tokens: list[str] = []
    for flag in entry.launch_flags:
        if "[REDACTED]" in flag:
            continue  # a secret value is never journaled, so it cannot be repeated
        name = flag.partition("=")[0]
        spec = taxonomy.global_flag(name)
        if daemon_only and (spec is None or not spec.daemon_setting):
            continue
        if name not in given:
            tokens += flag_tokens(flag)
    return tuple(tokens)


def flag_tokens(flag: str) -> list[str]:
    """A recorded flag (`--name` or `--name=value`) as the argv tokens that set it again."""
    name, sep, value = flag.partition("=")
    return [name, value] if sep else [name]


def _reject_ignored_launch_flags(
    launch: tuple[str, ...], state: ConversationState, key: SessionKey, current: str
) -> None:
    """Launch flags (and daemon settings) a running managed browser does not have would be
    ignored (or replace the browser): refuse them. Repeating recorded ones is fine."""
    entry = state.session(key)
    changed = [flag for flag in launch if flag not in entry.launch_flags]
    if changed and entry.active:
        raise ArgvRejected(
            f"launch-scoped flag(s) {', '.join(changed)} only apply when a browser starts, and "
            f"the implicit session {current!r} is already running with "
            f"{', '.join(entry.launch_flags) or 'none'}, so they would be ignored or replace "
            "its browser and page. Retry "
            'with the top-level field sessionMode: "fresh" (or an explicit --session for a new '
            "browser); do not put --session-mode in args."
        )
