"""A scriptable stand-in for the ``agent-browser`` engine binary, for tests.

The real engine cannot hang, crash, print broken JSON or leave a grandchild
holding its stdout on demand, and it cannot tell a test the exact argv, stdin
and environment it was given. This script can. It is stdlib-only and never
imports the project, so it behaves the same whatever the project's state.

It is usually started through the launcher that ``tests/support/fake.py``
writes: that launcher bakes in the scenario, log, state and children paths
(because the project's runner passes the engine a minimal environment) and
calls :func:`main`. The ``FAKE_ENGINE_*`` environment variables, when present,
override the baked paths.

Scenario file (JSON)::

    {"rules": [{"match": {...}, "respond": {...}, "times": N}, ...],
     "default": {...respond...},
     "stdin_timeout_s": 5.0}

The first rule whose ``match`` holds (every given kind must hold) and whose
``times`` budget is not spent wins; else ``default``; else built-in defaults.

Match kinds: ``argv`` (exact list), ``contains`` (all tokens present, any
order), ``command`` (prefix of the argv once leading global flags are
stripped), ``any`` (true).

Respond kinds, applied in this order: ``touch_file``, ``delay_ms``,
``linger_s`` (spawn the grandchild), ``stderr``, ``stdout``, ``json``, the
envelope (``envelope`` / ``echo_stdin`` / ``big_mib``), ``malformed``, then
``hang`` (with ``ignore_sigterm``) or ``exit``.

``stream disable`` is answered before any rule (see :func:`_stream_off`); it fails when
``FAKE_ENGINE_STREAM_OFF_FAILS`` is set in the engine's environment.

Keep the imports small: the fake is spawned many times per test run.
"""

from __future__ import annotations

import json
import os
import select
import stat
import sys
import time

VERSION_TEXT = "agent-browser 0.39.4\n"
HELP_TEXT = (
    "agent-browser (fake engine for tests)\n"
    "\n"
    "Usage: agent-browser <command> [args] [options]\n"
    "\n"
    "  --json        JSON output\n"
    "  --version     Show version\n"
)

# Exit codes the fake uses for its own faults, so a test can tell them apart.
EXIT_BAD_SCENARIO = 97
STREAM_OFF = ("stream", "disable")
STREAM_OFF_LOG_SUFFIX = ".streamoff"

MATCH_KINDS = frozenset({"argv", "contains", "command", "any"})
RESPOND_KINDS = frozenset(
    {
        "stdout",
        "json",
        "envelope",
        "stderr",
        "exit",
        "delay_ms",
        "hang",
        "ignore_sigterm",
        "linger_s",
        "malformed",
        "big_mib",
        "touch_file",
        "echo_stdin",
    }
)
RULE_KEYS = frozenset({"match", "respond", "times"})

# Global flags that take no value (an optional literal true/false may follow,
# as the real engine allows). Every other leading ``--flag`` takes one value.
BOOLEAN_FLAGS = frozenset(
    {
        "--json",
        "--headed",
        "--debug",
        "--ignore-https-errors",
        "--allow-file-access",
        "--auto-connect",
        "--webgpu",
        "--no-webmcp",
        "--pin-tab",
        "--no-pin-tab",
        "--content-boundaries",
        "--annotate",
        "--confirm-interactive",
        "--no-auto-dialog",
        "--use-system-ca",
        "--no-ca-cert",
        "--verbose",
        "--quiet",
        "--version",
        "--help",
        "-v",
        "-q",
        "-V",
        "-h",
    }
)
BOOLEAN_VALUES = frozenset({"true", "false"})

LOGGED_ENV = ("HOME", "PATH", "TMPDIR", "XDG_RUNTIME_DIR")
DEFAULT_STDIN_TIMEOUT_S = 5.0
BLOB_UNIT = b"0123456789abcdef"
MIB = 1024 * 1024


class ScenarioError(Exception):
    """The scenario file is unreadable or malformed; the fake refuses to guess."""


def command_path(argv: list[str]) -> list[str]:
    """Return argv without the global flags that precede the first non-flag token."""
    i = 0
    n = len(argv)
    while i < n:
        tok = argv[i]
        if not tok.startswith("-") or tok == "-" or tok == "--":
            break
        if "=" in tok:
            i += 1
        elif tok in BOOLEAN_FLAGS:
            i += 1
            if i < n and argv[i] in BOOLEAN_VALUES:
                i += 1
        else:
            i += 2
    return argv[i:]


def _matches(match: dict[str, object], argv: list[str]) -> bool:
    """Whether every match kind given in ``match`` holds for ``argv``."""
    if "argv" in match and match["argv"] != argv:
        return False
    if "contains" in match:
        tokens = match["contains"]
        if not isinstance(tokens, list) or not all(t in argv for t in tokens):
            return False
    if "command" in match:
        want = match["command"]
        if not isinstance(want, list):
            return False
        path = command_path(argv)
        if path[: len(want)] != want:
            return False
    return not ("any" in match and match["any"] is not True)


def _validate(scenario: object) -> dict[str, object]:
    """Check the scenario's shape so a typo fails loudly instead of silently not matching."""
    if not isinstance(scenario, dict):
        raise ScenarioError("scenario must be a JSON object")
    unknown = set(scenario) - {"rules", "default", "stdin_timeout_s"}
    if unknown:
        raise ScenarioError(f"unknown scenario keys: {sorted(unknown)}")
    rules = scenario.get("rules", [])
    if not isinstance(rules, list):
        raise ScenarioError("'rules' must be a list")
    for idx, rule in enumerate(rules):
        if not isinstance(rule, dict):
            raise ScenarioError(f"rule {idx} must be an object")
        bad = set(rule) - RULE_KEYS
        if bad:
            raise ScenarioError(f"rule {idx}: unknown keys {sorted(bad)}")
        match = rule.get("match", {})
        if not isinstance(match, dict) or set(match) - MATCH_KINDS:
            raise ScenarioError(f"rule {idx}: bad match {match!r}")
        respond = rule.get("respond", {})
        if not isinstance(respond, dict) or set(respond) - RESPOND_KINDS:
            raise ScenarioError(f"rule {idx}: bad respond {respond!r}")
        times = rule.get("times")
        if times is not None and (not isinstance(times, int) or times < 0):
            raise ScenarioError(f"rule {idx}: 'times' must be a non-negative int")
    default = scenario.get("default")
    if default is not None and (not isinstance(default, dict) or set(default) - RESPOND_KINDS):
        raise ScenarioError(f"bad default {default!r}")
    return scenario


def _load_scenario(path: str | None) -> dict[str, object]:
    """Read the scenario; a missing file means built-in defaults only."""
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ScenarioError(f"cannot read {path}: {exc}") from exc
    try:
        return _validate(json.loads(text))
    except ValueError as exc:
        raise ScenarioError(f"{path}: {exc}") from exc


def _read_stdin(idle_timeout_s: float) -> tuple[str | None, bool]:
    """Read stdin if it is a pipe, socket or file; never block past an idle timeout.

    A TTY or ``/dev/null`` (character devices) yields ``None``. A pipe whose
    writer never closes it (an inherited, forgotten stdin) yields what arrived
    plus ``True`` so the test can see the runner's mistake.
    """
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return None, False
    if stat.S_ISREG(mode):
        with os.fdopen(0, "rb", closefd=False) as fh:
            return fh.read().decode("utf-8", "replace"), False
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return None, False
    chunks: list[bytes] = []
    timed_out = False
    while True:
        ready, _, _ = select.select([0], [], [], idle_timeout_s)
        if not ready:
            timed_out = True
            break
        chunk = os.read(0, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace"), timed_out


def _append_line(path: str, record: dict[str, object]) -> None:
    """Append one JSON line under an exclusive lock so concurrent fakes don't interleave."""
    import fcntl

    data = (json.dumps(record) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _choose(
    scenario: dict[str, object], argv: list[str], state_path: str | None
) -> tuple[int | str | None, dict[str, object] | None]:
    """Pick the responding rule; ``times`` budgets are counted in a locked state file."""
    rules = scenario.get("rules") or []
    assert isinstance(rules, list)
    limited = any(isinstance(r, dict) and r.get("times") is not None for r in rules)
    if limited and state_path:
        import fcntl

        fd = os.open(state_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            raw = b""
            while chunk := os.read(fd, 65536):
                raw += chunk
            state = json.loads(raw) if raw.strip() else {}
            fired: dict[str, int] = state.setdefault("fired", {})
            for idx, rule in enumerate(rules):
                if not _matches(rule.get("match", {}), argv):
                    continue
                times = rule.get("times")
                if times is not None and fired.get(str(idx), 0) >= times:
                    continue
                fired[str(idx)] = fired.get(str(idx), 0) + 1
                out = json.dumps(state).encode("utf-8")
                os.lseek(fd, 0, os.SEEK_SET)
                os.ftruncate(fd, 0)
                os.write(fd, out)
                return idx, rule.get("respond", {})
        finally:
            os.close(fd)
    else:
        for idx, rule in enumerate(rules):
            if rule.get("times") is not None:
                continue  # a budget without a state file can't be honoured: never fire
            if _matches(rule.get("match", {}), argv):
                return idx, rule.get("respond", {})
    default = scenario.get("default")
    if isinstance(default, dict):
        return "default", default
    return None, None


def _stream_off(argv: list[str], log_path: str | None) -> int:
    """The tools' stream guard (`stream disable` before a call that may start a daemon): the
    fake has no daemon files, so it sees this before nearly every call. Answered at once and
    logged apart (`FakeEngine.stream_offs`), so scripted rules and call logs stay the test's."""
    if log_path:
        _append_line(log_path + STREAM_OFF_LOG_SUFFIX, {"argv": argv, "time": time.time()})
    if os.environ.get("FAKE_ENGINE_STREAM_OFF_FAILS"):
        sys.stderr.write("stream server: Operation not permitted\n")
        return 1
    sys.stdout.write(json.dumps({"success": True, "data": {"enabled": False}, "error": None}))
    return 0


def _builtin_response(argv: list[str]) -> dict[str, object]:
    """What the fake does with no scenario: version, help, or an empty success envelope."""
    if not command_path(argv):
        if "--version" in argv or "-V" in argv:
            return {"stdout": VERSION_TEXT}
        if "--help" in argv or "-h" in argv:
            return {"stdout": HELP_TEXT}
    return {"envelope": {"data": {}}}


def _spawn_linger(seconds: float, marker: str, children_path: str | None) -> None:
    """Start a grandchild that inherits stdout/stderr and outlives the fake.

    It stays in the fake's process group, like a daemon the real engine forks,
    and carries ``marker`` (the launcher path) in its argv so cleanup can
    recognise it safely.
    """
    code = "import sys, time; time.sleep(float(sys.argv[1]))"
    args = [sys.executable, "-I", "-S", "-c", code, str(seconds), "fake-engine-linger", marker]
    pid = os.posix_spawn(sys.executable, args, dict(os.environ))
    if children_path:
        _append_line(children_path, {"pid": pid, "parent": os.getpid(), "kind": "linger"})


def _write_envelope(out: object, respond: dict[str, object], stdin: str | None) -> None:
    """Write a success/failure envelope, streaming a big blob in chunks if asked."""
    env = respond.get("envelope")
    env = env if isinstance(env, dict) else {}
    error = env.get("error")
    data = env.get("data", None if error is not None else {})
    if respond.get("echo_stdin"):
        data = dict(data) if isinstance(data, dict) else {}
        data["stdin"] = stdin
    big = respond.get("big_mib")
    write = out.write  # type: ignore[attr-defined]
    if not big:
        record = {"success": error is None, "data": data, "error": error}
        write((json.dumps(record) + "\n").encode("utf-8"))
        return
    data = dict(data) if isinstance(data, dict) else {}
    data.pop("blob", None)
    head = json.dumps(data)[:-1]  # the object without its closing brace
    sep = ", " if data else ""
    write(f'{{"success": true, "data": {head}{sep}"blob": "'.encode())
    total = int(float(big) * MIB)  # type: ignore[arg-type]
    chunk = BLOB_UNIT * (MIB // len(BLOB_UNIT))
    full, rest = divmod(total, len(chunk))
    for _ in range(full):
        write(chunk)
    write(chunk[:rest])
    write(b'"}, "error": null}\n')


def _respond(respond: dict[str, object], stdin: str | None, children_path: str | None) -> int:
    """Carry out a respond spec and return the exit code."""
    touch = respond.get("touch_file")
    if touch:
        with open(str(touch), "wb") as fh:
            fh.write(b"fake-engine artifact\n")
    delay = respond.get("delay_ms")
    if delay:
        time.sleep(float(delay) / 1000.0)  # type: ignore[arg-type]
    linger = respond.get("linger_s")
    if linger:
        _spawn_linger(float(linger), os.path.abspath(sys.argv[0]), children_path)  # type: ignore[arg-type]
    out = sys.stdout.buffer
    try:
        if "stderr" in respond:
            sys.stderr.buffer.write(str(respond["stderr"]).encode("utf-8"))
            sys.stderr.buffer.flush()
        if "stdout" in respond:
            out.write(str(respond["stdout"]).encode("utf-8"))
        if "json" in respond:
            out.write((json.dumps(respond["json"]) + "\n").encode("utf-8"))
        if any(k in respond for k in ("envelope", "echo_stdin", "big_mib")):
            _write_envelope(out, respond, stdin)
        if respond.get("malformed"):
            out.write(b'{"success": tru')
        out.flush()
    except BrokenPipeError:
        # The reader went away; mirror a real CLI dying quietly on SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        return 141
    if respond.get("hang"):
        while True:
            time.sleep(3600)
    code = respond.get("exit", 0)
    return int(code)  # type: ignore[call-overload, no-any-return]


def main(
    argv: list[str] | None = None,
    *,
    scenario: str | None = None,
    log: str | None = None,
    state: str | None = None,
    children: str | None = None,
) -> int:
    """Run one fake engine invocation. Env ``FAKE_ENGINE_*`` overrides the given paths."""
    args = list(sys.argv[1:] if argv is None else argv)
    environ = os.environ
    scenario_path = environ.get("FAKE_ENGINE_SCENARIO") or scenario
    log_path = environ.get("FAKE_ENGINE_LOG") or log
    state_path = environ.get("FAKE_ENGINE_STATE") or state
    if not state_path and log_path:
        state_path = log_path + ".state"
    children_path = environ.get("FAKE_ENGINE_CHILDREN") or children
    if not children_path and log_path:
        children_path = log_path + ".children"

    if command_path(args) == list(STREAM_OFF):
        return _stream_off(args, log_path)

    problem: str | None = None
    try:
        spec = _load_scenario(scenario_path)
    except ScenarioError as exc:
        spec, problem = {}, str(exc)

    timeout = environ.get("FAKE_ENGINE_STDIN_TIMEOUT_S") or spec.get("stdin_timeout_s")
    stdin, stdin_timed_out = _read_stdin(
        float(timeout) if timeout is not None else DEFAULT_STDIN_TIMEOUT_S  # type: ignore[arg-type]
    )

    rule: int | str | None = None
    respond: dict[str, object] | None = None
    if problem is None:
        try:
            rule, respond = _choose(spec, args, state_path)
        except (OSError, ValueError) as exc:
            problem = f"state file {state_path}: {exc}"

    if respond is not None and respond.get("hang") and respond.get("ignore_sigterm"):
        # Before logging: once a test sees the log line, SIGTERM is already ignored.
        import signal

        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    if log_path:
        logged_env = {
            k: v for k, v in environ.items() if k.startswith("AGENT_BROWSER_") or k in LOGGED_ENV
        }
        record: dict[str, object] = {
            "argv": args,
            "stdin": stdin,
            "stdin_timed_out": stdin_timed_out,
            "env": logged_env,
            "env_keys": sorted(environ),
            "cwd": os.getcwd(),
            "pid": os.getpid(),
            "time": time.time(),
            "rule": rule,
        }
        _append_line(log_path, record)

    if problem is not None:
        sys.stderr.write(f"fake_engine: bad scenario: {problem}\n")
        return EXIT_BAD_SCENARIO
    if respond is None:
        respond = _builtin_response(args)
    return _respond(respond, stdin, children_path)


if __name__ == "__main__":
    sys.exit(main())
