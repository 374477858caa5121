"""Typed test helper around ``fake_engine.py``: a scriptable stand-in engine binary.

Tests use it for faults the real ``agent-browser`` can't produce on demand
(hangs, broken JSON, huge output, lingering grandchildren) and for exact
argv/stdin/env assertions. The launcher it writes bakes in absolute paths to
its scenario, log and state files, because the project's runner hands the
engine a minimal environment; ``FAKE_ENGINE_*`` env vars still override them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_browser_tools.settings import Settings

FAKE_ENGINE_SCRIPT = Path(__file__).resolve().with_name("fake_engine.py")

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

# Shebangs can't quote; a path with whitespace would be split by the kernel.
_SHEBANG_LIMIT = 255


def _check_keys(kind: str, given: dict[str, object], allowed: frozenset[str]) -> None:
    """Reject unknown keys now, so a typo fails the test instead of never matching."""
    unknown = set(given) - allowed
    if unknown:
        raise ValueError(f"unknown {kind} keys {sorted(unknown)}; allowed: {sorted(allowed)}")


class FakeEngine:
    """A fake ``agent-browser`` executable whose behaviour a test scripts with rules."""

    def __init__(self, workdir: Path) -> None:
        """Create the launcher and (empty) scenario in ``workdir``; the log starts empty."""
        workdir.mkdir(parents=True, exist_ok=True)
        self.workdir = workdir.resolve()
        self.path = self.workdir / "agent-browser"
        self.scenario_path = self.workdir / "scenario.json"
        self.log_path = self.workdir / "calls.jsonl"
        self.state_path = self.workdir / "state.json"
        self.children_path = self.workdir / "children.jsonl"
        self._rules: list[dict[str, object]] = []
        self._default: dict[str, object] | None = None
        self._write_launcher()
        self._write_scenario()

    # -- scripting ---------------------------------------------------------------

    def on(
        self, match: dict[str, object], *, times: int | None = None, **respond: object
    ) -> FakeEngine:
        """Append a rule (first match wins); ``times`` limits how often it may fire."""
        _check_keys("match", match, MATCH_KINDS)
        _check_keys("respond", respond, RESPOND_KINDS)
        if times is not None and times < 0:
            raise ValueError("times must be >= 0")
        rule: dict[str, object] = {"match": dict(match), "respond": dict(respond)}
        if times is not None:
            rule["times"] = times
        self._rules.append(rule)
        self._write_scenario()
        return self

    def default(self, **respond: object) -> FakeEngine:
        """Set the response used when no rule matches (replaces the built-in defaults)."""
        _check_keys("respond", respond, RESPOND_KINDS)
        self._default = dict(respond)
        self._write_scenario()
        return self

    def reset(self) -> FakeEngine:
        """Forget rules, default, call log and ``times`` counters."""
        self._rules.clear()
        self._default = None
        streamoff = self.log_path.with_name(self.log_path.name + ".streamoff")
        for p in (self.log_path, self.state_path, streamoff):
            p.unlink(missing_ok=True)
        self._write_scenario()
        return self

    # -- inspection ----------------------------------------------------------------

    def calls(self) -> list[dict[str, object]]:
        """Every invocation so far, oldest first, as logged by the fake."""
        return _read_jsonl(self.log_path)

    def argvs(self) -> list[list[str]]:
        """Just the argv of each invocation: the common assertion."""
        out: list[list[str]] = []
        for call in self.calls():
            argv = call["argv"]
            assert isinstance(argv, list)
            out.append([str(a) for a in argv])
        return out

    def stream_offs(self) -> list[dict[str, object]]:
        """Each `stream disable` the tools ran (`argv`, `time`), answered apart from the rules."""
        return _read_jsonl(self.log_path.with_name(self.log_path.name + ".streamoff"))

    def children(self) -> list[int]:
        """PIDs of grandchildren spawned by ``linger_s`` responses."""
        pids: list[int] = []
        for rec in _read_jsonl(self.children_path):
            pid = rec.get("pid")
            if isinstance(pid, int):
                pids.append(pid)
        return pids

    def env(self) -> dict[str, str]:
        """``FAKE_ENGINE_*`` variables pointing at this fake's files (optional: baked in)."""
        return {
            "FAKE_ENGINE_SCENARIO": str(self.scenario_path),
            "FAKE_ENGINE_LOG": str(self.log_path),
            "FAKE_ENGINE_STATE": str(self.state_path),
            "FAKE_ENGINE_CHILDREN": str(self.children_path),
        }

    # -- cleanup -------------------------------------------------------------------

    def kill_stray(self) -> list[int]:
        """SIGKILL any still-running fake or grandchild of this fake; return their PIDs.

        A PID is only killed if its command line names this fake's launcher,
        so a recycled PID belonging to something else is never touched.
        """
        marker = str(self.path)
        pids = set(self.children())
        for call in self.calls():
            pid = call.get("pid")
            if isinstance(pid, int):
                pids.add(pid)
        killed: list[int] = []
        for pid in sorted(pids):
            if pid == os.getpid() or marker not in _cmdline(pid):
                continue
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
            killed.append(pid)
        return killed

    # -- internals -----------------------------------------------------------------

    def _write_launcher(self) -> None:
        """Write an executable that runs the fake with this venv's Python and baked paths."""
        exe = sys.executable
        shebang = f"#!{exe} -IBS"  # isolated, no .pyc litter, no site: stdlib only
        if any(c.isspace() for c in exe) or len(shebang) > _SHEBANG_LIMIT:
            raise RuntimeError(f"interpreter path unusable in a shebang: {exe!r}")
        lines = [
            shebang,
            "# Generated by tests/support/fake.py: the fake agent-browser engine.",
            "import sys",
            f"sys.path.insert(0, {str(FAKE_ENGINE_SCRIPT.parent)!r})",
            "from fake_engine import main",
            "sys.exit(main(",
            f"    scenario={str(self.scenario_path)!r},",
            f"    log={str(self.log_path)!r},",
            f"    state={str(self.state_path)!r},",
            f"    children={str(self.children_path)!r},",
            "))",
            "",
        ]
        self.path.write_text("\n".join(lines), encoding="utf-8")
        self.path.chmod(0o755)

    def _write_scenario(self) -> None:
        """Atomically replace the scenario so a concurrently starting fake never reads half."""
        scenario: dict[str, object] = {"rules": self._rules}
        if self._default is not None:
            scenario["default"] = self._default
        tmp = self.scenario_path.with_name(self.scenario_path.name + ".tmp")
        tmp.write_text(json.dumps(scenario, indent=1), encoding="utf-8")
        os.replace(tmp, self.scenario_path)


def _read_jsonl(path: Path) -> list[dict[str, object]]:
    """Parse a JSON-lines file; a missing file is an empty list."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    out: list[dict[str, object]] = []
    for line in text.splitlines():
        if line.strip():
            rec = json.loads(line)
            assert isinstance(rec, dict)
            out.append(rec)
    return out


def _cmdline(pid: int) -> str:
    """The process's command line, or '' if it is gone (or a zombie)."""
    if Path("/proc/self").exists():
        try:
            raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return ""
        return raw.replace(b"\0", b" ").decode("utf-8", "replace")
    try:  # no /proc (e.g. macOS)
        res = subprocess.run(
            ["ps", "-o", "command=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return res.stdout.strip()


@pytest.fixture
def fake_engine(tmp_path: Path) -> Iterator[FakeEngine]:
    """A fresh fake engine per test; kills anything it left running afterwards."""
    fake = FakeEngine(tmp_path / "fake-engine")
    try:
        yield fake
    finally:
        fake.kill_stray()


def fake_settings(fake: FakeEngine, tmp_path: Path, **env: str) -> Settings:
    """Settings for `BrowserTools` on `fake`: the process env without engine variables, a
    private HOME and state dir under `tmp_path`, no settle wait (the fake runs no page script,
    so its scripted probe rows would not line up), then `env` (which may override any of
    them)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_BROWSER")}
    (tmp_path / "home").mkdir(exist_ok=True)
    return Settings.load(
        env={
            **base,
            "HOME": str(tmp_path / "home"),
            "AGENT_BROWSER_TOOLS_BIN": str(fake.path),
            "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
            "AGENT_BROWSER_TOOLS_SETTLE_MS": "0",
            **env,
        },
        cwd=tmp_path,
    )
