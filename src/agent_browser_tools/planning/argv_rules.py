"""Argv rules checked before anything is spawned (pure).

Each rule exists because the engine would otherwise do something surprising: run a different
command, silently ignore a flag, wait forever on stdin, or act on the wrong session. A broken
rule raises `ArgvRejected` whose message states the fix (often the exact corrected argv).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from agent_browser_tools import taxonomy
from agent_browser_tools.input_limits import JsonTextTooDeep, input_problem, loads_json_text
from agent_browser_tools.planning import command_limits
from agent_browser_tools.planning.script_guard import script_problem
from agent_browser_tools.taxonomy import CommandMatch

SHELL_OPERATORS = frozenset({"&&", "||", "|", ";", ">", ">>", "<", "2>", "2>&1", "&", "|&"})
HELP_TOKENS = frozenset({"--help", "-h"})
VERSION_TOKENS = frozenset({"--version", "-V"})
EQUALS_EXCEPTIONS = ("--restore=",)
NAVIGATION_COMMANDS = frozenset({"open", "goto", "navigate"})


class ArgvRejected(ValueError):
    """The argv breaks a wrapper rule; the message says what to send instead."""


@dataclass(frozen=True)
class BatchRows:
    """Batch rows as the engine will run them, with where they came from."""

    rows: tuple[tuple[str, ...], ...]
    source: str  # "args" | "stdin"
    raw: tuple[str, ...] = ()
    """Args-sourced rows as the caller wrote them, so unchanged rows are re-sent verbatim
    (re-joining the split tokens would drop the caller's quoting)."""


@dataclass(frozen=True)
class CheckedArgv:
    """The caller argv after the rules, ready for session and output planning."""

    caller_args: tuple[str, ...]
    globals_: tuple[tuple[str, str | None], ...]
    command_tokens: tuple[str, ...]
    match: CommandMatch | None
    stdin: str | None
    inspection: bool  # native --help / --version: plain text, exact argv, no session
    batch: BatchRows | None = None
    normalized_from: str | None = None  # "url-less-open" | "eval-stdin-tokens"


def _reject_shell_and_binary(args: Sequence[str]) -> None:
    first = args[0]
    if first == "agent-browser" or first.endswith("/agent-browser"):
        fixed = json.dumps(list(args[1:]))
        raise ArgvRejected(f"do not include the binary name in args; send args {fixed} instead.")
    for index, token in enumerate(args):
        # A trailing operator is literal text (`press >`, `keyboard type |`); one followed by
        # more tokens is an attempt at chaining or redirection.
        if token in SHELL_OPERATORS and index < len(args) - 1:
            raise ArgvRejected(
                f"args must not contain shell operators ({token!r}); the tool runs one command "
                'without a shell. For a sequence use args ["batch", "--bail"] with a JSON array '
                "of argv rows in stdin."
            )


def _reject_equals_flags(tokens: Sequence[str], where: str, *, top_level: bool = True) -> None:
    """Global `--flag=value` tokens are not parsed by engine 0.35+ (it would see a stray operand).

    `--restore=<key>` is the one upstream exception, and only at the top level: inside a batch
    row global flags do not belong at all (they go on the outer call, before `batch`).
    """
    for token in tokens:
        if not token.startswith("--") or "=" not in token:
            continue
        if top_level and token.startswith(EQUALS_EXCEPTIONS):
            continue
        name, value = token.split("=", 1)
        if taxonomy.global_flag(name) is None:
            continue
        if top_level:
            raise ArgvRejected(
                f"{where}global flag {token!r} must be split into separate args: "
                f"{json.dumps([name, value])} (agent-browser 0.35+ does not accept --flag=value)."
            )
        raise ArgvRejected(
            f"{where}the --flag=value form {token!r} is not accepted inside batch rows. Put "
            f"global flags on the outer call before `batch`, as separate args: "
            f"{json.dumps([name, value, 'batch'])}."
        )


def _reject_session_mode(tokens: Sequence[str]) -> None:
    for token in tokens:
        if token == "--session-mode" or token.startswith("--session-mode="):
            raise ArgvRejected(
                "--session-mode is not an agent-browser flag; set the top-level field "
                'sessionMode: "fresh" (or "auto") instead of putting it in args.'
            )


def _reject_bare_no_sandbox(
    command: Sequence[str], globals_: Sequence[tuple[str, str | None]]
) -> None:
    guidance = (
        "--no-sandbox is a Chromium launch argument, not an agent-browser flag, and Chromium "
        "arguments are the operator's (`serve --browser-arg`), not part of a call. Leave it "
        "out: when running as root the engine already handles the sandbox."
    )
    if any(name == "--no-sandbox" for name, _ in globals_):
        raise ArgvRejected(guidance)
    if not command:
        return
    if command[0] == "--no-sandbox":
        raise ArgvRejected(guidance)
    if command[0] in NAVIGATION_COMMANDS and "--no-sandbox" in command[1:]:
        raise ArgvRejected(guidance)


def parse_batch_rows(stdin: str | None, operands: Sequence[str]) -> BatchRows:
    """The rows a `batch` will run: raw argument rows win over stdin, as upstream does."""
    if operands:
        # Split as the engine splits (not `shlex`), so every rule sees the words it runs.
        rows = [taxonomy.batch_row_words(raw) for raw in operands]
        return BatchRows(rows=tuple(rows), source="args", raw=tuple(operands))
    if stdin is None or not stdin.strip():
        raise ArgvRejected(
            "batch needs its commands: put a JSON array of argv rows in stdin, e.g. "
            '[["open", "https://example.com"], ["snapshot", "-i"]].'
        )
    try:
        value = loads_json_text(stdin, "batch stdin")
    except JsonTextTooDeep as exc:
        raise ArgvRejected(
            f"{exc} Batch rows are a JSON array of arrays of strings (two levels), e.g. "
            '[["get", "url"], ["snapshot", "-i"]].'
        ) from None
    except json.JSONDecodeError as exc:
        raise ArgvRejected(
            f"batch stdin is not valid JSON ({exc.msg}); send a JSON array of argv rows such as "
            '[["get", "url"], ["snapshot", "-i"]].'
        ) from None
    if not isinstance(value, list) or not all(
        isinstance(row, list) and all(isinstance(t, str) for t in row) for row in value
    ):
        raise ArgvRejected(
            "batch stdin must be a JSON array of arrays of strings, e.g. "
            '[["click", "@e1"], ["get", "title"]].'
        )
    _reject_if(command_limits.batch_rows_problem(len(value)))  # the rows' own limit first
    problem = input_problem(value, "batch stdin")  # a row's words are argv all the same
    if problem is not None:
        raise ArgvRejected(problem.message)
    return BatchRows(rows=tuple(tuple(row) for row in value), source="stdin")


def check_batch_rows(batch: BatchRows) -> tuple[tuple[str, ...], ...]:
    """Validate rows; return them with URL-less `open` rows rewritten to `get url`."""
    effective: list[tuple[str, ...]] = []
    for index, row in enumerate(batch.rows, start=1):
        if not row:
            effective.append(row)  # `[]` is skipped by the engine: pass it through
            continue
        if row[0] == "":
            raise ArgvRejected(
                f'batch row {index} is [""...]: an empty command. Remove the row or give it a '
                'command such as ["get", "url"].'
            )
        _reject_shell_and_binary(row)
        _reject_session_mode(row)
        _reject_equals_flags(row, f"batch row {index}: ", top_level=False)
        row_globals, rest = taxonomy.split_global_flags(row)
        if row_globals and any(name == "--args" for name, _ in row_globals):
            raise ArgvRejected(
                f"batch row {index}: --args only works on the outer call before `batch`, not in "
                "a row (and Chromium arguments are the operator's unless it allows --args)."
            )
        _reject_bare_no_sandbox(rest, row_globals)
        if rest and rest[0] == "batch":
            raise ArgvRejected(
                f"batch row {index} is itself a batch; nested batches are not supported. Flatten "
                "the rows into one array."
            )
        _reject_if(script_problem(row, f"batch row {index}: ", in_batch=True))
        effective.append(_url_less_open(row))
    return tuple(effective)


def _url_less_open(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """`open` without a URL runs as `get url`: it lazily starts the browser, never navigates."""
    globals_, rest = taxonomy.split_global_flags(tokens)
    if not rest or rest[0] != "open":
        return tokens
    if any(not t.startswith("-") for t in rest[1:]):
        return tokens
    prefix: list[str] = []
    for name, value in globals_:
        prefix.append(name)
        if value is not None:
            prefix.append(value)
    return (*prefix, "get", "url", *rest[1:])


def _reject_if(problem: str | None) -> None:
    """Per-command size limits (`input_limits`): refused with the limit named."""
    if problem is not None:
        raise ArgvRejected(problem)


def _is_inspection_flag(name: str) -> bool:
    flag = taxonomy.global_flag(name)
    return flag is not None and flag.inspection


def _is_inspection(args: Sequence[str]) -> bool:
    """Native help/version: every token is help/version or a command word before --help."""
    return all(t in VERSION_TOKENS for t in args) or args[-1] in HELP_TOKENS


def check_argv(args: Sequence[str], stdin: str | None) -> CheckedArgv:
    """Apply every pre-spawn rule; raise `ArgvRejected` on the first broken one."""
    caller = tuple(args)
    if not caller or all(not t.strip() for t in caller):
        raise ArgvRejected('args must name a command, e.g. ["snapshot", "-i"].')
    _reject_shell_and_binary(caller)
    _reject_if(command_limits.stdin_problem(stdin))
    if _is_inspection(caller):
        if stdin:
            raise ArgvRejected("help/version inspection takes no stdin; remove the stdin field.")
        return CheckedArgv(caller, (), caller, None, None, inspection=True)
    _reject_session_mode(caller)
    _reject_equals_flags(caller, "")
    globals_, command_list = taxonomy.split_global_flags(caller)
    command = tuple(command_list)
    _reject_bare_no_sandbox(command, globals_)
    if not command and any(_is_inspection_flag(name) for name, _ in globals_):
        # `--json --version` and friends: upstream prints plain help/version text.
        if stdin:
            raise ArgvRejected("help/version inspection takes no stdin; remove the stdin field.")
        return CheckedArgv(caller, (), caller, None, None, inspection=True)
    if not command:
        raise ArgvRejected(
            f"args {json.dumps(list(caller))} hold only global flags; add a command, e.g. "
            f"{json.dumps([*caller, 'open', 'https://example.com'])}."
        )
    match = taxonomy.resolve_command(command)
    stdin, command, normalized = _check_stdin(command, match, stdin)
    if normalized == "eval-stdin-tokens":
        match = taxonomy.resolve_command(command)
    batch: BatchRows | None = None
    if match is not None and match.spec.path == ("batch",):
        batch = parse_batch_rows(stdin, [t for t in match.operands if not t.startswith("--")])
        _reject_if(command_limits.batch_rows_problem(len(batch.rows)))
        _reject_if(command_limits.rows_typed_text_problem(batch.rows))
        batch = BatchRows(rows=check_batch_rows(batch), source=batch.source, raw=batch.raw)
    elif command[0] == "open" and not any(not t.startswith("-") for t in command[1:]):
        command = ("get", "url", *command[1:])
        match = taxonomy.resolve_command(command)
        normalized = "url-less-open"
    _reject_if(command_limits.typed_text_problem(match))
    _reject_if(command_limits.argument_problem(caller))
    _reject_if(script_problem(command, "", in_batch=False))
    return CheckedArgv(
        caller_args=caller,
        globals_=tuple(globals_),
        command_tokens=tuple(command),
        match=match,
        stdin=stdin,
        inspection=False,
        batch=batch,
        normalized_from=normalized,
    )


def _check_stdin(
    command: tuple[str, ...], match: CommandMatch | None, stdin: str | None
) -> tuple[str | None, tuple[str, ...], str | None]:
    """Stdin only where the engine reads it; fix the common `eval --stdin <script>` mistake.

    An empty `stdin` counts as absent wherever nothing reads it (and for `eval --stdin` with
    the script in args): strict function calling makes every field required, and models then
    send `""` for the stdin they do not mean to give. Where the engine reads stdin, `""` is
    kept as sent (an empty batch or eval script is refused for what it is)."""
    head = command[0]
    if head == "eval" and "--stdin" in command:
        at = command.index("--stdin")
        trailing = command[at + 1 :]
        if trailing and not stdin:
            return " ".join(trailing), command[: at + 1], "eval-stdin-tokens"
        if trailing:
            raise ArgvRejected(
                "eval --stdin got both a script in args and the stdin field; put the script only "
                'in stdin: {"args": ["eval", "--stdin"], "stdin": "document.title"}.'
            )
        if stdin is None or not stdin.strip():
            raise ArgvRejected(
                'eval --stdin needs the script in the stdin field, e.g. {"args": ["eval", '
                '"--stdin"], "stdin": "document.title"}.'
            )
        return stdin, command, None
    if head == "batch":
        return stdin, command, None
    if command[:2] == ("auth", "save") and "--password-stdin" in command:
        if stdin is None:
            raise ArgvRejected("auth save --password-stdin needs the password in the stdin field.")
        return stdin, command, None
    if stdin:
        raise ArgvRejected(
            f"stdin is only accepted for `eval --stdin`, `batch` and `auth save "
            f"--password-stdin`, not for `{' '.join(command[:2])}`; remove the stdin field "
            '(for eval use ["eval", "--stdin"] with the script in stdin).'
        )
    del match
    return None, command, None
