"""One hermetic engine session for scripts and benchmarks that capture real snapshots.

Why: `scripts/capture_snapshots.py` and `benchmarks/observation_size.py` both drive the real
engine outside pytest, where the real-engine fixtures' leak guard does not run. This wraps the
same hygiene: a short private 0700 socket dir, inherited `AGENT_BROWSER_*` settings dropped
(`engine_env_for`), one named session, and on exit `close` of that session, `close --all` in
the socket dir, a wait for the daemons to go, and removal of the dir, even after an error.
Also a static file server for directories outside the fixture site (MiniWob++, Python docs).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from .real_engine import close_socket_dir, engine_env_for

CALL_TIMEOUT_S = 90.0
CLOSE_TIMEOUT_S = 30.0


def find_engine(explicit: str | None = None) -> Path:
    """The engine binary: `explicit`, else the one the package's own discovery resolves."""
    if explicit:
        return Path(explicit)
    from agent_browser_tools.engine.discovery import resolve_engine
    from agent_browser_tools.settings import Settings

    return Path(resolve_engine(Settings.load()).path)


class EngineSession:
    """`with EngineSession(binary, "name") as s: s.run("open", url)` -> parsed envelopes."""

    def __init__(self, binary: Path, name: str) -> None:
        self.binary = binary
        self.name = name
        # Short (Unix socket paths are limited to ~108 bytes) and private (they drive a browser).
        self.socket_dir = Path(tempfile.mkdtemp(prefix="abt-snap-", dir="/tmp"))
        self.socket_dir.chmod(0o700)
        self.env = engine_env_for(binary, self.socket_dir).env

    def run(self, *args: str, stdin: str | None = None) -> dict[str, Any]:
        """Run `--json --session NAME args...`; raise unless the envelope reports success."""
        proc = subprocess.run(
            [str(self.binary), "--json", "--session", self.name, *args],
            env=self.env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=CALL_TIMEOUT_S,
            check=False,
        )
        try:
            envelope = json.loads(proc.stdout)
        except json.JSONDecodeError as exc:
            raise RuntimeError(
                f"{args}: not JSON: {proc.stdout[:300]!r} {proc.stderr[:300]!r}"
            ) from exc
        if not isinstance(envelope, dict) or not envelope.get("success"):
            raise RuntimeError(f"{args} failed: {str(envelope)[:500]}")
        return envelope

    def close(self) -> None:
        close_socket_dir(self.binary, self.env, self.socket_dir, sessions=[self.name])
        shutil.rmtree(self.socket_dir, ignore_errors=True)

    def __enter__(self) -> EngineSession:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: request logs would drown the figures."""


class StaticServer:
    """Serve one directory on 127.0.0.1 at an ephemeral port until `close()`."""

    def __init__(self, directory: Path) -> None:
        handler = partial(_QuietHandler, directory=str(directory))
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}"

    def close(self) -> None:
        self._httpd.shutdown()
        self._thread.join(timeout=10)
        self._httpd.server_close()


@contextlib.contextmanager
def private_benchmark_root() -> Iterator[Path]:
    """A private 0700 root for one benchmark run, with the process environment pointed at it.

    Settings are read from `os.environ` when the tools are built, so this runs first:
    inherited `AGENT_BROWSER_*` settings would change what is measured (the browser path and
    an explicit engine binary are kept); socket dir, state dir and downloads go under the root,
    which is removed afterwards.
    """
    root = Path(tempfile.mkdtemp(prefix="abt-bench-", dir="/tmp"))
    root.chmod(0o700)
    (root / "sock").mkdir(mode=0o700)
    keep = {"AGENT_BROWSER_EXECUTABLE_PATH", "AGENT_BROWSER_TOOLS_BIN"}
    for key in [k for k in os.environ if k.startswith("AGENT_BROWSER_") and k not in keep]:
        del os.environ[key]
    os.environ["AGENT_BROWSER_SOCKET_DIR"] = str(root / "sock")
    os.environ["AGENT_BROWSER_TOOLS_STATE_DIR"] = str(root / "state")
    os.environ["AGENT_BROWSER_DOWNLOAD_PATH"] = str(root / "downloads")
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)
