"""A real Selenium Grid 4 (the standalone server: hub and one node in one java process) for
the grid-mode tests and benchmarks, on 127.0.0.1 only.

`bash scripts/selenium_grid.sh install` (run by `scripts/setup.sh install`) puts the server jar
in `.venv/selenium` and Debian's chromedriver in /usr/bin; the grid drives the system Chromium.
Where either is missing, a test that wants a grid skips, or fails in CI (`CI` set), naming
that command.

One grid per test module (starting one takes seconds; a conversation's browser is a session
on it)::

    from tests.support.selenium_grid import Grid, module_grid

    grid = module_grid(max_sessions=2)  # a module-scoped fixture named `grid`

    def test_something(grid: Grid) -> None:
        session = grid.new_session({"abt:owner": "conversation-1"})
        ...
        grid.delete_session(session.id)

Outside pytest (a benchmark): `with start_grid(4) as grid: ...` (check `missing()` first).

`Grid.stop()` kills the server's process group, then waits until nothing it started is alive:
chromedriver and Chromium share the server's process group, and Chromium's crashpad handlers
(which make sessions of their own) carry `GRID_TAG_ENV` in their environment. Every process
the server starts also inherits pytest's environment, so the leak guard in real_engine.py
counts a grid's Chromium as the run's own: one left running fails the run.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, TypedDict, cast

import pytest

REPO = Path(__file__).resolve().parents[2]
SELENIUM_VERSION = "4.20.0"
JAR = REPO / ".venv" / "selenium" / "package" / "lib" / f"selenium-server-{SELENIUM_VERSION}.jar"
CHROMEDRIVER = Path("/usr/bin/chromedriver")
INSTALL_COMMAND = "bash scripts/selenium_grid.sh install"
HOST = "127.0.0.1"
"""The only address a grid listens on: it drives browsers for whoever reaches it."""
GRID_TAG_ENV = "ABT_SELENIUM_GRID"
"""Set to the grid's private dir in the server's environment, so its processes can be found."""
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 20.0
HTTP_TIMEOUT_S = 60.0
CHROME_ARGS = ("--headless=new", "--no-sandbox")
# The server refuses a body sent as plain `application/json`.
_JSON = "application/json; charset=utf-8"
_START_ATTEMPTS = 3  # a fresh port each time another process took the one picked


class GridError(RuntimeError):
    """The grid answered an HTTP error: `error` is the WebDriver error code it named (e.g.
    `session not created` when no slot freed up within the session request timeout)."""

    def __init__(self, message: str, status: int, error: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error


class SlotSession(TypedDict):
    """A session the grid's /status lists in one of its slots."""

    id: str
    capabilities: dict[str, Any]


@dataclass(frozen=True)
class GridSession:
    """A browser session made with `Grid.new_session`."""

    id: str
    cdp_url: str  # the grid's CDP proxy for it: ws://127.0.0.1:<port>/session/<id>/se/cdp
    browser_pid: int  # the Chromium browser process (chromedriver's child)
    capabilities: dict[str, Any]


def find_chromium() -> str | None:
    """The Chromium the grid's sessions run: the one the engine is told to use, else PATH's."""
    return os.environ.get("AGENT_BROWSER_EXECUTABLE_PATH") or next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None
    )


def missing() -> str | None:
    """What a grid needs and this machine lacks, with the command that installs it; or None."""
    lacking = [
        what
        for what, present in (
            (f"the Selenium server jar ({JAR.relative_to(REPO)})", JAR.is_file()),
            (f"chromedriver ({CHROMEDRIVER})", os.access(CHROMEDRIVER, os.X_OK)),
            ("java", shutil.which("java") is not None),
            ("Chromium", find_chromium() is not None),
        )
        if not present
    ]
    if not lacking:
        return None
    return f"no Selenium Grid: missing {', '.join(lacking)}; run `{INSTALL_COMMAND}`"


def require_grid() -> None:
    """Skip the test where a grid cannot run; fail in CI, where setup.sh installs it."""
    message = missing()
    if message is None:
        return
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@dataclass
class Grid:
    """A running standalone server; `stop()` it (or use it as a context manager)."""

    url: str
    process: subprocess.Popen[bytes]
    home: Path  # its private dir: log, TMPDIR (chromedriver's profiles), Selenium's cache
    max_sessions: int
    _stopped: bool = field(default=False, repr=False)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def log(self) -> Path:
        return self.home / "grid.log"

    def status(self) -> dict[str, Any]:
        """The `value` of GET /status."""
        return _value(_http("GET", f"{self.url}/status"))

    def sessions(self) -> list[SlotSession]:
        """The sessions in the grid's slots (who holds a browser now)."""
        return [
            {"id": slot["session"]["sessionId"], "capabilities": slot["session"]["capabilities"]}
            for node in self.status()["nodes"]
            for slot in node["slots"]
            if slot.get("session")
        ]

    def free_slots(self) -> int:
        """How many more sessions the grid would start now."""
        return sum(
            min(
                node["maxSessions"] - sum(1 for s in node["slots"] if s.get("session")),
                sum(1 for s in node["slots"] if not s.get("session")),
            )
            for node in self.status()["nodes"]
            if node.get("availability") == "UP"
        )

    def new_session(
        self, extra: Mapping[str, Any] | None = None, *, args: Sequence[str] = CHROME_ARGS
    ) -> GridSession:
        """A headless Chromium session; `extra` capabilities (e.g. `{"abt:owner": "x"}`) are
        added to the request and show in `sessions()`."""
        options = {"binary": find_chromium(), "args": list(args)}
        always = {"browserName": "chrome", "goog:chromeOptions": options, **(extra or {})}
        value = _value(
            _http("POST", f"{self.url}/session", {"capabilities": {"alwaysMatch": always}})
        )
        caps: dict[str, Any] = value["capabilities"]
        return GridSession(
            id=value["sessionId"],
            cdp_url=caps["se:cdp"],
            browser_pid=int(caps["goog:processID"]),
            capabilities=caps,
        )

    def delete_session(self, session_id: str) -> None:
        _http("DELETE", f"{self.url}/session/{session_id}")

    def processes(self) -> list[int]:
        """The live (non-zombie) processes of this grid: the server, chromedriver, Chromium."""
        return _grid_processes(self.pid, str(self.home))

    def stop(self) -> None:
        """Kill the server's process group (SIGTERM, then SIGKILL), then whatever it started
        that is still alive, and remove its private dir. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        _live_grids.pop(self.pid, None)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        left = _wait_for_exit(self.pid, str(self.home), STOP_TIMEOUT_S)
        shutil.rmtree(self.home, ignore_errors=True)
        if left:
            raise RuntimeError(f"grid processes outlived SIGKILL: {left}")

    def __enter__(self) -> Grid:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


_live_grids: dict[int, Grid] = {}


@atexit.register
def _stop_forgotten_grids() -> None:
    """A grid nobody stopped (a crashed fixture) must not outlive the test run."""
    for grid in list(_live_grids.values()):
        with contextlib.suppress(Exception):
            grid.stop()


def start_grid(max_sessions: int, *, session_request_timeout_s: int = 10) -> Grid:
    """A standalone grid on 127.0.0.1 and a free port with `max_sessions` Chromium slots,
    ready to take sessions; a session request waits for a free slot at most
    `session_request_timeout_s` seconds before the grid refuses it."""
    require_grid()
    home = Path(tempfile.mkdtemp(prefix="abt-grid-", dir="/tmp"))
    try:
        for _ in range(_START_ATTEMPTS):
            process = _launch(home, _free_port(), max_sessions, session_request_timeout_s)
            grid = Grid(process=process, home=home, max_sessions=max_sessions, url="")
            grid.url = f"http://{HOST}:{_port_of(process)}"
            _live_grids[grid.pid] = grid
            if _wait_until_ready(grid):
                return grid
            grid.stop()  # the port was taken meanwhile: try another
            home.mkdir()
        raise RuntimeError(f"no grid after {_START_ATTEMPTS} attempts (port races)")
    except BaseException:
        shutil.rmtree(home, ignore_errors=True)
        raise


def module_grid(max_sessions: int, *, session_request_timeout_s: int = 10) -> object:
    """A module-scoped fixture giving one grid for the whole test module, stopped at its end:
    assign it to a module global named `grid` (`grid = module_grid(2)`)."""

    @pytest.fixture(scope="module", name="grid")
    def _grid() -> Iterator[Grid]:
        grid = start_grid(max_sessions, session_request_timeout_s=session_request_timeout_s)
        try:
            yield grid
        finally:
            grid.stop()

    return _grid


# --- starting ----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def _argv(port: int, max_sessions: int, session_request_timeout_s: int) -> list[str]:
    assert HOST == "127.0.0.1", "a grid listens on the loopback address only"
    return [
        "java",
        f"-Dwebdriver.chrome.driver={CHROMEDRIVER}",
        "-jar",
        str(JAR),
        "standalone",
        "--host",
        HOST,
        "--port",
        str(port),
        "--max-sessions",
        str(max_sessions),
        # Without it the server caps max-sessions at the number of processors.
        "--override-max-sessions",
        "true",
        # Never download a driver or a browser: chromedriver and Chromium are the system's.
        "--selenium-manager",
        "false",
        "--session-request-timeout",
        str(session_request_timeout_s),
    ]


def _launch(
    home: Path, port: int, max_sessions: int, session_request_timeout_s: int
) -> subprocess.Popen[bytes]:
    (home / "tmp").mkdir()
    env = {
        **os.environ,
        GRID_TAG_ENV: str(home),
        # chromedriver's profiles (left behind when a browser is killed) and Selenium's cache
        # go to the grid's own dir, removed by stop(); and Selenium never goes online.
        "TMPDIR": str(home / "tmp"),
        "SE_CACHE_PATH": str(home / "cache"),
        "SE_OFFLINE": "true",
    }
    with (home / "grid.log").open("ab") as log:
        return subprocess.Popen(
            _argv(port, max_sessions, session_request_timeout_s),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=home,
            start_new_session=True,
        )


def _port_of(process: subprocess.Popen[bytes]) -> int:
    argv = cast(list[str], process.args)
    return int(argv[argv.index("--port") + 1])


def _wait_until_ready(grid: Grid) -> bool:
    """True once /status says ready; False when the port was taken by another process (the
    server then logs a bind failure and lives on). Raises with the log's tail when the server
    dies or is not ready in time."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if "Address already in use" in _tail(grid.log, lines=200):
            return False
        if grid.process.poll() is not None:
            log = _tail(grid.log)
            grid.stop()
            raise RuntimeError(f"the grid exited ({grid.process.returncode}):\n{log}")
        # Briefly: whatever else holds the port may accept and never answer.
        with contextlib.suppress(OSError, ValueError, KeyError, GridError):
            status = _value(_http("GET", f"{grid.url}/status", timeout=2.0))
            if status["ready"] and all(n["uri"] == grid.url for n in status["nodes"]):
                return True
        time.sleep(0.2)
    log = _tail(grid.log)
    grid.stop()
    raise RuntimeError(f"the grid was not ready within {START_TIMEOUT_S:.0f} s:\n{log}")


def _tail(log: Path, lines: int = 40) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    return "(no log)"


# --- talking to it -------------------------------------------------------------------------


def _http(
    method: str, url: str, body: object | None = None, *, timeout: float = HTTP_TIMEOUT_S
) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", _JSON)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        detail = error.read().decode(errors="replace")
        code = ""
        with contextlib.suppress(ValueError, TypeError, KeyError, AttributeError):
            code = str(json.loads(detail)["value"]["error"])
        message = f"{method} {url}: HTTP {error.code}: {detail[:2000]}"
        raise GridError(message, error.code, code) from error


def _value(answer: Any) -> dict[str, Any]:
    value = answer["value"]
    assert isinstance(value, dict), answer
    return value


# --- its processes -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Proc:
    pid: int
    ppid: int
    pgrp: int
    session: int
    state: str
    start_ticks: int


def _read_stat(pid: int) -> _Proc | None:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return _Proc(pid, int(fields[1]), int(fields[2]), int(fields[3]), fields[0], int(fields[19]))


def _tagged(pid: int, tag: str) -> bool:
    try:
        raw = (Path("/proc") / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return f"{GRID_TAG_ENV}={tag}".encode() in raw.split(b"\0")


def _scan(leader: int, tag: str) -> list[_Proc]:
    """Live processes of the grid led by `leader`: its process group and session, anything
    carrying its tag, and their descendants (Chromium's zygote children lose the tag)."""
    procs = [p for p in map(_read_stat, _numeric(os.listdir("/proc"))) if p and p.state != "Z"]
    ours = {p.pid for p in procs if leader in (p.pgrp, p.session) or _tagged(p.pid, tag)}
    while heirs := {p.pid for p in procs if p.pid not in ours and p.ppid in ours}:
        ours |= heirs
    return [p for p in procs if p.pid in ours]


def _same(proc: _Proc) -> bool:
    now = _read_stat(proc.pid)
    return now is not None and now.start_ticks == proc.start_ticks and now.state != "Z"


def _numeric(names: list[str]) -> list[int]:
    return [int(name) for name in names if name.isdigit()]


def _grid_processes(leader: int, tag: str) -> list[int]:
    return sorted(p.pid for p in _scan(leader, tag))


def _wait_for_exit(leader: int, tag: str, timeout: float) -> list[int]:
    """Wait for the grid's processes to exit; SIGKILL those alive after a few seconds.
    Returns the ones still alive at `timeout` (pid and start time are checked before a kill,
    so a reused pid is never hit)."""
    start = time.monotonic()
    while left := _scan(leader, tag):
        waited = time.monotonic() - start
        if waited > timeout:
            return [p.pid for p in left]
        if waited > 3.0:
            for proc in left:
                if _same(proc):
                    with contextlib.suppress(OSError):
                        os.kill(proc.pid, signal.SIGKILL)
        time.sleep(0.1)
    return []
