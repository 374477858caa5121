"""Tests of the fake engine itself: other tests trust it, so its behaviour is pinned here."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.fake import FakeEngine, fake_engine  # noqa: F401  (fixture; conftest later)
from tests.support.fake_engine import command_path

# The project's runner passes a minimal environment; run the fake the same way
# so every test also proves the launcher's baked-in paths work without env.
MINIMAL_ENV = {"PATH": "/usr/bin:/bin"}


def run(
    fake: FakeEngine,
    *args: str,
    input: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> subprocess.CompletedProcess[str]:
    """Run the fake like the runner would: explicit env, stdin closed unless given."""
    return subprocess.run(
        [str(fake.path), *args],
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=MINIMAL_ENV if env is None else env,
        timeout=timeout,
        check=False,
    )


def wait_for_calls(fake: FakeEngine, n: int, timeout: float = 5.0) -> list[dict[str, object]]:
    """Poll the log until ``n`` invocations are recorded (the fake logs before responding)."""
    deadline = time.monotonic() + timeout
    while True:
        calls = fake.calls()
        if len(calls) >= n or time.monotonic() > deadline:
            return calls
        time.sleep(0.02)


# -- defaults ------------------------------------------------------------------


def test_builtin_defaults(fake_engine: FakeEngine) -> None:  # noqa: F811
    """With no scenario the fake answers like a healthy engine."""
    assert run(fake_engine, "--version").stdout == "agent-browser 0.39.4\n"
    assert run(fake_engine, "--json", "--version").stdout == "agent-browser 0.39.4\n"
    assert "Usage: agent-browser" in run(fake_engine, "--help").stdout
    res = run(fake_engine, "--json", "get", "url")
    assert res.returncode == 0
    assert json.loads(res.stdout) == {"success": True, "data": {}, "error": None}
    assert len(fake_engine.calls()) == 4


# -- matching ------------------------------------------------------------------


def test_argv_rule_is_exact(fake_engine: FakeEngine) -> None:  # noqa: F811
    """``argv`` matches only the identical list, so tests can pin exact argv."""
    fake_engine.on({"argv": ["get", "url"]}, envelope={"data": {"url": "https://a.test/"}})
    assert json.loads(run(fake_engine, "get", "url").stdout)["data"] == {"url": "https://a.test/"}
    assert json.loads(run(fake_engine, "--json", "get", "url").stdout)["data"] == {}
    assert [c["rule"] for c in fake_engine.calls()] == [0, None]


@pytest.mark.parametrize(
    "argv",
    [
        ["get", "url"],
        ["--json", "get", "url"],
        ["--json", "true", "--session", "s1", "get", "url"],
        ["--session=s1", "--namespace", "ns", "get", "url", "--json"],
        ["--headed", "false", "--cdp", "9222", "get", "url"],
    ],
)
def test_command_rule_strips_global_flags(
    fake_engine: FakeEngine,  # noqa: F811
    argv: list[str],
) -> None:
    """``command`` is a prefix of the argv once leading global flags are removed."""
    fake_engine.on({"command": ["get", "url"]}, exit=7)
    assert run(fake_engine, *argv).returncode == 7


@pytest.mark.parametrize(
    ("argv", "path"),
    [
        (["--json", "false", "open", "x"], ["open", "x"]),
        (["--session", "get", "url"], ["url"]),  # --session eats "get" as its value
        (["--json"], []),
        (["snapshot", "-i", "--json"], ["snapshot", "-i", "--json"]),
    ],
)
def test_command_path(argv: list[str], path: list[str]) -> None:
    """Only flags before the first non-flag token are global."""
    assert command_path(argv) == path


def test_command_rule_rejects_other_commands(fake_engine: FakeEngine) -> None:  # noqa: F811
    """A different command path falls through to the defaults."""
    fake_engine.on({"command": ["get", "url"]}, exit=7)
    assert run(fake_engine, "get", "title").returncode == 0
    assert run(fake_engine, "--session", "get", "url").returncode == 0


def test_contains_ignores_order(fake_engine: FakeEngine) -> None:  # noqa: F811
    """``contains`` needs every token, in any order."""
    fake_engine.on({"contains": ["--session", "open"]}, exit=3)
    assert run(fake_engine, "open", "https://x.test", "--session", "s").returncode == 3
    assert run(fake_engine, "open", "https://x.test").returncode == 0


def test_first_match_wins_then_default(fake_engine: FakeEngine) -> None:  # noqa: F811
    """Rules are ordered; ``default`` replaces the built-ins when nothing matches."""
    fake_engine.on({"command": ["open"]}, exit=1).on({"any": True}, exit=2)
    assert run(fake_engine, "open", "u").returncode == 1
    assert run(fake_engine, "close").returncode == 2
    fake_engine.reset().default(stdout="plain\n", exit=5)
    res = run(fake_engine, "--version")
    assert (res.returncode, res.stdout) == (5, "plain\n")
    assert len(fake_engine.calls()) == 1  # reset cleared the log


def test_times_limits_a_rule(fake_engine: FakeEngine) -> None:  # noqa: F811
    """``times`` lets a test script "fail twice, then succeed"."""
    fake_engine.on({"command": ["open"]}, times=2, envelope={"error": "boom"}, exit=1)
    codes = [run(fake_engine, "open", "u").returncode for _ in range(4)]
    assert codes == [1, 1, 0, 0]
    assert [c["rule"] for c in fake_engine.calls()] == [0, 0, None, None]


def test_times_is_safe_under_concurrency(fake_engine: FakeEngine) -> None:  # noqa: F811
    """Parallel invocations share the budget through the locked state file."""
    fake_engine.on({"any": True}, times=3, exit=3)
    procs = [
        subprocess.Popen(
            [str(fake_engine.path), "x"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            env=MINIMAL_ENV,
        )
        for _ in range(8)
    ]
    codes = sorted(p.wait(timeout=10) for p in procs)
    assert codes == [0, 0, 0, 0, 0, 3, 3, 3]


def test_unknown_keys_are_rejected(fake_engine: FakeEngine, tmp_path: Path) -> None:  # noqa: F811
    """Typos fail loudly: in the helper, and in the fake for hand-written scenarios."""
    with pytest.raises(ValueError, match="respond"):
        fake_engine.on({"any": True}, exitcode=1)
    with pytest.raises(ValueError, match="match"):
        fake_engine.on({"cmd": ["x"]})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"rules": [{"match": {"any": True}, "respond": {"exot": 1}}]}))
    res = run(fake_engine, "x", env={**MINIMAL_ENV, "FAKE_ENGINE_SCENARIO": str(bad)})
    assert res.returncode == 97
    assert "bad scenario" in res.stderr


# -- log -----------------------------------------------------------------------


def test_log_records_argv_stdin_and_env(fake_engine: FakeEngine, tmp_path: Path) -> None:  # noqa: F811
    """Each call logs argv, stdin and the engine-relevant environment (not the rest)."""
    env = {
        **MINIMAL_ENV,
        "HOME": str(tmp_path),
        "TMPDIR": str(tmp_path),
        "AGENT_BROWSER_SESSION": "s1",
        "UNRELATED_VAR": "x",
    }
    before = time.time()
    run(fake_engine, "--json", "batch", input="open a\nclose\n", env=env)
    run(fake_engine, "get", "url", env=env)
    first, second = fake_engine.calls()
    assert first["argv"] == ["--json", "batch"]
    assert first["stdin"] == "open a\nclose\n"
    assert first["env"] == {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "TMPDIR": str(tmp_path),
        "AGENT_BROWSER_SESSION": "s1",
    }
    assert "UNRELATED_VAR" in first["env_keys"]  # type: ignore[operator]
    assert isinstance(first["pid"], int)
    assert isinstance(first["time"], float)
    assert before <= first["time"] <= time.time()
    assert second["stdin"] is None  # /dev/null is not read
    assert fake_engine.argvs() == [["--json", "batch"], ["get", "url"]]


def test_env_overrides_baked_paths(fake_engine: FakeEngine, tmp_path: Path) -> None:  # noqa: F811
    """``FAKE_ENGINE_*`` beats the launcher's baked paths."""
    other = tmp_path / "other.jsonl"
    scenario = tmp_path / "other-scenario.json"
    scenario.write_text(json.dumps({"default": {"exit": 4}}))
    env = {**MINIMAL_ENV, "FAKE_ENGINE_LOG": str(other), "FAKE_ENGINE_SCENARIO": str(scenario)}
    assert run(fake_engine, "x", env=env).returncode == 4
    assert fake_engine.calls() == []
    assert json.loads(other.read_text())["argv"] == ["x"]
    assert set(fake_engine.env()) == {
        "FAKE_ENGINE_SCENARIO",
        "FAKE_ENGINE_LOG",
        "FAKE_ENGINE_STATE",
        "FAKE_ENGINE_CHILDREN",
    }


def test_unclosed_stdin_pipe_does_not_block_forever(fake_engine: FakeEngine) -> None:  # noqa: F811
    """A runner that forgets to close stdin is visible in the log, not a hung test."""
    proc = subprocess.Popen(
        [str(fake_engine.path), "x"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env={**MINIMAL_ENV, "FAKE_ENGINE_STDIN_TIMEOUT_S": "0.2"},
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write(b"partial")
        proc.stdin.flush()
        assert proc.wait(timeout=5) == 0
    finally:
        proc.kill()
        proc.wait()
        assert proc.stdin is not None
        proc.stdin.close()
    (call,) = fake_engine.calls()
    assert call["stdin"] == "partial"
    assert call["stdin_timed_out"] is True


# -- responses -----------------------------------------------------------------


def test_stdout_json_envelope_stderr_exit(fake_engine: FakeEngine) -> None:  # noqa: F811
    """Respond kinds combine in a fixed order."""
    fake_engine.on({"argv": ["a"]}, stdout="pre\n", json={"k": 1}, stderr="warn\n", exit=2)
    fake_engine.on({"argv": ["b"]}, envelope={"error": "nope"}, exit=1)
    res = run(fake_engine, "a")
    assert (res.returncode, res.stdout, res.stderr) == (2, 'pre\n{"k": 1}\n', "warn\n")
    res = run(fake_engine, "b")
    assert res.returncode == 1
    assert json.loads(res.stdout) == {"success": False, "data": None, "error": "nope"}


def test_echo_stdin(fake_engine: FakeEngine) -> None:  # noqa: F811
    """``echo_stdin`` returns what the engine received, merged into ``data``."""
    fake_engine.on({"any": True}, echo_stdin=True, envelope={"data": {"n": 1}})
    res = run(fake_engine, "batch", input="hello")
    assert json.loads(res.stdout) == {
        "success": True,
        "data": {"n": 1, "stdin": "hello"},
        "error": None,
    }


def test_malformed(fake_engine: FakeEngine) -> None:  # noqa: F811
    """``malformed`` is truncated JSON with a zero exit: the parser must cope."""
    fake_engine.on({"any": True}, malformed=True)
    res = run(fake_engine, "get", "url")
    assert (res.returncode, res.stdout) == (0, '{"success": tru')
    with pytest.raises(json.JSONDecodeError):
        json.loads(res.stdout)


@pytest.mark.parametrize("size_mib", [1, 0.001])
def test_big_output_is_valid_and_exact(
    fake_engine: FakeEngine,  # noqa: F811
    size_mib: float,
) -> None:
    """``big_mib`` streams a valid envelope whose blob is deterministic and exact in size."""
    fake_engine.on({"any": True}, big_mib=size_mib, envelope={"data": {"kind": "big"}})
    res = subprocess.run(
        [str(fake_engine.path), "snapshot"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=MINIMAL_ENV,
        timeout=10,
        check=False,
    )
    assert res.returncode == 0
    env = json.loads(res.stdout)
    assert env["success"] is True and env["error"] is None
    assert env["data"]["kind"] == "big"
    blob = env["data"]["blob"]
    size = int(size_mib * 1024 * 1024)
    assert len(blob) == size
    assert blob == ("0123456789abcdef" * (size // 16 + 1))[:size]


def test_delay_ms(fake_engine: FakeEngine) -> None:  # noqa: F811
    """``delay_ms`` slows the response, for timeout-margin tests."""
    fake_engine.on({"any": True}, delay_ms=200)
    start = time.monotonic()
    run(fake_engine, "x")
    assert time.monotonic() - start >= 0.2


def test_touch_file(fake_engine: FakeEngine, tmp_path: Path) -> None:  # noqa: F811
    """``touch_file`` simulates an artifact the engine writes (e.g. a screenshot)."""
    shot = tmp_path / "shot.png"
    fake_engine.on({"command": ["screenshot"]}, touch_file=str(shot), envelope={"data": {}})
    assert run(fake_engine, "screenshot", str(shot)).returncode == 0
    assert shot.read_bytes()


def test_hang_logs_then_is_killed_by_timeout(fake_engine: FakeEngine) -> None:  # noqa: F811
    """A hung engine is still logged, and ``subprocess.run``'s timeout kills it."""
    fake_engine.on({"any": True}, hang=True)
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run(fake_engine, "open", "u", timeout=0.5)
    assert time.monotonic() - start < 3
    (call,) = wait_for_calls(fake_engine, 1)
    assert call["argv"] == ["open", "u"]
    assert fake_engine.kill_stray() == []  # run() already killed and reaped it


def test_hang_ignoring_sigterm_needs_sigkill(fake_engine: FakeEngine) -> None:  # noqa: F811
    """``ignore_sigterm`` exercises the runner's SIGTERM → SIGKILL escalation."""
    fake_engine.on({"any": True}, hang=True, ignore_sigterm=True)
    proc = subprocess.Popen([str(fake_engine.path), "x"], stdin=subprocess.DEVNULL, env=MINIMAL_ENV)
    try:
        assert len(wait_for_calls(fake_engine, 1)) == 1  # logged => SIGTERM already ignored
        proc.send_signal(signal.SIGTERM)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=0.3)
        assert fake_engine.kill_stray() == [proc.pid]
        assert proc.wait(timeout=5) == -signal.SIGKILL
    finally:
        proc.kill()
        proc.wait()


def test_linger_grandchild_holds_stdout(fake_engine: FakeEngine) -> None:  # noqa: F811
    """The fake exits promptly but its grandchild keeps the pipe open (no EOF).

    ``subprocess.run(capture_output=True)`` would therefore block for ``linger_s``;
    the runner must not wait for EOF once its direct child has exited.
    """
    fake_engine.on({"any": True}, linger_s=30, envelope={"data": {"ok": True}})
    start = time.monotonic()
    proc = subprocess.Popen(
        [str(fake_engine.path), "x"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        env=MINIMAL_ENV,
    )
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    try:
        assert proc.wait(timeout=5) == 0
        assert time.monotonic() - start < 5  # far below linger_s
        (child,) = fake_engine.children()
        assert str(fake_engine.path) in Path(f"/proc/{child}/cmdline").read_text()
        os.kill(child, 0)  # alive

        data = b""
        while not data.endswith(b"\n"):
            assert select.select([fd], [], [], 5)[0], "response never arrived"
            data += os.read(fd, 65536)
        assert json.loads(data)["data"] == {"ok": True}
        # No EOF while the grandchild lives: a read-to-EOF would block here.
        assert select.select([fd], [], [], 0.5)[0] == []

        assert fake_engine.kill_stray() == [child]
        assert select.select([fd], [], [], 5)[0], "EOF never arrived after kill"
        assert os.read(fd, 65536) == b""
    finally:
        fake_engine.kill_stray()
        proc.kill()
        proc.wait()
        proc.stdout.close()
