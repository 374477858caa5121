"""Capture the real engine's error envelopes for the failure classifier's tests.

Why: the classifier matches upstream phrasing, and that phrasing changes between engine
releases. This script drives the real engine against a tiny local page and records exactly
what it printed, so `tests/unit/test_classify.py` checks the classifier against real strings.

Hermetic by construction: the page is served by a loopback `http.server` on 127.0.0.1, every
engine call gets a private `AGENT_BROWSER_SOCKET_DIR` (and download dir) under a fresh temp
dir, inherited `AGENT_BROWSER_*` settings are dropped, and every session opened is closed
(then `close --all` on that socket dir) even when a scenario fails.

Usage (from the repo root):
    /work/venv/bin/python scripts/capture_engine_errors.py [--engine PATH] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "tests" / "fixtures" / "engine_errors-0.39.4.json"
ENGINE_VERSION = "0.39.4"
CALL_TIMEOUT_S = 90.0

PAGE = b"""<!doctype html>
<html><head><title>Capture page</title></head><body>
<h1>Capture page</h1>
<button id="close">Close</button>
<button id="save">Save timed out</button>
<button id="confirm">Confirmation required</button>
<a id="file" href="/file.txt">Get file</a>
<a id="nowhere" href="#nowhere">Not a download</a>
<input id="name" value="v">
</body></html>
"""


class _Handler(http.server.BaseHTTPRequestHandler):
    """Serves the capture page at `/` and an attachment at `/file.txt`."""

    def do_GET(self) -> None:
        if self.path.startswith("/file.txt"):
            body, ctype = b"hello\n", "application/octet-stream"
            extra = {"Content-Disposition": "attachment; filename=file.txt"}
        else:
            body, ctype, extra = PAGE, "text/html; charset=utf-8", {}
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for key, value in extra.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the capture output readable."""


@contextlib.contextmanager
def serve_page() -> Iterator[str]:
    """Yield the base URL of a loopback server for the capture page."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def free_port() -> int:
    """A loopback port that nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def find_engine(explicit: str | None) -> str:
    """The engine binary: `--engine`, else the one in the installed wheel."""
    if explicit:
        return explicit
    sys.path.insert(0, str(REPO / "src"))
    from agent_browser_tools.engine.discovery import wheel_binary

    found = wheel_binary()
    if not found:
        raise SystemExit("no engine binary found; pass --engine PATH")
    return found


@dataclass
class Engine:
    """Runs the engine with a private socket dir and remembers which sessions it touched."""

    binary: str
    root: Path
    sessions: set[str] = field(default_factory=set)

    @property
    def socket_dir(self) -> Path:
        return self.root / "sock"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_BROWSER_")}
        if "AGENT_BROWSER_EXECUTABLE_PATH" in os.environ:
            env["AGENT_BROWSER_EXECUTABLE_PATH"] = os.environ["AGENT_BROWSER_EXECUTABLE_PATH"]
        env["AGENT_BROWSER_SOCKET_DIR"] = str(self.socket_dir)
        env["AGENT_BROWSER_DOWNLOAD_PATH"] = str(self.root / "downloads")
        # A short action timeout keeps "click that never downloads" at seconds, not 25 s; an
        # idle timeout reaps a daemon if every cleanup path below somehow failed.
        env["AGENT_BROWSER_DEFAULT_TIMEOUT"] = "3000"
        env["AGENT_BROWSER_IDLE_TIMEOUT_MS"] = "300000"
        return env

    def run(
        self, argv: Sequence[str], stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run `agent-browser ARGV`; record `--session` names for the final cleanup."""
        tokens = list(argv)
        for index, token in enumerate(tokens[:-1]):
            if token == "--session":
                self.sessions.add(tokens[index + 1])
        return subprocess.run(
            [self.binary, *tokens],
            env=self.env(),
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            timeout=CALL_TIMEOUT_S,
            check=False,
        )

    def json(self, argv: Sequence[str]) -> dict[str, Any]:
        """Run a setup step and return its envelope; fail loudly when it did not succeed."""
        proc = self.run(argv)
        envelope = json.loads(proc.stdout)
        if not (isinstance(envelope, dict) and envelope.get("success") is True):
            raise RuntimeError(f"setup step {list(argv)!r} failed: {proc.stdout} {proc.stderr}")
        return envelope

    def close_all(self) -> None:
        """Close every session this run touched, then `close --all` on the private socket dir."""
        for name in sorted(self.sessions):
            with contextlib.suppress(Exception):
                self.run(["--json", "--session", name, "close"])
        with contextlib.suppress(Exception):
            self.run(["--json", "close", "--all"])
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and _live_pids(self.socket_dir):
            time.sleep(0.2)


def _live_pids(socket_dir: Path) -> list[int]:
    """Daemon pids recorded in the socket dir that are still running."""
    alive = []
    for pid_file in socket_dir.glob("*.pid"):
        with contextlib.suppress(OSError, ValueError):
            pid = int(pid_file.read_text().strip())
            os.kill(pid, 0)
            alive.append(pid)
    return alive


@dataclass
class Capture:
    """Collects scenario records in the fixture's shape."""

    engine: Engine
    records: list[dict[str, Any]] = field(default_factory=list)

    def record(self, scenario: str, argv: Sequence[str], expected: str, **notes: Any) -> None:
        """Run one scenario and keep exactly what the engine printed."""
        proc = self.engine.run(argv)
        stdout = proc.stdout.strip()
        envelope: Any = json.loads(stdout) if stdout else None
        entry: dict[str, Any] = {
            "scenario": scenario,
            "argv": list(argv),
            "envelope": envelope,
            "expected_category": expected,
            "exit_code": proc.returncode,
        }
        if envelope is None:
            entry["stderr"] = proc.stderr
        entry.update(notes)
        self.records.append(entry)
        shown = envelope.get("error") if isinstance(envelope, dict) else proc.stderr.strip()
        print(f"{scenario:40} -> {expected:22} {str(shown)[:110]!r}")


def _ref_for(refs: dict[str, Any], role: str, name: str) -> str:
    for ref, meta in refs.items():
        if meta.get("role") == role and meta.get("name") == name:
            return f"@{ref}"
    raise RuntimeError(f"no {role} {name!r} in snapshot refs {refs}")


def capture_main_session(cap: Capture, url: str, root: Path) -> None:
    """Selector, ref, getter, wait, download and navigation failures on one session."""
    eng = cap.engine
    s = ["--json", "--session", "cap-main"]
    eng.json([*s, "open", url])
    cap.record("unknown-ref-before-snapshot", [*s, "click", "@e99"], "stale-ref")
    refs = eng.json([*s, "snapshot", "-i"])["data"]["refs"]
    eng.json([*s, "open", url])
    cap.record(
        "unknown-ref-after-navigation",
        [*s, "click", "@e1"],
        "stale-ref",
        note="refs from the snapshot before re-opening the page",
    )
    refs = eng.json([*s, "snapshot", "-i"])["data"]["refs"]
    close_ref = _ref_for(refs, "button", "Close")
    eng.json([*s, "eval", "document.getElementById('close').remove(); 1"])
    cap.record(
        "ref-element-removed",
        [*s, "click", close_ref],
        "stale-ref",
        note="the ref is still known but its element was removed; ref in argv, not in text",
    )
    eng.json([*s, "open", url])
    cap.record("css-selector-not-found", [*s, "click", "#nope"], "selector-not-found")
    cap.record("css-selector-not-found-getter", [*s, "get", "text", "#nope"], "selector-not-found")
    cap.record(
        "find-role-name-miss",
        [*s, "find", "role", "button", "click", "--name", "Nope"],
        "selector-not-found",
        note="Names seen lists page names 'Save timed out' and 'Confirmation required'",
    )
    cap.record(
        "find-role-no-element", [*s, "find", "role", "checkbox", "click"], "selector-not-found"
    )
    cap.record("find-text-miss", [*s, "find", "text", "Nope", "click"], "selector-not-found")
    cap.record("find-nth-miss", [*s, "find", "nth", "9", "button", "click"], "selector-not-found")
    cap.record(
        "playwright-text-dialect-click",
        [*s, "click", "text=Close"],
        "selector-not-found",
        note="0.39.4 reports a Playwright dialect as an ordinary locator-detail miss",
    )
    cap.record(
        "playwright-has-text-dialect-click",
        [*s, "click", "button:has-text('Close')"],
        "selector-not-found",
    )
    cap.record(
        "playwright-dialect-snapshot-scope",
        [*s, "snapshot", "-s", "text=Close"],
        "selector-unsupported",
    )
    cap.record("playwright-dialect-frame", [*s, "frame", "text=Close"], "selector-unsupported")
    cap.record(
        "invalid-css-diff-selector",
        [*s, "diff", "snapshot", "--selector", "div[["],
        "selector-unsupported",
    )
    cap.record("frame-not-found", [*s, "frame", "#nope"], "selector-not-found")
    cap.record("unknown-command-title", [*s, "title"], "upstream-error")
    cap.record("unknown-command-url", [*s, "url"], "upstream-error")
    cap.record("unknown-command-text", [*s, "text", "#close"], "upstream-error")
    cap.record("unknown-subcommand-get", [*s, "get", "frobnicate"], "upstream-error")
    cap.record("missing-arguments-get-attr", [*s, "get", "attr", "#close"], "upstream-error")
    cap.record("wait-selector-timeout", [*s, "wait", "#never", "--timeout", "500"], "timeout")
    cap.record(
        "wait-text-timeout", [*s, "wait", "--text", "never-here", "--timeout", "500"], "timeout"
    )
    cap.record(
        "wait-playwright-dialect-timeout",
        [*s, "wait", "text=Close", "--timeout", "500"],
        "timeout",
    )
    cap.record(
        "wait-download-never-happens",
        [*s, "wait", "--download", str(root / "never.txt"), "--timeout", "800"],
        "timeout",
        note="upstream reports the missing download as a generic timeout",
    )
    cap.record(
        "download-non-download-element",
        [*s, "download", "#nowhere", str(root / "nowhere.txt")],
        "timeout",
        note="AGENT_BROWSER_DEFAULT_TIMEOUT=3000; download ignores --timeout",
    )
    cap.record(
        "download-directory-unwritable",
        [*s, "download", "#file", "/proc/abt-no-such-dir/file.txt"],
        "download-not-verified",
    )
    eng.json([*s, "open", url])
    cap.record("eval-throws", [*s, "eval", "throw new Error('boom')"], "upstream-error")
    cap.record("tab-not-found", [*s, "tab", "t99"], "upstream-error")
    cap.record(
        "navigation-connection-refused",
        [*s, "open", f"http://127.0.0.1:{free_port()}/"],
        "upstream-error",
    )
    cap.record(
        "navigation-name-not-resolved",
        [*s, "open", "http://abt-capture.invalid/"],
        "upstream-error",
    )


def capture_confirmations(cap: Capture, url: str) -> None:
    """`--confirm-actions` envelopes; the flag is repeated because a change restarts the daemon."""
    eng = cap.engine
    s = ["--json", "--session", "cap-confirm", "--confirm-actions", "click,evaluate"]
    eng.json([*s, "open", url])
    cap.record(
        "confirm-actions-click-pending",
        [*s, "click", "#close"],
        "confirmation-required",
        note="success:true envelope with data.confirmation_required; the flag classifies it",
    )
    cap.record("confirm-actions-evaluate-pending", [*s, "eval", "1 + 1"], "confirmation-required")
    for entry in cap.records[-2:]:
        pending = (entry["envelope"] or {}).get("data") or {}
        if pending.get("confirmation_id"):
            eng.run([*s, "deny", str(pending["confirmation_id"])])
    cap.record("confirm-unknown-id", [*s, "confirm", "c_abt_nope"], "upstream-error")
    e = ["--json", "--session", "cap-confirm-eval", "--confirm-actions", "eval"]
    eng.json([*e, "open", url])
    cap.record(
        "confirm-actions-eval-category-not-gating",
        [*e, "eval", "1 + 1"],
        "completed",
        note="0.39.4 names the action 'evaluate'; the documented 'eval' category gates nothing",
    )
    t = [
        "--json",
        "--session",
        "cap-confirm-tty",
        "--confirm-actions",
        "click",
        "--confirm-interactive",
    ]
    eng.json([*t, "open", url])
    cap.record(
        "confirm-interactive-auto-deny",
        [*t, "click", "#close"],
        "confirmation-required",
        note="no TTY: auto-denied, nothing on stdout, prompt and denial on stderr",
    )


def capture_policies(cap: Capture, url: str, root: Path) -> None:
    """`--action-policy` denials (valid and broken policy files) and the domain allowlist."""
    eng = cap.engine
    strict = root / "policy-strict.json"
    strict.write_text(json.dumps({"default": "deny", "allow": ["navigate"]}))
    cap.record(
        "action-policy-deny-launch",
        ["--json", "--session", "cap-policy-strict", "--action-policy", str(strict), "open", url],
        "policy-blocked",
        note="starting the browser is itself the policy action 'launch'",
    )
    deny = root / "policy-deny.json"
    deny.write_text(json.dumps({"default": "deny", "allow": ["launch", "navigate"]}))
    s = ["--json", "--session", "cap-policy", "--action-policy", str(deny)]
    eng.json([*s, "open", url])
    cap.record("action-policy-deny-click", [*s, "click", "#close"], "policy-blocked")
    broken = root / "policy-broken.json"
    broken.write_text("{not json")
    b = ["--json", "--session", "cap-policy-broken", "--action-policy", str(broken)]
    cap.record(
        "action-policy-invalid-json",
        [*b, "get", "title"],
        "policy-blocked",
        note="mentions 'Invalid policy JSON' but must not classify as parse-failure",
    )
    missing = root / "policy-missing.json"
    cap.record(
        "action-policy-missing-file",
        [
            "--json",
            "--session",
            "cap-policy-missing",
            "--action-policy",
            str(missing),
            "get",
            "url",
        ],
        "policy-blocked",
        note="mentions 'No such file or directory' but must not classify as missing-binary",
    )
    a = ["--json", "--session", "cap-allow", "--allowed-domains", "127.0.0.1"]
    cap.record(
        "allowed-domains-blocked",
        [*a, "open", "http://blocked.abt-capture.invalid/"],
        "policy-blocked",
    )


def capture_tab_gone(cap: Capture, url: str) -> None:
    """A `--pin-tab` session attached over CDP whose bound tab is closed behind its back.

    A pinned session that owns its browser re-binds to a surviving tab, so the pin is only
    observable when the session attaches (`--cdp`) to a browser another session launched.
    """
    eng = cap.engine
    host = ["--json", "--session", "cap-host"]
    eng.json([*host, "open", url])
    cdp_url = eng.json([*host, "get", "cdp-url"])["data"]["cdpUrl"]
    port = urlparse(cdp_url).port
    pinned = ["--json", "--session", "cap-pinned", "--cdp", str(port), "--pin-tab"]
    target = eng.json([*pinned, "open", url])["data"]["targetId"]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/close/{target}", timeout=10):
        pass
    time.sleep(0.5)
    cap.record("pinned-tab-closed-get-url", [*pinned, "get", "url"], "tab-gone")
    cap.record("pinned-tab-closed-click", [*pinned, "click", "#close"], "tab-gone")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--engine", help="engine binary (default: the installed wheel's)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="fixture file to write")
    args = parser.parse_args(argv)
    binary = find_engine(args.engine)
    version = subprocess.run(
        [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
    ).stdout.strip()
    if not version.endswith(ENGINE_VERSION):
        print(f"warning: capturing from {version!r}, fixture is named for {ENGINE_VERSION}")
    root = Path(tempfile.mkdtemp(prefix="abt-cap-"))
    engine = Engine(binary=binary, root=root)
    engine.socket_dir.mkdir(mode=0o700)
    cap = Capture(engine)
    try:
        with serve_page() as url:
            capture_main_session(cap, url, root)
            capture_confirmations(cap, url)
            capture_policies(cap, url, root)
            capture_tab_gone(cap, url)
    finally:
        engine.close_all()
        leftover = _live_pids(engine.socket_dir)
        shutil.rmtree(root, ignore_errors=True)
    if leftover:
        print(f"warning: engine daemons still running: {leftover}", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(cap.records, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {len(cap.records)} records to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
