"""Direct-tool planning: validated input + state -> `ExecutionPlan` (pure).

The plan is everything needed to run and interpret one call: the exact argv after the binary
(`effectiveArgs`), stdin, output mode, session decision and watchdog. Building it never
spawns; a rule violation raises `ArgvRejected` with the fix.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Literal

from agent_browser_tools import taxonomy
from agent_browser_tools.engine.envelope import OutputMode
from agent_browser_tools.planning.argv_rules import CheckedArgv, check_argv
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.sessions import SessionPlan, plan_session
from agent_browser_tools.planning.timeouts import TimeoutPlan, plan_timeout
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.models import ConversationState
from agent_browser_tools.taxonomy import CommandMatch


@dataclass(frozen=True)
class ExecutionPlan:
    """One call, fully decided."""

    args: tuple[str, ...]
    effective_args: tuple[str, ...]
    stdin: str | None
    output_mode: OutputMode
    caller_json: bool
    session_mode: Literal["auto", "fresh"]
    checked: CheckedArgv
    session: SessionPlan
    timeout: TimeoutPlan
    path: tuple[str, ...]
    row_matches: tuple[CommandMatch | None, ...] | None

    @property
    def match(self) -> CommandMatch | None:
        return self.checked.match

    @property
    def is_batch(self) -> bool:
        return self.row_matches is not None


def output_choice(checked: CheckedArgv) -> tuple[OutputMode, bool, bool]:
    """(mode, caller asked for JSON, caller chose a mode). Last `--json` occurrence wins."""
    if checked.inspection:
        return OutputMode.TEXT, False, True
    chosen: str | None = None
    seen = False
    for name, value in checked.globals_:
        if name == "--json":
            seen = True
            chosen = value
    if not seen:
        return OutputMode.JSON, False, False
    if chosen is not None and chosen.lower() == "false":
        return OutputMode.TEXT, False, True
    return OutputMode.JSON, True, True


def _render_globals(globals_: tuple[tuple[str, str | None], ...]) -> list[str]:
    out: list[str] = []
    for name, value in globals_:
        out.append(name)
        if value is not None:
            out.append(value)
    return out


def _command_argv(checked: CheckedArgv) -> tuple[list[str], str | None]:
    """Caller argv as it will run (normalizations applied), and the stdin to send."""
    stdin = checked.stdin
    batch = checked.batch
    if batch is not None and batch.source == "stdin" and stdin is not None:
        original = [list(row) for row in json.loads(stdin)]
        if original != [list(row) for row in batch.rows]:
            stdin = json.dumps([list(row) for row in batch.rows])
    rewritten: dict[str, str] = {}
    if batch is not None and batch.source == "args":
        # Only rows the rules rewrote (URL-less `open`) change; every other row string goes out
        # exactly as written, because re-joining split tokens would lose the caller's quoting.
        rewritten = {
            raw: shlex.join(row)
            for raw, row in zip(batch.raw, batch.rows, strict=True)
            if taxonomy.batch_row_words(raw) != row
        }
    if checked.normalized_from is None and not rewritten:
        return list(checked.caller_args), stdin
    command = [rewritten.get(t, t) for t in checked.command_tokens]
    return [*_render_globals(checked.globals_), *command], stdin


def build_plan(
    inp: AgentBrowserInput,
    state: ConversationState,
    settings: Settings,
    *,
    root_id: str,
    native_default: str | None,
    nonce: str = "",
) -> ExecutionPlan:
    """Validate and decide; raises `ArgvRejected`."""
    checked = check_argv(inp.args, inp.stdin)
    session = plan_session(
        checked,
        session_mode=inp.sessionMode,
        state=state,
        root_id=root_id,
        native_default=native_default,
        nonce=nonce,
    )
    mode, caller_json, chosen = output_choice(checked)
    command_argv, stdin = _command_argv(checked)
    prefix = ([] if chosen else ["--json"]) + list(session.inject)
    effective = tuple(prefix + command_argv)
    rows = checked.batch.rows if checked.batch is not None else None
    row_matches: tuple[CommandMatch | None, ...] | None = None
    row_commands: tuple[tuple[str, ...], ...] | None = None
    if rows is not None:
        # Rows may carry their own global flags; rules that read the command (watchdog
        # durations, taxonomy lookups) must see the command words, not a leading flag.
        row_commands = tuple(tuple(taxonomy.split_global_flags(row)[1]) for row in rows)
        row_matches = tuple(
            taxonomy.resolve_command(command) if command else None for command in row_commands
        )
    entry = state.session(session.key) if session.key is not None else None
    refs = entry.ref_snapshot.refs if entry is not None and entry.ref_snapshot else {}
    timeout = plan_timeout(
        caller_ms=inp.timeoutMs,
        command=checked.command_tokens,
        batch_rows=row_commands,
        stdin=stdin,
        refs=refs,
        default_ms=settings.process_timeout_ms,
        dialog_ms=settings.dialog_process_timeout_ms,
        dialog_trigger_ms=settings.dialog_trigger_process_timeout_ms,
    )
    path = checked.match.spec.path if checked.match is not None else checked.command_tokens[:2]
    return ExecutionPlan(
        args=tuple(inp.args),
        effective_args=effective,
        stdin=stdin,
        output_mode=mode,
        caller_json=caller_json,
        session_mode=inp.sessionMode,
        checked=checked,
        session=session,
        timeout=timeout,
        path=tuple(path),
        row_matches=row_matches,
    )
