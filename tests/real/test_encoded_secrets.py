"""Issue 27 acceptance: secrets in every encoding a browser produces never leave the process.

One conversation plants an operator secret and a typed password, both with `<"&+ ` (the
five characters HTML, URLs and JSON each encode differently, a space included) inside a
longer value, and sends them everywhere a browser re-encodes what a field holds:

- HTML: a live mirror page copies both fields into text, attributes and a base64 attribute;
  `get html`, `get text`, `snapshot`, `eval` of `innerHTML`, `btoa` and `encodeURIComponent`,
  a spilled answer and an `outputPath` export read them back;
- a GET form: submitting it puts both into the URL (`%3C%22%26%2B+`), read back by the click
  result, `get url`, `tab list`, `network requests`, `network request`, `snapshot -u`, the
  page's own link and its console;
- a HAR and a trace recorded around the submit;
- `state save`: the secret as a cookie, the HttpOnly session cookie and a storage token are
  saved, shown (`state show`), uploaded back into the page and loaded again;
- the journal, the spill dir and everything else under the state dir.

The password is typed key by key (`focus` + `press`), the form the issue found unrecognised.
Afterwards every byte the wrapper produced is searched for both values in every spelling:
raw, HTML-escaped (named and numeric), percent-encoded with `%20` and with `+` (either hex
case, twice), JSON-escaped (also `\\u003c`-style) and base64 at each alignment (both
alphabets). Fragments of each value are searched too, so a half-scrubbed value is a leak.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import SET_COOKIE_NAME, SET_COOKIE_SECRET, FixtureServer
from tests.support.leak_search import (
    Recorder,
    file_blobs,
    find_leaks,
    needles,
    result_blobs,
)
from tests.support.real_engine import EngineEnv
from tests.support.tools import tools_settings

pytestmark = pytest.mark.real_engine

OPERATOR = 'Op3r<"&+ atorPw-9'
"""The operator's secret, used by name as `{{secret:SHOP_PW}}`."""
TYPED = 'hunter<"&+ 2Typed'
"""A password the model types into the password field, one key at a time."""
STORAGE_TOKEN = "tok_local_8f2a6c1e9b3d7a5f"
FRAGMENTS = {"operator fragment": "atorPw-9", "typed fragment": "2Typed"}
COOKIE = "shop_pref"


def _tools(
    engine_env: EngineEnv, tmp_path: Path, secret: str = f"SHOP_PW='{OPERATOR}'"
) -> BrowserTools:
    """A conversation with the operator secret (a dotenv line) defined, a private HOME (the
    engine's vault and key file live there) and a workspace of its own."""
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    secrets_file = tmp_path / "operator.env"
    secrets_file.write_text(secret + "\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    settings = tools_settings(
        engine_env,
        tmp_path / "state",
        HOME=str(home),
        AGENT_BROWSER_TOOLS_SECRETS_FILE=str(secrets_file),
    )
    return BrowserTools(settings=settings, cwd=workspace)


def _keys(value: str) -> list[str]:
    return ["Space" if char == " " else char for char in value]


async def test_secrets_never_leave_in_any_encoding(
    engine_env: EngineEnv,
    fixture_site: FixtureServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    state_dir = tmp_path / "state"
    workspace = tmp_path / "ws"
    tools = _tools(engine_env, tmp_path)
    rec = Recorder(tools)
    try:
        await _type_both(rec, fixture_site)
        await _read_the_mirror(rec)
        await _submit_the_get_form(rec)
        await _record_har_and_trace(rec, fixture_site)
        await _save_show_and_load_state(rec, fixture_site, workspace)
        open_blobs = file_blobs(state_dir, "state (open)")
    finally:
        await tools.aclose()

    blobs, named = result_blobs(rec)
    blobs.update(open_blobs)
    blobs.update(file_blobs(state_dir, "state (closed)"))
    blobs.update(file_blobs(workspace, "workspace"))
    for path in named:
        assert path.is_file(), f"details name a missing file {path}"
        blobs[f"named file {path}"] = path.read_bytes()
    blobs["log"] = caplog.text.encode()
    assert any("observationPath" in key or "spill" in key for key in blobs), "no spill exercised"
    assert any(name.endswith("-wal") for name in open_blobs), "journal WAL not inspected"
    for saved in ("flow.har", "flow-trace.json", "mirror.html.txt", "state.json.enc"):
        assert f"workspace:exports/{saved}" in blobs, f"{saved} was not written"

    wanted = {
        **needles("operator secret", OPERATOR),
        **needles("typed password", TYPED),
        **needles("storage token", STORAGE_TOKEN),
        **needles("HttpOnly session cookie", SET_COOKIE_SECRET),
        **FRAGMENTS,
    }
    leaks = find_leaks(blobs, wanted)
    assert not leaks, "secrets leaked:\n" + "\n".join(leaks)


async def _type_both(rec: Recorder, site: FixtureServer) -> None:
    """The operator secret filled into an ordinary field; the password pressed key by key."""
    await rec.ok("open", site.url("mirror.html"))
    await rec.ok("fill", "#note", "{{secret:SHOP_PW}}")
    await rec.ok("focus", "#pw")
    for key in _keys(TYPED):
        await rec.ok("press", key)
    pressed = rec.results[-1][1]
    assert pressed.details["redacted"]["reason"] == "credential-field"


async def _read_the_mirror(rec: Recorder) -> None:
    """The mirror shows both values escaped as HTML text and attributes and as base64."""
    html = await rec.ok("get", "html", "body", outputPath="exports/mirror.html.txt")
    assert "{{secret:SHOP_PW}}" in html.text, html.text[:2000]
    assert "[redacted: typed into a credential field]" in html.text
    await rec.ok("get", "text", "body")
    await rec.ok("snapshot")
    await rec.ok("get", "attr", "#echo-pw", "data-b64")
    await rec.ok("get", "attr", "#echo-note", "data-value")
    await rec.ok("eval", "document.body.innerHTML")
    await rec.ok(
        "eval",
        "--stdin",
        stdin=(
            "({note: encodeURIComponent(document.getElementById('note').value),"
            " basic: 'Basic ' + btoa('alice:' + document.getElementById('pw').value),"
            " json: JSON.stringify({pw: document.getElementById('pw').value})})"
        ),
    )
    spilled = await rec.ok("eval", "document.body.outerHTML + ' filler'.repeat(4000)")
    assert spilled.details.get("observationPath"), "the oversized answer must spill"
    await rec.ok("--json", "get", "html", "#echo-pw")
    await rec.ok("--json", "false", "get", "html", "#echo-note")


async def _submit_the_get_form(rec: Recorder) -> None:
    """Both values travel percent-encoded in the URL after a GET submit."""
    clicked = await rec.ok("click", "#go")
    assert "note={{secret:SHOP_PW}}" in clicked.text, clicked.text
    await rec.ok("get", "url")
    await rec.ok("--json", "false", "get", "url")
    await rec.ok("tab", "list")
    await rec.ok("--json", "false", "tab", "list")
    await rec.ok("snapshot", "-u")
    await rec.ok("get", "attr", "#again", "href")
    requests = await rec.ok("network", "requests")
    submitted = [r for r in requests.details["data"]["requests"] if "?note=" in r.get("url", "")]
    assert submitted, requests.text
    await rec.ok("network", "request", submitted[-1]["requestId"])
    await rec.ok("--json", "false", "network", "requests")
    await rec.ok("--json", "network", "requests", outputPath="exports/requests.json")
    await rec.ok("console")
    await rec.ok("get", "html", "body")


async def _record_har_and_trace(rec: Recorder, site: FixtureServer) -> None:
    """A HAR and a trace around a second submit of both values."""
    await rec.ok("network", "har", "start")
    await rec.ok("trace", "start")
    await rec.ok("open", site.url("mirror.html"))
    await rec.ok("fill", "#note", "{{secret:SHOP_PW}}")
    await rec.ok("focus", "#pw")
    for key in _keys(TYPED):
        await rec.ok("press", key)
    await rec.ok("click", "#go")
    await rec.ok("get", "url")
    await rec.ok("trace", "stop", "exports/flow-trace.json")
    await rec.ok("network", "har", "stop", "exports/flow.har")


async def _save_show_and_load_state(rec: Recorder, site: FixtureServer, ws: Path) -> None:
    """Cookies (the operator secret, an HttpOnly session) and a storage token saved to a state
    file the model can load but not read back: not by `state show`, not by uploading it."""
    await rec.ok("open", site.url("set-cookie"))  # HttpOnly server_session
    await rec.ok("open", site.url("mirror.html"))
    await rec.ok("cookies", "set", COOKIE, "{{secret:SHOP_PW}}")
    await rec.ok("storage", "local", "set", "widget_cfg", STORAGE_TOKEN)
    saved = await rec.ok("state", "save", "exports/state.json")
    path = ws / "exports" / "state.json.enc"
    assert path.is_file() and str(path) in saved.text, saved.text
    raw = path.read_bytes()
    assert SET_COOKIE_NAME.encode() not in raw and COOKIE.encode() not in raw, "not encrypted"
    shown = await rec.ok("--json", "state", "show", str(path))
    cookies = shown.details["data"]["state"]["cookies"]
    assert {c["name"] for c in cookies} >= {COOKIE, SET_COOKIE_NAME}
    assert {c["value"] for c in cookies} == {"[REDACTED]"}
    await rec.ok("state", "show", str(path))
    # Read back through the page: the upload shows ciphertext, nothing a model could use.
    await rec.ok("upload", "#file", str(path))
    text = await rec.ok("get", "text", "#file-text")
    assert SET_COOKIE_NAME not in text.text and COOKIE not in text.text, text.text
    await rec.ok("get", "text", "#file-b64")
    refused = await rec.call("open", path.as_uri())
    assert refused.is_error and refused.details["failureCategory"] == "policy-blocked"
    # The file still does its job: cleared cookies come back from it.
    await rec.ok("cookies", "clear")
    await rec.ok("state", "load", "exports/state.json")
    await rec.ok("get", "url")
    restored = await rec.ok("cookies")
    names = {c["name"] for c in restored.details["data"]["cookies"]}
    assert {COOKIE, SET_COOKIE_NAME} <= names, restored.text
    await rec.ok("--json", "cookies")
    await rec.ok("eval", "document.cookie")


#: Page-side encodings a script (or a page) applies to a field's value before it comes back.
#: `v` is the typed password, `n` the operator secret, as the page holds them; `ent` writes
#: each character an escaper would escape as an HTML character reference.
PAGE_ENCODINGS: dict[str, str] = {
    "raw": "[v, n]",
    "encodeURIComponent": "[encodeURIComponent(v), encodeURIComponent(n)]",
    "encodeURI": "[encodeURI(v), encodeURI(n)]",
    "escape": "[escape(v), escape(n)]",
    "URLSearchParams": "new URLSearchParams({v, n}).toString()",
    "URL search": "new URL('http://a.test/?q=' + v + '&r=' + n).href",
    "encoded twice": "encodeURIComponent(encodeURIComponent(v) + encodeURIComponent(n))",
    "btoa": "[btoa(v), btoa(n)]",
    "btoa at offset 1": "[btoa('a' + v), btoa('a' + n)]",
    "btoa at offset 2": "[btoa('ab' + v), btoa('ab' + n)]",
    "basic auth header": "'Basic ' + btoa('alice:' + v) + ' ' + btoa('bob:' + n)",
    "base64url": "btoa('u:' + v + n).replace(/[+]/g, '-').replace(/[/]/g, '_')",
    "JSON.stringify": "JSON.stringify({v, n})",
    "JSON twice": "JSON.stringify(JSON.stringify({v, n}))",
    "innerHTML of text": (
        "Object.assign(document.createElement('p'), {textContent: v + n}).innerHTML"
    ),
    "outerHTML of attribute": (
        "(() => { const e = document.createElement('p'); e.setAttribute('title', v);"
        " e.setAttribute('alt', n); return e.outerHTML; })()"
    ),
    "XMLSerializer": (
        "new XMLSerializer().serializeToString("
        "Object.assign(document.createElement('p'), {textContent: v + n}))"
    ),
    "html numeric": "ent((x) => `&#${x};`)",
    "html hex": "ent((x) => `&#X${x.toString(16).toUpperCase()};`)",
}


async def test_page_side_encodings_of_both_values_come_back_scrubbed(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """A matrix: each row has the page encode both values its own way and return them."""
    tools = _tools(engine_env, tmp_path)
    rec = Recorder(tools)
    wanted = {**needles("operator secret", OPERATOR), **needles("typed password", TYPED)}
    wanted.update(FRAGMENTS)
    failures: list[str] = []
    try:
        await _type_both(rec, fixture_site)
        for label, expression in PAGE_ENCODINGS.items():
            script = (
                "(() => { const v = document.getElementById('pw').value;"
                " const n = document.getElementById('note').value;"
                " const ent = (f) => [...v + n].map("
                "(c) => (/[\\w.-]/.test(c) ? c : f(c.charCodeAt(0)))).join('');"
                f" return {expression}; }})()"
            )
            for mode in ((), ("--json",), ("--json", "false")):
                result = await rec.ok(*mode, "eval", "--stdin", stdin=script)
                blob = {"text": result.text.encode(), "details": repr(result.details).encode()}
                failures += [f"{label} {mode}: {leak}" for leak in find_leaks(blob, wanted)]
                if mode:  # native text cannot show where a may-navigate eval landed
                    await rec.ok("get", "url")
    finally:
        await tools.aclose()
    assert not failures, "encodings came back unscrubbed:\n" + "\n".join(failures)


LEGACY_OPERATOR = 'Pä<"&+ wX9z'
"""The issue's operator secret with a Latin-1 letter."""
LEGACY_TYPED = "Kennwört<ж>€ 7qZ"
"""A typed password with a letter windows-1252 lacks (`ж`, sent as `&#1078;`) and one only
windows-1252 has (`€`, byte 0x80)."""


async def test_a_legacy_charset_page_submits_nothing_that_comes_back_unscrubbed(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """A GET form on a windows-1252 page (no charset header) sends both values as that
    charset's percent bytes (`P%E4%3C...`); the click result, `get url`, `tab list`, the
    request list, the page's own echo, `escape()` of both, the HAR and the journal show
    neither in any spelling."""
    tools = _tools(engine_env, tmp_path, f"LEGACY_PW='{LEGACY_OPERATOR}'")
    workspace = tmp_path / "ws"
    rec = Recorder(tools)
    try:
        await rec.ok("network", "har", "start")
        await rec.ok("open", fixture_site.url("legacy-charset"))
        await rec.ok("fill", "#note", "{{secret:LEGACY_PW}}")
        await rec.ok("fill", "#pw", LEGACY_TYPED)
        await rec.ok("click", "#go")
        await rec.ok("get", "url")
        legacy = await rec.ok("eval", "location.search.includes('note=P%E4%3C%22%26%2B+wX9z')")
        assert legacy.details["data"]["result"] is True, "the page did not submit in cp1252"
        await rec.ok("--json", "false", "get", "url")
        await rec.ok("tab", "list")
        await rec.ok("network", "requests")
        await rec.ok("get", "text", "#echo")
        await rec.ok("snapshot", "-u")
        await rec.ok(
            "eval",
            "[escape(document.getElementById('note').value),"
            " escape(document.getElementById('pw').value), location.href]",
        )
        await rec.ok("network", "har", "stop", "exports/legacy.har")
    finally:
        await tools.aclose()
    blobs, _named = result_blobs(rec)
    blobs.update(file_blobs(tmp_path / "state", "state"))
    blobs.update(file_blobs(workspace, "workspace"))
    assert "workspace:exports/legacy.har" in blobs
    wanted = {
        **needles("operator secret", LEGACY_OPERATOR),
        **needles("typed password", LEGACY_TYPED),
        "operator fragment": "wX9z",
        "typed fragment": "7qZ",
    }
    leaks = find_leaks(blobs, wanted)
    assert not leaks, "secrets leaked:\n" + "\n".join(leaks)
