"""Running `agent-browser-tools serve` for end-to-end tests driven by the official MCP client.

The server is always a real subprocess (`python -m agent_browser_tools serve`, as users run it) with
a complete environment: the module's private engine socket dir (so the leak guard and the
checks below can tell its browsers apart), a private state dir, and this pytest run's marker.

Helpers here observe processes through /proc only: which managed sessions still have a live
engine daemon in a socket dir, which engine CLI children are running a given command, and
which server process owns a given state dir.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO, TypeVar

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as stdio_transport
from mcp.client.streamable_http import streamable_http_client

from tests.support.real_engine import EngineEnv, ProcInfo, scan_browser_processes

# The package's `__main__`: running `hosts.cli.main` as `__main__` makes runpy warn on stderr
# (the package imports that module first), which fault tests read.
SERVE_ARGS = ["-m", "agent_browser_tools", "serve"]
TOKEN_ENV = "AGENT_BROWSER_TOOLS_HTTP_TOKEN"
DETAILS_KEY = "agent-browser-tools/details"
_URL_LINE = re.compile(r"MCP over HTTP at (http://\S+)")

T = TypeVar("T")


def serve_env(engine: EngineEnv, state_dir: Path, **extra: str) -> dict[str, str]:
    """The server's environment: the engine test env, a private state dir, no HTTP token."""
    env = {k: v for k, v in engine.env.items() if k != TOKEN_ENV}
    env["AGENT_BROWSER_TOOLS_STATE_DIR"] = str(state_dir)
    env.update(extra)
    return env


def stdio_client(
    env: dict[str, str],
    *args: str,
    mode: str = "legacy",
    messages: list[Any] | None = None,
    roots: list[Path] | None = None,
    errlog: TextIO | None = None,
) -> Client:
    """An official MCP `Client` that spawns the stdio server (`messages` collects notifications;
    `roots` makes it declare the roots capability and list those dirs; the server's stderr goes
    to `errlog`, a real file, else to this process's stderr)."""
    params = StdioServerParameters(command=sys.executable, args=[*SERVE_ARGS, *args], env=env)
    return Client(
        params if errlog is None else stdio_transport(params, errlog=errlog),
        mode=mode,
        message_handler=_collector(messages),
        list_roots_callback=_roots(roots),
    )


def http_client(
    url: str,
    *,
    token: str | None = None,
    messages: list[Any] | None = None,
    mode: str = "auto",
    roots: list[Path] | None = None,
) -> Client:
    """An official MCP `Client` over Streamable HTTP (optionally with a bearer token)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))
    transport = streamable_http_client(url, http_client=http)
    return Client(
        transport,
        mode=mode,
        message_handler=_collector(messages),
        list_roots_callback=_roots(roots),
    )


def _roots(roots: list[Path] | None) -> Any:
    """A roots callback listing `roots` as `file://` URIs (None: no roots capability)."""
    if roots is None:
        return None

    async def list_roots(context: Any) -> types.ListRootsResult:
        listed = [types.Root.model_validate({"uri": root.as_uri()}) for root in roots]
        return types.ListRootsResult(roots=listed)

    return list_roots


def _collector(messages: list[Any] | None) -> Any:
    if messages is None:
        return None

    async def collect(message: Any) -> None:
        messages.append(message)

    return collect


def tool_list_changes(messages: Sequence[Any]) -> int:
    """How many `notifications/tools/list_changed` a client received."""
    return sum(isinstance(m, types.ToolListChangedNotification) for m in messages)


def details_of(result: types.CallToolResult) -> dict[str, Any]:
    """The tool result details carried in `_meta`."""
    assert result.meta is not None and DETAILS_KEY in result.meta, result
    details = result.meta[DETAILS_KEY]
    assert isinstance(details, dict)
    return details


def ref_in(details: dict[str, Any], role: str, name: str) -> str:
    """The `@eN` of the element with `role` and `name` in a snapshot result's details."""
    for ref_id, info in details["refSnapshot"]["refs"].items():
        if info.get("role") == role and info.get("name") == name:
            return f"@{ref_id}"
    raise AssertionError(f"no {role} {name!r} in {details['refSnapshot']['refs']}")


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def ab(client: Client, *args: str, **params: Any) -> types.CallToolResult:
    """Call `agent_browser` with argv shorthand."""
    return await client.call_tool("agent_browser", {"args": list(args), **params})


async def eventually(probe: Callable[[], T], timeout: float, interval: float = 0.1) -> T:
    """Poll `probe` until it returns a truthy value or `timeout` passes; return the last value."""
    deadline = time.monotonic() + timeout
    value = probe()
    while not value and time.monotonic() < deadline:
        await anyio.sleep(interval)
        value = probe()
    return value


async def within(seconds: float, awaitable: Awaitable[T]) -> T:
    with anyio.fail_after(seconds):
        return await awaitable


# --- processes -------------------------------------------------------------------------


def _environ(pid: int) -> dict[str, str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    pairs = (item.decode(errors="replace").partition("=") for item in raw.split(b"\0") if item)
    return {key: value for key, _, value in pairs}


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def live_sessions(socket_dir: Path) -> set[str]:
    """Sessions under `socket_dir` (conversation dirs included) whose daemon is still running.

    `os.walk` skips a conversation dir removed while it walks (a conversation that just
    ended); `Path.rglob` raised FileNotFoundError there, a race seen once in CI."""
    names = set()
    for folder, _dirs, files in os.walk(socket_dir):
        for pid_file in (Path(folder) / f for f in files if f.endswith(".pid")):
            with contextlib.suppress(OSError, ValueError):
                if _alive(int(pid_file.read_text().strip())):
                    names.add(pid_file.stem)
    return names


def session_dir(base: Path, session: str) -> Path:
    """The conversation dir under `base` holding `session`'s daemon (as a local user could
    find it: by its pid file)."""
    [pid_file] = [p for p in base.glob(f"c-*/{session}.pid") if p.parent.is_dir()]
    return pid_file.parent


def environ_of(pid: int) -> dict[str, str]:
    """The environment a process was started with (empty when it is gone)."""
    return _environ(pid)


def engine_children(socket_dir: Path, *needles: str) -> list[ProcInfo]:
    """Engine CLI processes on `socket_dir` (or a conversation dir in it) whose argv contains
    every one of `needles`."""
    found = []
    for proc in scan_browser_processes():
        if proc.kind != "engine" or proc.state == "Z":
            continue
        used = _environ(proc.pid).get("AGENT_BROWSER_SOCKET_DIR")
        same_dir = used is not None and Path(used).is_relative_to(socket_dir)
        if same_dir and all(n in proc.argv for n in needles):
            found.append(proc)
    return found


def server_pids(state_dir: Path) -> list[int]:
    """Live `serve` processes whose private state dir is `state_dir`."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or not _alive(int(entry)):
            continue
        env = _environ(int(entry))
        if env.get("AGENT_BROWSER_TOOLS_STATE_DIR") == str(state_dir):
            with contextlib.suppress(OSError):
                if b"serve" in Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0"):
                    pids.append(int(entry))
    return pids


# --- an HTTP server process ------------------------------------------------------------


class HttpServer:
    """One `serve --http` subprocess; stderr is drained by a thread and kept in `log`."""

    def __init__(
        self, env: dict[str, str], *args: str, timeout: float = 30.0, cwd: Path | None = None
    ) -> None:
        self.log: list[str] = []
        self.url: str | None = None
        self._ready = threading.Event()
        self.cwd = cwd or _served_from(env)
        """The server's working dir: its execution dir, holding the conversations' workspaces
        (`agent-browser-workspaces/`), unless the env names another one."""
        self.proc = subprocess.Popen(
            [sys.executable, *SERVE_ARGS, "--http", *args],
            cwd=self.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        threading.Thread(target=self._drain, daemon=True).start()
        self._ready.wait(timeout)

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line.rstrip("\n"))
            match = _URL_LINE.search(line)
            if match and self.url is None:
                self.url = match.group(1)
                self._ready.set()
        self._ready.set()

    def stop(self, timeout: float = 60.0) -> int:
        """SIGTERM the server and return its exit code (SIGKILL if it does not exit)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            raise


def _served_from(env: dict[str, str]) -> Path:
    """A private working dir beside the server's state dir, so the conversations' workspaces
    land in the test's tmp dir, never in the checkout."""
    state = env.get("AGENT_BROWSER_TOOLS_STATE_DIR")
    assert state, "an HTTP test server needs its own AGENT_BROWSER_TOOLS_STATE_DIR"
    served = Path(state).parent / "served"
    served.mkdir(exist_ok=True)
    return served


@contextlib.contextmanager
def http_server(env: dict[str, str], *args: str, cwd: Path | None = None) -> Iterator[HttpServer]:
    """A running HTTP server (fails the test if it never printed its URL); stopped at exit.
    `cwd`: its working dir (default: `served/` beside its state dir)."""
    server = HttpServer(env, "--port", "0", *args, cwd=cwd)
    try:
        assert server.url is not None, f"server did not start: {server.log}"
        yield server
    finally:
        server.stop()
