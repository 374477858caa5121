"""Capture what the pinned engine prints for representative commands, as unit-test fixtures.

Why: the envelope parser, the observers and the presenters are pure functions of what the
engine prints. This script drives the real engine against the local fixture site and stores,
per command, `{"argv", "exit_code", "stdout", "stderr"}` (plus `"stdin"` when the command read
stdin) under `tests/fixtures/envelopes/<name>.json`, so unit tests run on real shapes.

The command sequence is `SCENARIO`; `tests/real/test_envelope_shapes.py` replays the same
sequence against a live engine and checks that the shapes still match the stored files.

Volatile values are normalised so re-running the script yields the same files: the fixture
server's origin becomes `http://127.0.0.1:PORT`, the private temp dir `<TMP>`, target ids,
launch hashes, request ids, timestamps and dates fixed placeholders of the same JSON type.

Hermetic: a private 0700 socket dir under /tmp, one dedicated session, inherited
`AGENT_BROWSER_*` settings dropped; the session is closed and `close --all` runs in the
socket dir at the end, even when a step fails.

Usage (from the repo root):
    /work/venv/bin/python scripts/capture_envelopes.py [--engine PATH] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "tests" / "fixtures" / "envelopes"
SESSION = "envcap"
CALL_TIMEOUT_S = 90.0
CLOSE_TIMEOUT_S = 30.0

# Placeholders written into the fixtures in place of volatile values.
PORT_PLACEHOLDER = "PORT"
TMP_PLACEHOLDER = "<TMP>"
TARGET_ID_PLACEHOLDER = "<TARGET_ID>"
REQUEST_ID_PLACEHOLDER = "<REQUEST_ID>"
DATE_PLACEHOLDER = "<DATE>"
LAUNCH_HASH_PLACEHOLDER = 0  # an integer, like the real value
TIMESTAMP_PLACEHOLDER = 1_700_000_000_000  # epoch milliseconds, like the real value

EVAL_SCRIPT = (
    "({title: document.title, path: location.pathname, items: [1, 2], nested: {empty: null}})"
)
BATCH_ACTIONS = [
    ["fill", "#email", "a@b.c"],
    ["find", "label", "Full name", "fill", "Ada"],
    ["find", "text", "Subscribe", "click"],
    ["get", "title"],
]


@dataclass(frozen=True)
class Step:
    """One engine command of the scenario.

    `args` follow `--json --session S`. Tokens may hold placeholders that `resolve_args`
    fills: `{base}` (fixture server origin), `{tmp}` (private artifacts dir) and
    `{ref:ROLE:NAME}` (the `@eN` of that element in the latest `snapshot -i`).
    A step with a `name` is stored as `<name>.json`; unnamed steps only set up page state.
    """

    args: tuple[str, ...]
    name: str | None = None
    stdin: str | None = None


def _s(*args: str, name: str | None = None, stdin: str | None = None) -> Step:
    return Step(args=args, name=name, stdin=stdin)


SCENARIO: tuple[Step, ...] = (
    # Reading a page.
    _s("open", "{base}/form.html", name="open"),
    _s("get", "url", name="get_url"),
    _s("get", "title", name="get_title"),
    _s("get", "text", "h1", name="get_text"),
    _s("get", "html", "h1", name="get_html"),
    _s("get", "attr", "#age", "max", name="get_attr"),
    _s("get", "count", "input", name="get_count"),
    _s("is", "visible", "h1", name="is_visible"),
    _s("snapshot", name="snapshot"),
    _s("snapshot", "-i", "-c", name="snapshot_interactive_compact"),
    _s("snapshot", "-i", name="snapshot_interactive"),
    # Acting on it.
    # Locators: the engine answers with its own marker selector, which the model never sees.
    _s("find", "label", "Full name", "fill", "Ada", name="find_label_fill"),
    _s("find", "text", "Subscribe", "click", name="find_text_click"),
    _s("batch", name="batch_actions", stdin=json.dumps(BATCH_ACTIONS)),
    _s("fill", "{ref:textbox:Full name}", "Ada Lovelace", name="fill_ref"),
    _s("get", "value", "#full-name", name="get_value"),
    _s("check", "#subscribe", name="check"),
    _s("select", "#flavor", "chocolate", name="select"),
    _s("click", "{ref:button:Submit}", name="click_ref"),
    _s("press", "Tab", name="press"),
    # Scrolling and waiting.
    _s("open", "{base}/long.html"),
    _s("scroll", "down", name="scroll_down"),
    _s("scrollintoview", "#section-5", name="scrollintoview"),
    _s("wait", "100", name="wait_ms"),
    _s("wait", "#bottom", name="wait_selector"),
    # Tabs.
    _s("tab", "list", name="tab_list"),
    _s("tab", "new", name="tab_new"),
    _s("tab", "close", name="tab_close"),
    # History.
    _s("open", "{base}/page-a.html"),
    _s("open", "{base}/page-b.html"),
    _s("back", name="back"),
    _s("forward", name="forward"),
    _s("reload", name="reload"),
    # Artifacts.
    _s("screenshot", "{tmp}/shot.png", name="screenshot"),
    _s("pdf", "{tmp}/page.pdf", name="pdf"),
    _s("open", "{base}/downloads.html"),
    _s("download", "a[download]", "{tmp}/report.txt", name="download"),
    # Storage (the fixture's planted secrets are fake by design).
    _s("open", "{base}/storage.html"),
    _s("cookies", "get", name="cookies_get"),
    _s("storage", "local", name="storage_local"),
    # Diagnostics.
    _s("open", "{base}/console.html"),
    _s("console", name="console"),
    _s("errors", name="errors"),
    _s("network", "requests", "--clear"),
    _s("open", "{base}/clean.html"),
    _s("network", "requests", name="network_requests"),
    _s("eval", "--stdin", name="eval_stdin", stdin=EVAL_SCRIPT),
    # Batches and failures.
    _s(
        "batch",
        name="batch_success",
        stdin=json.dumps([["get", "url"], ["get", "title"]]),
    ),
    _s(
        "batch",
        name="batch_failing_row",
        stdin=json.dumps([["get", "title"], ["click", "@e999"], ["get", "url"]]),
    ),
    _s("click", "@e999", name="click_missing_ref"),
    _s("frobnicate", name="unknown_command"),
    _s("close", name="close"),
)

_REF_TOKEN = re.compile(r"^\{ref:([^:}]+):([^}]+)\}$")


def resolve_args(
    args: Sequence[str], *, base_url: str, tmp: Path, refs: Mapping[str, Any]
) -> list[str]:
    """Fill the `{base}`, `{tmp}` and `{ref:ROLE:NAME}` placeholders of one step."""
    resolved = []
    for token in args:
        hit = _REF_TOKEN.match(token)
        if hit:
            resolved.append("@" + find_ref(refs, hit.group(1), hit.group(2)))
            continue
        resolved.append(token.replace("{base}", base_url).replace("{tmp}", str(tmp)))
    return resolved


def find_ref(refs: Mapping[str, Any], role: str, name: str) -> str:
    """The ref id (`eN`) of the element with this role and accessible name."""
    for ref, info in refs.items():
        if isinstance(info, Mapping) and info.get("role") == role and info.get("name") == name:
            return str(ref)
    raise LookupError(f"no {role} named {name!r} in the latest snapshot refs")


def snapshot_refs(envelope: Any) -> dict[str, Any] | None:
    """The `refs` map of a snapshot envelope, or None when it carries none."""
    if isinstance(envelope, dict) and isinstance(envelope.get("data"), dict):
        refs = envelope["data"].get("refs")
        if isinstance(refs, dict):
            return refs
    return None


# --- normalisation ---------------------------------------------------------------------


def normalize_text(text: str, *, port: int, tmp: Path) -> str:
    """Replace the fixture origin and the temp dir inside any text."""
    text = text.replace(str(tmp.resolve()), TMP_PLACEHOLDER).replace(str(tmp), TMP_PLACEHOLDER)
    return text.replace(f"127.0.0.1:{port}", f"127.0.0.1:{PORT_PLACEHOLDER}")


def _user_agent(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    return re.sub(r"(Chrome|Chromium)/[\d.]+", r"\1/<VERSION>", value)


_KEY_RULES: dict[str, Callable[[Any], Any]] = {
    "targetId": lambda v: TARGET_ID_PLACEHOLDER if isinstance(v, str) else v,
    "launchHash": lambda v: LAUNCH_HASH_PLACEHOLDER if isinstance(v, int) else v,
    "requestId": lambda v: REQUEST_ID_PLACEHOLDER if isinstance(v, str) else v,
    "timestamp": lambda v: TIMESTAMP_PLACEHOLDER if isinstance(v, int | float) else v,
    "Date": lambda v: DATE_PLACEHOLDER if isinstance(v, str) else v,
    "User-Agent": _user_agent,
    "sec-ch-ua": lambda v: "<UA-BRANDS>" if isinstance(v, str) else v,
}


def normalize_value(value: Any) -> Any:
    """Replace volatile values by key, recursively; shapes and JSON types are kept."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            rule = _KEY_RULES.get(key)
            out[key] = rule(item) if rule is not None else normalize_value(item)
        return out
    if isinstance(value, list):
        return [normalize_value(item) for item in value]
    return value


# --- running ---------------------------------------------------------------------------


def find_engine(explicit: str | None) -> Path:
    """The engine binary: `--engine`, else the one our own discovery resolves."""
    if explicit:
        return Path(explicit)
    from agent_browser_tools.engine.discovery import resolve_engine
    from agent_browser_tools.settings import Settings

    return Path(resolve_engine(Settings.load()).path)


@dataclass
class Capture:
    """Runs the scenario in one session and writes the named steps' fixtures."""

    binary: Path
    env: dict[str, str]
    base_url: str
    port: int
    tmp: Path
    out: Path

    def run(
        self, args: Sequence[str], stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.binary), *args],
            env=self.env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=CALL_TIMEOUT_S,
            check=False,
        )

    def scenario(self) -> list[str]:
        refs: dict[str, Any] = {}
        written = []
        for step in SCENARIO:
            args = resolve_args(step.args, base_url=self.base_url, tmp=self.tmp, refs=refs)
            argv = ["--json", "--session", SESSION, *args]
            proc = self.run(argv, step.stdin)
            try:
                stdout = json.loads(proc.stdout)
            except json.JSONDecodeError as exc:
                raise SystemExit(
                    f"{args!r} printed no JSON (rc={proc.returncode}): {exc}\n"
                    f"stdout: {proc.stdout[:2000]}\nstderr: {proc.stderr[:2000]}"
                ) from None
            if args and args[0] == "snapshot":
                refs = snapshot_refs(stdout) or refs
            if step.name is None:
                if not (isinstance(stdout, dict) and stdout.get("success") is True):
                    raise SystemExit(f"setup step {args!r} failed: {proc.stdout[:2000]}")
                continue
            self.write(step, argv, proc, stdout)
            written.append(step.name)
        return written

    def write(
        self, step: Step, argv: list[str], proc: subprocess.CompletedProcess[str], stdout: Any
    ) -> None:
        def text(value: str) -> str:
            return normalize_text(value, port=self.port, tmp=self.tmp)

        # Text replacement on the JSON form reaches every string; then the key rules.
        stdout_text = text(json.dumps(stdout, ensure_ascii=False))
        record: dict[str, Any] = {
            "argv": [text(a) for a in argv],
            "exit_code": proc.returncode,
            "stdout": normalize_value(json.loads(stdout_text)),
            "stderr": text(proc.stderr),
        }
        if step.stdin is not None:
            record["stdin"] = text(step.stdin)
        path = self.out / f"{step.name}.json"
        path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", help="engine binary (default: the resolved pinned engine)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="fixture directory")
    options = parser.parse_args(argv)

    sys.path.insert(0, str(REPO))
    from tests.support.fixture_server import start_fixture_server
    from tests.support.real_engine import close_socket_dir, engine_env_for

    binary = find_engine(options.engine)
    options.out.mkdir(parents=True, exist_ok=True)
    # Short (socket paths are limited to ~108 bytes) and private (the sockets drive a browser).
    tmp = Path(tempfile.mkdtemp(prefix="abt-env-", dir="/tmp"))
    tmp.chmod(0o700)
    server = start_fixture_server()
    capture = Capture(
        binary=binary,
        env=engine_env_for(binary, tmp).env,
        base_url=server.base_url,
        port=server.port,
        tmp=tmp,
        out=options.out,
    )
    try:
        written = capture.scenario()
    finally:
        close_socket_dir(binary, capture.env, tmp, sessions=[SESSION])
        server.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"wrote {len(written)} envelope fixtures to {options.out}")
    for name in written:
        print(f"  {name}.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
