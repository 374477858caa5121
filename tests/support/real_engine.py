"""Fixtures and a process-leak guard for tests that drive the real agent-browser engine.

The engine CLI starts one background daemon per session (it ``setsid``s itself, so it is
reparented to init) and the daemon launches Chromium. Nothing in the pytest process owns
those processes, so this module makes sure they end:

* every test session name is unique and is closed at function teardown, even on failure;
* every test module gets its own short private socket dir that is ``close --all``-ed (with
  the wrapper's per-conversation dirs inside it) and removed at module teardown;
* :func:`pytest_sessionstart` / :func:`pytest_sessionfinish` form a leak guard that fails
  the run (and kills the stragglers) when an engine daemon or Chromium started by this run
  is still alive at the end.

Which processes are "this run's": the guard puts :data:`RUN_MARKER_ENV` into ``os.environ``
at session start, and every process spawned from pytest inherits it (engine CLI -> daemon ->
Chromium -> crashpad handler all keep their environment). A process counts when it carries
this run's marker; never when it carries another run's; and, when it carries none (code that
hands the engine a minimal environment), when its ``AGENT_BROWSER_SOCKET_DIR`` is under a dir
passed to :func:`track_socket_dir`, or always in strict mode (``CI`` set, or
``ABT_LEAK_GUARD=strict``), since nothing else runs on a CI machine. So on a shared dev
machine, other people's engine sessions are never reported or killed.

Seen (engine 0.39.4, Debian Chromium): after ``close`` the daemon, Chromium and both crashpad
handlers are gone within a second; the handlers exit on their own once their browser exits.
One that outlives the grace period is killed and reported, but does not fail the run; a
daemon or browser that outlives it is a real leak.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .fixture_server import FixtureServer, start_fixture_server
from .second_engine import chosen_engine

#: Environment variable whose value tags every process this pytest run spawns.
RUN_MARKER_ENV = "ABT_TEST_RUN_ID"
#: Per-call timeout (seconds) for engine commands issued by the helpers below.
ENGINE_CALL_TIMEOUT_S = 60.0
#: Bound on the teardown ``close`` of one session, so a wedged daemon cannot hang the run.
CLOSE_TIMEOUT_S = 30.0
#: How long processes started by the run may take to exit after the last test.
LEAK_GRACE_S = 15.0

# Engine knobs for tests: a generous action timeout, and an idle timeout that reaps a
# forgotten daemon after 10 minutes even if every cleanup path here failed.
_ENGINE_TEST_SETTINGS = {
    "AGENT_BROWSER_DEFAULT_TIMEOUT": "25000",
    "AGENT_BROWSER_IDLE_TIMEOUT_MS": "600000",
    "AGENT_BROWSER_NO_VERSION_CHECK": "1",  # 0.41 would fetch a Chrome release feed
}

# Inherited engine settings that describe the machine, not the test: kept.
_PASSTHROUGH_SETTINGS = frozenset({"AGENT_BROWSER_EXECUTABLE_PATH"})

# --- running the engine ----------------------------------------------------------------


@dataclass(frozen=True)
class EngineEnv:
    """Where and how engine commands run for one test module.

    ``env`` is a complete environment for ``subprocess``: a copy of ``os.environ`` (so it
    carries the leak guard's run marker) minus inherited ``AGENT_BROWSER_*`` settings
    (except the browser path), plus the private socket dir and the test settings.
    """

    binary: Path
    socket_dir: Path
    env: dict[str, str] = field(repr=False)

    def run(
        self, *args: str, timeout: float = ENGINE_CALL_TIMEOUT_S
    ) -> subprocess.CompletedProcess[str]:
        """Run ``agent-browser ARGS`` with this env; never raises on a non-zero exit."""
        return subprocess.run(
            [str(self.binary), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def run_json(self, *args: str, timeout: float = ENGINE_CALL_TIMEOUT_S) -> dict[str, Any]:
        """Run ``agent-browser --json ARGS`` and return the parsed envelope.

        Fails the test (with stderr) when stdout is not one JSON object, because every
        ``--json`` call of the engine is expected to print exactly that.
        """
        proc = self.run("--json", *args, timeout=timeout)
        try:
            envelope = json.loads(proc.stdout)
        except json.JSONDecodeError:
            pytest.fail(
                f"engine {list(args)!r} printed no JSON (rc={proc.returncode})\n"
                f"stdout: {proc.stdout[:2000]}\nstderr: {proc.stderr[:2000]}"
            )
        if not isinstance(envelope, dict):
            pytest.fail(f"engine {list(args)!r} printed a non-object JSON: {proc.stdout[:500]}")
        return envelope


@dataclass(frozen=True)
class RealSession:
    """One uniquely named engine session, closed by the ``real_session`` fixture."""

    name: str
    engine: EngineEnv

    def run(
        self, *args: str, timeout: float = ENGINE_CALL_TIMEOUT_S
    ) -> subprocess.CompletedProcess[str]:
        """Run ``agent-browser --session NAME ARGS`` (no ``--json``)."""
        return self.engine.run("--session", self.name, *args, timeout=timeout)

    def run_json(self, *args: str, timeout: float = ENGINE_CALL_TIMEOUT_S) -> dict[str, Any]:
        """Run ``agent-browser --json --session NAME ARGS`` and return the envelope."""
        return self.engine.run_json("--session", self.name, *args, timeout=timeout)

    def ok(self, *args: str, timeout: float = ENGINE_CALL_TIMEOUT_S) -> dict[str, Any]:
        """Like :meth:`run_json` but fail the test unless ``success`` is true; return ``data``."""
        envelope = self.run_json(*args, timeout=timeout)
        if envelope.get("success") is not True:
            pytest.fail(f"engine {list(args)!r} failed: {json.dumps(envelope)[:2000]}")
        data = envelope.get("data")
        return data if isinstance(data, dict) else {}


def engine_env_for(binary: Path, socket_dir: Path) -> EngineEnv:
    """Build a hermetic :class:`EngineEnv` for ``socket_dir`` (used by ``engine_env``)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("AGENT_BROWSER_") or k in _PASSTHROUGH_SETTINGS
    }
    env.update(_ENGINE_TEST_SETTINGS)
    env["AGENT_BROWSER_SOCKET_DIR"] = str(socket_dir)
    # Without this, downloads that no command asked for (a plain ``click`` on a download
    # link) land in ~/Downloads; keep them inside the module's private dir instead.
    env["AGENT_BROWSER_DOWNLOAD_PATH"] = str(socket_dir / "downloads")
    if chosen_engine() is not None:
        env["AGENT_BROWSER_TOOLS_BIN"] = str(binary)
    return EngineEnv(binary=binary, socket_dir=socket_dir, env=env)


def socket_dirs_in(socket_dir: Path) -> list[Path]:
    """``socket_dir`` and the per-conversation socket dirs the wrapper made inside it."""
    return [socket_dir, *sorted(p for p in socket_dir.glob("c-*") if p.is_dir())]


def close_all_in(binary: str | Path, env: dict[str, str], socket_dir: Path, timeout: float) -> None:
    """``close --all`` in ``socket_dir``, in every conversation dir inside it and in each
    namespace of those (``close --all`` closes one namespace only); best effort."""
    for directory in socket_dirs_in(socket_dir):
        namespaces = sorted(p.name for p in directory.glob("namespaces/*") if p.is_dir())
        for scope in [[], *(["--namespace", ns] for ns in namespaces)]:
            _close_all(binary, env, directory, scope, timeout)


def _close_all(
    binary: str | Path, env: dict[str, str], directory: Path, scope: list[str], timeout: float
) -> None:
    with contextlib.suppress(subprocess.TimeoutExpired, OSError):
        subprocess.run(
            [str(binary), "--json", *scope, "close", "--all"],
            env={**env, "AGENT_BROWSER_SOCKET_DIR": str(directory)},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )


def _live_daemon_pids(socket_dir: Path) -> list[int]:
    """Pids from ``<session>.pid`` files under ``socket_dir`` whose process is still running."""
    pids = []
    for pid_file in socket_dir.rglob("*.pid"):
        with contextlib.suppress(OSError, ValueError):
            pid = int(pid_file.read_text().strip())
            info = _read_proc(pid)
            if info is not None and info.kind == "engine" and info.state != "Z":
                pids.append(pid)
    return pids


def _wait_for_daemons_to_exit(socket_dir: Path, timeout: float) -> None:
    """Wait until no daemon recorded in ``socket_dir`` is still running."""
    deadline = time.monotonic() + timeout
    while _live_daemon_pids(socket_dir) and time.monotonic() < deadline:
        time.sleep(0.1)


# --- fixtures --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def fixture_site() -> Iterator[FixtureServer]:
    """The local fixture site, one server for the whole run."""
    server = start_fixture_server()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def engine_binary() -> Path:
    """Path of the engine binary that the ``agent-browser-cli`` wheel ships, or the one
    ``ABT_TEST_ENGINE`` names (`second_engine`)."""
    if (chosen := chosen_engine()) is not None:
        return chosen
    # The wheel ships no type information; imported lazily so unit runs never need it.
    agent_browser: Any = importlib.import_module("agent_browser")
    path = Path(agent_browser.get_cli_binary_path())
    if not path.is_file():
        pytest.fail(f"agent-browser engine binary missing at {path}")
    return path


@pytest.fixture(scope="module")
def engine_env(engine_binary: Path) -> Iterator[EngineEnv]:
    """A private socket dir and env for one test module; closes every session it holds.

    The dir is short (under /tmp) because daemon sockets live in it and Unix socket paths
    are limited to ~108 bytes; it is 0700 because the sockets control a browser. Stray
    downloads go to ``socket_dir / "downloads"`` and are removed with it.
    """
    socket_dir = Path(tempfile.mkdtemp(prefix="abt-", dir="/tmp"))
    socket_dir.chmod(0o700)
    engine = engine_env_for(engine_binary, socket_dir)
    try:
        yield engine
    finally:
        close_all_in(engine.binary, engine.env, socket_dir, 2 * CLOSE_TIMEOUT_S)
        # ``close`` answers before the daemon has exited and deleted its socket/pid files;
        # removing the dir under it races (and can leave files behind), so wait briefly.
        _wait_for_daemons_to_exit(socket_dir, timeout=10.0)
        shutil.rmtree(socket_dir, ignore_errors=True)


@pytest.fixture
def real_session(engine_env: EngineEnv) -> Iterator[RealSession]:
    """A fresh, uniquely named session; ``close``d at teardown even if the test failed."""
    session = RealSession(name=f"t-{uuid.uuid4().hex[:8]}", engine=engine_env)
    try:
        yield session
    finally:
        try:
            session.run("--json", "close", timeout=CLOSE_TIMEOUT_S)
        except (subprocess.TimeoutExpired, OSError) as exc:
            # The module-level ``close --all`` and the leak guard still get a chance.
            warnings.warn(f"closing engine session {session.name} failed: {exc}", stacklevel=1)


# --- leak guard ------------------------------------------------------------------------

_CHROMIUM_NAMES = frozenset({"chromium", "chrome", "headless_shell", "chrome-headless-shell"})
_CRASHPAD_NAME = "chrome_crashpad_handler"

#: Set to ``strict`` to count every new engine/browser process as this run's, as CI does.
LEAK_GUARD_MODE_ENV = "ABT_LEAK_GUARD"


@dataclass(frozen=True)
class ProcInfo:
    """What the guard needs to know about one process, read from /proc."""

    pid: int
    ppid: int
    state: str
    start_ticks: int  # start time since boot; with pid it identifies the process uniquely
    kind: str  # "engine", "chromium" or "crashpad"
    argv: tuple[str, ...]

    @property
    def key(self) -> tuple[int, int]:
        return (self.pid, self.start_ticks)

    def describe(self) -> str:
        return f"pid={self.pid} ppid={self.ppid} {self.kind}: {' '.join(self.argv)[:160]}"


def _classify(exe: str, argv0: str) -> str | None:
    for path in (exe, argv0):
        base = os.path.basename(path.removesuffix(" (deleted)"))
        if base.startswith("agent-browser"):
            return "engine"
        if base == _CRASHPAD_NAME:
            return "crashpad"
        if base in _CHROMIUM_NAMES:
            return "chromium"
    return None


def _read_proc(pid: int) -> ProcInfo | None:
    """Describe ``pid`` if it is an engine/Chromium process, else ``None`` (or if gone)."""
    base = Path("/proc") / str(pid)
    try:
        raw_cmdline = (base / "cmdline").read_bytes()
        argv = tuple(a.decode(errors="replace") for a in raw_cmdline.split(b"\0") if a)
        try:
            exe = os.readlink(base / "exe")
        except OSError:
            exe = ""  # zombies and kernel threads have no exe link
        kind = _classify(exe, argv[0] if argv else "")
        if kind is None:
            return None
        stat = (base / "stat").read_text()
    except OSError:
        return None
    # The comm field may contain spaces and parentheses: split after the last ')'.
    fields = stat[stat.rindex(")") + 2 :].split()
    return ProcInfo(
        pid=pid,
        ppid=int(fields[1]),
        state=fields[0],
        start_ticks=int(fields[19]),
        kind=kind,
        argv=argv,
    )


def scan_browser_processes() -> list[ProcInfo]:
    """All engine, Chromium and crashpad processes on the machine (zombies included)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = _read_proc(int(entry))
            if info is not None:
                found.append(info)
    return found


def _read_environ(pid: int) -> dict[str, str] | None:
    try:
        raw = (Path("/proc") / str(pid) / "environ").read_bytes()
    except OSError:
        return None
    pairs = (item.decode(errors="replace").partition("=") for item in raw.split(b"\0") if item)
    return {key: value for key, _, value in pairs}


_tracked_dirs: set[Path] = set()


def track_socket_dir(path: Path) -> None:
    """Count engine processes whose socket dir is under ``path`` as this run's.

    For tests that start the engine through code that hands it a minimal environment (so
    the run marker is lost), e.g. the wrapper with a test-owned state dir.
    """
    _tracked_dirs.add(Path(path).resolve())


def _strict_mode() -> bool:
    """In CI nothing else runs on the machine, so every new process is this run's."""
    mode = os.environ.get(LEAK_GUARD_MODE_ENV, "").lower()
    return mode == "strict" or os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _is_ours(proc: ProcInfo, run_id: str) -> bool:
    """Whether ``proc`` was started by this pytest run (see the module docstring)."""
    env = _read_environ(proc.pid)
    if env is None:
        return _strict_mode()
    marker = env.get(RUN_MARKER_ENV)
    if marker is not None:
        return marker == run_id  # another pytest run's processes are never ours
    socket_dir = env.get("AGENT_BROWSER_SOCKET_DIR")
    if socket_dir and any(Path(socket_dir).is_relative_to(d) for d in _tracked_dirs):
        return True
    return _strict_mode()


def _run_processes(run_id: str, baseline: set[tuple[int, int]]) -> list[ProcInfo]:
    """Live (non-zombie) engine/browser processes that this run started.

    Chromium's zygote-forked children overwrite their environment block with the process
    title, so they lose the marker; they count as ours when their parent does.
    """
    new = {p.pid: p for p in scan_browser_processes() if p.key not in baseline and p.state != "Z"}
    ours = {pid for pid, proc in new.items() if _is_ours(proc, run_id)}
    while heirs := {pid for pid, p in new.items() if pid not in ours and p.ppid in ours}:
        ours |= heirs
    return [new[pid] for pid in sorted(ours)]


def _still_same(proc: ProcInfo) -> bool:
    current = _read_proc(proc.pid)
    return current is not None and current.key == proc.key and current.state != "Z"


def _kill_all(procs: Sequence[ProcInfo]) -> None:
    """SIGTERM, then SIGKILL after a short wait; re-check identity to dodge pid reuse."""
    for sig, wait_s in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 2.0)):
        alive = [p for p in procs if _still_same(p)]
        for proc in alive:
            with contextlib.suppress(OSError):
                os.kill(proc.pid, sig)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and any(_still_same(p) for p in alive):
            time.sleep(0.1)
    # A killed browser cannot delete its temporary profile; do it for the engine's own dirs.
    for proc in procs:
        for arg in proc.argv:
            if arg.startswith("--user-data-dir="):
                profile = Path(arg.split("=", 1)[1])
                if profile.parent == Path(tempfile.gettempdir()) and profile.name.startswith(
                    "agent-browser-chrome-"
                ):
                    shutil.rmtree(profile, ignore_errors=True)


_guard_state: dict[str, Any] = {}


def pytest_sessionstart(session: pytest.Session) -> None:
    """Tag this run and remember which browser processes existed before it."""
    run_id = uuid.uuid4().hex
    os.environ[RUN_MARKER_ENV] = run_id
    _guard_state["run_id"] = run_id
    _guard_state["baseline"] = {p.key for p in scan_browser_processes()}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if engine daemons or browsers started by it outlive the grace period."""
    run_id = _guard_state.get("run_id")
    if not isinstance(run_id, str):
        return
    baseline: set[tuple[int, int]] = _guard_state["baseline"]
    deadline = time.monotonic() + LEAK_GRACE_S
    left = _run_processes(run_id, baseline)
    while left and time.monotonic() < deadline:
        time.sleep(0.25)
        left = _run_processes(run_id, baseline)
    if not left:
        return

    leaks = [p for p in left if p.kind != "crashpad"]
    if leaks:
        title = f"LEAK: {len(leaks)} engine/browser process(es) outlived the run; killed"
    else:
        title = "crashpad handler(s) outlived their browsers; killed"
    _kill_all(left)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("")  # the progress line "[100%]" has no newline yet
        reporter.write_sep("=", title, red=bool(leaks), yellow=not leaks)
        for proc in left:
            reporter.write_line(proc.describe())
    else:
        sys.stderr.write("\n".join([title, *(p.describe() for p in left)]) + "\n")
    if leaks:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def close_socket_dir(
    binary: str | Path,
    env: dict[str, str],
    socket_dir: Path,
    *,
    sessions: Sequence[str] = (),
    timeout: float = CLOSE_TIMEOUT_S,
) -> None:
    """Close `sessions`, then `close --all` in the socket dir, and wait for the daemons to exit.

    Shared by fixtures, capture scripts and benchmarks so that none of them leaves a browser
    behind; failures are ignored because this is cleanup.
    """
    for name in sessions:
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            subprocess.run(
                [str(binary), "--json", "--session", name, "close"],
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
                check=False,
            )
    close_all_in(binary, env, socket_dir, timeout)
    _wait_for_daemons_to_exit(socket_dir, 10.0)
