"""Issue 4 acceptance: planted secrets never leave the process unredacted.

One conversation (one managed browser, plus two `sessionMode: "fresh"` launches at the end)
plants 20+ distinct fake secrets everywhere the tool contract requires redaction: cookies
(`document.cookie`, an HttpOnly `Set-Cookie`, `cookies set`), local/session storage (JWTs, API
keys, tokens), bearer headers (`set headers` and global `--headers`), auth-vault passwords
(`--password-stdin` and `--password`), proxy and basic-auth URL credentials, API-key query
parameters, `set credentials`, `eval` results with `password`/`apiKey` fields, `clipboard
write`, a mixed batch with a failing step that echoes its argv, caller `--json` and native
`--json false` reads, `outputPath` exports, spills, and pre-dispatch rejections that quote
their argv. Afterwards every byte the wrapper produced is searched for every secret: result
text and details, every file under the state dir (the SQLite journal raw and row by row,
including its `-wal`), every `outputPath` file, every spill named in details, and the log.

Secrets are planted only where the contract requires redaction: never as visible page text
that a model asks to read.
"""

from __future__ import annotations

import base64
import json
import logging
import secrets as random_source
import socket
import string
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import PLANTED_SECRETS, FixtureServer
from tests.support.leak_search import Recorder, file_blobs, find_leaks, result_blobs
from tests.support.real_engine import EngineEnv
from tests.support.tools import tools_settings

pytestmark = pytest.mark.real_engine

_ALNUM = string.ascii_letters + string.digits


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


class Secrets:
    """Distinct, token-shaped, obviously fake values, generated per run."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.extra_needles: dict[str, str] = {}

    def new(self, label: str) -> str:
        index = len(self.values) + 1
        tail = "".join(random_source.choice(_ALNUM) for _ in range(18))
        value = f"abtSecret{index:02d}_{tail}"
        self.values[label] = value
        return value

    def jwt(self, label: str) -> str:
        """A JWT-shaped fake (`alg: none`); its signature segment is searched for too."""
        header = _b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
        nonce = "".join(random_source.choice(_ALNUM) for _ in range(16))
        payload = _b64url(json.dumps({"sub": "abt-fixture", "nonce": nonce}).encode())
        signature = _b64url(random_source.token_bytes(32))
        value = f"{header}.{payload}.{signature}"
        self.values[label] = value
        self.extra_needles[f"{label} (signature)"] = signature
        return value

    def basic(self, label: str, user: str, password: str) -> None:
        """`Authorization: Basic` carries `user:password` base64-encoded: search that too."""
        self.extra_needles[label] = base64.b64encode(f"{user}:{password}".encode()).decode()

    def needles(self) -> dict[str, str]:
        fixture = {f"fixture {name}": value for name, value in PLANTED_SECRETS.items()}
        return {**self.values, **self.extra_needles, **fixture}


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_planted_secrets_never_leave_the_process(
    engine_env: EngineEnv,
    fixture_site: FixtureServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    state_dir = tmp_path / "state"
    home = tmp_path / "home"  # the engine's auth vault lives under $HOME: keep it private
    home.mkdir(mode=0o700)
    # The operator lets the model pass `--proxy` here, so a proxy password still reaches a
    # real (failing) launch and its redaction is exercised, not just the policy refusal.
    settings = tools_settings(
        engine_env, state_dir, HOME=str(home), AGENT_BROWSER_TOOLS_ALLOW_MODEL_FLAGS="--proxy"
    )
    tools = BrowserTools(settings=settings, cwd=tmp_path)
    rec = Recorder(tools)
    s = Secrets()
    clean = fixture_site.url("clean.html")
    try:
        await _plant_and_read(rec, s, fixture_site, clean)
        await _batch_and_auth(rec, s, clean)
        await _rejected_before_dispatch(rec, s, clean)
        await _fresh_launches(rec, s, clean)
        open_blobs = file_blobs(state_dir, "state (open)")
    finally:
        await tools.aclose()

    assert len(s.values) >= 20, "the acceptance criterion is 20+ distinct secrets"
    assert len(set(s.values.values())) == len(s.values)
    blobs, named = result_blobs(rec)
    blobs.update(open_blobs)
    blobs.update(file_blobs(state_dir, "state (closed)"))
    blobs.update(file_blobs(tmp_path, "cwd", skip=home))
    for path in named:
        assert path.is_file(), f"details name a missing file {path}"
        blobs[f"named file {path}"] = path.read_bytes()
    blobs["log"] = caplog.text.encode()
    assert any("observationPath" in key or "spill" in key for key in blobs), "no spill exercised"
    assert any(name.endswith("-wal") for name in open_blobs), "journal WAL not inspected"
    assert any(name.endswith("(rows)") for name in blobs), "journal rows not inspected"

    leaks = find_leaks(blobs, s.needles())
    assert not leaks, "secrets leaked:\n" + "\n".join(leaks)


async def _plant_and_read(rec: Recorder, s: Secrets, site: FixtureServer, clean: str) -> None:
    """Page-planted and command-planted cookies/storage, headers, URLs; then every read."""
    await rec.ok("open", site.url("storage.html"))
    await rec.ok("open", site.url("set-cookie"))  # HttpOnly server_session
    page_jwt = s.jwt("localStorage JWT (eval)")
    neutral_key = s.new("localStorage api key under a neutral key (eval)")
    session_token = s.new("sessionStorage token (eval)")
    cookie_value = s.new("document.cookie value (eval)")
    planted = await rec.ok(
        "eval",
        "--stdin",
        stdin=(
            f"localStorage.setItem('profile_cache', {json.dumps(page_jwt)});"
            f"localStorage.setItem('widget_cfg', {json.dumps(neutral_key)});"
            f"sessionStorage.setItem('refresh_hint', {json.dumps(session_token)});"
            f"document.cookie = 'pref_id=' + {json.dumps(cookie_value)} + '; path=/';"
            "'planted'"
        ),
    )
    assert "planted" in json.dumps(planted.details["data"])
    await rec.ok("cookies", "set", "ui_pref", s.new("cookies set value"))
    await rec.ok("storage", "local", "set", "api_key", s.new("storage local set value"))
    await rec.ok("storage", "session", "set", "csrf_token", s.new("storage session set value"))
    headers = {"Authorization": f"Bearer {s.new('set headers bearer')}"}
    headers["X-Api-Key"] = s.new("set headers api key")
    await rec.ok("set", "headers", json.dumps(headers))

    query = f"?api_key={s.new('api_key query param')}&token={s.new('token query param')}"
    await rec.ok("open", clean + query)
    await rec.ok("get", "url")
    await rec.ok("--json", "false", "get", "url")
    await rec.ok("snapshot", "-i")
    await rec.ok("tab", "list")
    await rec.ok("--json", "false", "tab", "list")
    requests = await rec.ok("network", "requests")
    rows = requests.details["data"]["requests"]
    with_auth = [r for r in rows if "Authorization" in r.get("headers", {})]
    assert with_auth and with_auth[-1]["headers"]["Authorization"] == "[REDACTED]"
    await rec.ok("network", "request", with_auth[-1]["requestId"])
    await rec.ok("--json", "false", "network", "request", with_auth[-1]["requestId"])
    await rec.ok("--json", "false", "network", "requests")
    await rec.ok("--json", "network", "requests", outputPath="exports/requests.json")

    user_password = s.new("set credentials password")
    s.basic("set credentials (base64)", "user", user_password)
    await rec.ok("set", "credentials", "user", user_password)
    url_password = s.new("basic-auth URL password")
    s.basic("basic-auth URL (base64)", "user", url_password)
    await rec.call("open", clean.replace("http://", f"http://user:{url_password}@"))
    await rec.ok("get", "url")
    await rec.ok("network", "requests")

    await _reads(rec)
    await _evals(rec, s)
    await rec.call("clipboard", "write", s.new("clipboard write text"))


async def _reads(rec: Recorder) -> None:
    """Structured, caller-JSON and native-text reads, plus `outputPath` exports."""
    cookies = await rec.ok("cookies", outputPath="exports/cookies.json")
    seen = {c["name"]: c["value"] for c in cookies.details["data"]["cookies"]}
    planted = {"server_session", "session_id", "auth_token", "pref_id", "ui_pref"}
    assert planted <= set(seen) and {seen[name] for name in planted} == {"[REDACTED]"}
    await rec.ok("--json", "cookies")
    await rec.ok("--json", "false", "cookies", outputPath="exports/cookies.txt")
    storage = await rec.ok("storage", "local", outputPath="exports/local.json")
    entries = storage.details["data"]["data"]
    assert entries["theme"] == "dark", "benign values stay visible"
    for key in ("jwt", "api_key", "profile_cache", "widget_cfg"):
        assert entries[key] == "[REDACTED]", key
    await rec.ok("--json", "storage", "local")
    await rec.ok("--json", "false", "storage", "local", outputPath="exports/local.txt")
    await rec.ok("--json", "false", "storage", "local", "api_key")
    await rec.ok("--json", "false", "storage", "local", "profile_cache")
    await rec.ok("storage", "local", "api_key", outputPath="exports/api_key.json")
    await rec.ok("storage", "session")
    await rec.ok("--json", "false", "storage", "session", outputPath="exports/session.txt")
    await rec.ok("--json", "false", "storage", "session", "refresh_hint")


async def _evals(rec: Recorder, s: Secrets) -> None:
    """Eval results with credential fields: prose, caller JSON, export and spills."""
    script = (
        f"({{password: {json.dumps(s.new('eval password field'))}, "
        f"apiKey: {json.dumps(s.new('eval apiKey field'))}, note: 'ok'}})"
    )
    result = await rec.ok("eval", "--stdin", stdin=script, outputPath="exports/eval.json")
    assert "[REDACTED]" in json.dumps(result.details["data"])
    await rec.ok("--json", "eval", "--stdin", stdin=script)
    big = (
        f"({{password: {json.dumps(s.new('eval password in a spilled result'))}, "
        f"accessToken: {json.dumps(s.new('eval accessToken in a spilled result'))}, "
        "filler: 'lorem ipsum '.repeat(2500)})"
    )
    spilled = await rec.ok("eval", "--stdin", stdin=big)
    assert spilled.details.get("observationPath"), "the oversized result must spill"
    spilled_json = await rec.ok("--json", "eval", "--stdin", stdin=big)
    assert spilled_json.details.get("observationPath")
    for shown in (spilled, spilled_json):  # read back through the tool: the windows join the
        name = Path(shown.details["observationPath"]).name  # leak search like every result
        window = await rec.ok("spill", name)
        assert window.details["data"]["name"] == name and window.details["data"]["text"]
    await rec.ok("--json", "false", "eval", "--stdin", stdin=script)
    await rec.ok("get", "url")  # native text cannot show where a may-navigate eval landed


async def _batch_and_auth(rec: Recorder, s: Secrets, clean: str) -> None:
    """Auth-vault passwords and a mixed batch with a failing step that echoes its argv."""
    await rec.ok(
        "auth",
        "save",
        "abt-stdin",
        "--url",
        clean,
        "--username",
        "u",
        "--password-stdin",
        stdin=s.new("auth save --password-stdin"),
    )
    await rec.ok(
        "auth",
        "save",
        "abt-flag",
        "--url",
        clean,
        "--username",
        "u",
        "--password",
        s.new("auth save --password"),
    )
    await rec.ok("auth", "show", "abt-stdin")
    await rec.ok("auth", "list")
    rows = [
        ["cookies", "set", "batch_pref", s.new("batch cookies set")],
        ["storage", "local", "set", "batch_key", s.new("batch storage local set")],
        ["storage", "session", "set", "batch_sess", s.new("batch storage session set")],
        ["set", "credentials", "user", s.new("batch set credentials")],
        ["eval", f"({{apiKey: '{s.new('batch eval apiKey literal')}'}})"],
        ["cookies"],
        ["storage", "local"],
        ["eval", "({filler: 'dolor sit amet '.repeat(1400)})"],
    ]
    batch = await rec.call("batch", stdin=json.dumps(rows))
    steps = batch.details["batchSteps"]
    assert [step["success"] for step in steps] == [True] * 8
    as_json = await rec.call("--json", "batch", stdin=json.dumps(rows))
    assert as_json.details.get("observationPath"), "the oversized batch must spill"
    await rec.ok("batch", stdin=json.dumps(rows), outputPath="exports/batch.json")
    # `--password=<value>` is no flag the taxonomy knows (upstream rejects it too, quoting the
    # whole token): refused before the engine runs, in a batch row as in native text mode.
    equals = ["auth", "save", "abt-eq", "--url", clean, "--password=" + s.new("batch --password=")]
    for prefix in ([], ["--json", "false"]):
        refused = await rec.call(*prefix, "batch", stdin=json.dumps([rows[0], equals]))
        assert refused.details["failureCategory"] == "validation-error", refused.text
    # Native batch text has no row boundaries: cookie/storage lines of every row are masked.
    native_rows = [
        ["cookies", "set", "native_pref", s.new("native batch cookies set")],
        ["storage", "local", "set", "native_key", s.new("native batch storage local set")],
        ["cookies"],
        ["storage", "local"],
        ["storage", "local", "native_key"],
        ["eval", f"({{apiKey: '{s.new('native batch eval apiKey literal')}'}})"],
    ]
    native = await rec.call("--json", "false", "batch", stdin=json.dumps(native_rows))
    assert "native_pref=[REDACTED]" in native.text, native.text
    await rec.ok("get", "url")
    for name in ("abt-stdin", "abt-flag"):
        await rec.ok("auth", "delete", name)


async def _rejected_before_dispatch(rec: Recorder, s: Secrets, clean: str) -> None:
    """Wrapper validation messages quote the argv they refuse."""
    proxy = f"http://user:{s.new('rejected --proxy= value')}@127.0.0.1:9"
    refused = await rec.call("--proxy=" + proxy, "open", clean)
    assert refused.details["failureCategory"] == "validation-error"
    only_globals = json.dumps({"X-Api-Key": s.new("rejected globals-only --headers")})
    await rec.call("--headers", only_globals)
    await rec.call("batch", f"cookies set sid '{s.new('rejected unparsable batch row')}")
    await rec.call("agent-browser", "cookies", "set", "sid", s.new("rejected binary-name argv"))


async def _fresh_launches(rec: Recorder, s: Secrets, clean: str) -> None:
    """Global `--headers` and `--proxy` credentials on fresh managed launches."""
    headers = json.dumps({"Authorization": f"Bearer {s.new('global --headers bearer')}"})
    await rec.ok("--headers", headers, "open", clean, sessionMode="fresh")
    # Upstream applies origin-scoped headers outside the CDP request log; read it anyway.
    await rec.ok("network", "requests")
    proxy = f"http://user:{s.new('--proxy password')}@127.0.0.1:{_closed_port()}"
    # A non-loopback host goes through the (dead) proxy; the failure must still be clean.
    await rec.call("--proxy", proxy, "open", "http://abt-fixture.invalid/", sessionMode="fresh")
    await rec.call("get", "url")
