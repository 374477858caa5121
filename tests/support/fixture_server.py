"""A local HTTP server for the fixture site that the real-engine tests drive.

It serves ``tests/fixture_site/`` on 127.0.0.1 at an ephemeral port, plus a few dynamic routes
that static files cannot express (a delayed page, a Set-Cookie response, a page in windows-1252
with no charset header, JSON APIs that succeed or fail, a guaranteed 404, a form POST that
answers 303 back to the page, an open redirect `/redirect?to=`, a page framing any URL
`/frame?src=`, and the delayed `/slow/<page>` family: any fixture page, or a POST that answers
303 to one, each after `?ms=` milliseconds). It also owns the planted fake secrets: the pages and
responses that carry them are rendered from :data:`PLANTED_SECRETS`, so redaction tests grep for
exactly the values the browser saw.
"""

from __future__ import annotations

import html
import json
import threading
import time
from collections.abc import Callable
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

FIXTURE_SITE_DIR = Path(__file__).resolve().parent.parent / "fixture_site"
#: The built fixture apps by URL prefix: the React app (`tests/fixtures/react_app`, ``/react/``)
#: and the hard widgets (`tests/fixtures/widgets_app`, ``/widgets/``). Each serves its
#: ``index.html`` and what ``build.sh`` wrote to ``dist/`` (absent until it ran), nothing else.
FIXTURE_APPS = {
    "/react/": Path(__file__).resolve().parent.parent / "fixtures" / "react_app",
    "/widgets/": Path(__file__).resolve().parent.parent / "fixtures" / "widgets_app",
}
REACT_APP_DIR = FIXTURE_APPS["/react/"]
REACT_BUNDLE = "/react/dist/app.js"
WIDGETS_APP_DIR = FIXTURE_APPS["/widgets/"]
WIDGETS_BUNDLE = "/widgets/dist/widgets.js"
_APP_TYPES = {".js": "text/javascript", ".css": "text/css"}

# --- Planted secrets -------------------------------------------------------------------
# Obviously fake, but shaped like real credentials so redaction rules that look at shape
# (long opaque tokens, JWTs, key-like strings) have something realistic to catch.

#: ``session_id`` cookie written by storage.html via document.cookie.
SESSION_ID_COOKIE = "fake-sess-3f9a1c7e5b2d4a6f8e0c1b3d5f7a9c2e"
#: ``auth_token`` cookie written by storage.html via document.cookie.
AUTH_TOKEN_COOKIE = "FAKEauthTok_9c2e7b41d3a8f6e05b1c4d7a2f8e3b6c"
#: ``jwt`` localStorage key written by storage.html (a well-formed but unsigned-fake JWT).
JWT_LOCAL_STORAGE = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiJmaXh0dXJlLXVzZXItMDAwMSIsIm5hbWUiOiJGYWtlIEZpeHR1cmUgVXNlciIsImlhdCI6MTcwMD"
    "AwMDAwMCwiZXhwIjoxNzAwMDAzNjAwLCJub3RlIjoiZmFrZS10b2tlbi1mb3ItdGVzdHMifQ"
    ".RkFLRS1zaWduYXR1cmUtbm90LWEtcmVhbC1rZXktZml4dHVyZS1vbmx5IQ"
)
#: ``api_key`` localStorage key written by storage.html.
API_KEY_LOCAL_STORAGE = "abt_fake_apikey_7Hq2Lx9Vw4Rz8Nc3Kp6Ty1Bm5Dg0Jf"
#: Value of the HttpOnly ``server_session`` cookie that ``/set-cookie`` sets.
SET_COOKIE_SECRET = "FAKE-srvcookie-5e8d2a7c9b1f4e6a0d3c8b2f"
SET_COOKIE_NAME = "server_session"

#: Every planted secret by placeholder name; ``{{NAME}}`` in a served .html is replaced.
PLANTED_SECRETS: dict[str, str] = {
    "SESSION_ID_COOKIE": SESSION_ID_COOKIE,
    "AUTH_TOKEN_COOKIE": AUTH_TOKEN_COOKIE,
    "JWT_LOCAL_STORAGE": JWT_LOCAL_STORAGE,
    "API_KEY_LOCAL_STORAGE": API_KEY_LOCAL_STORAGE,
    "SET_COOKIE_SECRET": SET_COOKIE_SECRET,
}

#: Body of ``/files/report.txt`` so download tests can compare bytes.
REPORT_TEXT = "Quarterly fixture report\nrevenue,42\ncosts,17\n"

#: Default and maximum delay of ``/slow.html`` in milliseconds.
SLOW_DEFAULT_MS = 3000
SLOW_MAX_MS = 60_000


#: Prefix of the delayed route family (`/slow/<page>?ms=N`, GET and POST).
SLOW_PREFIX = "/slow/"


def _sleep_ms(query: dict[str, list[str]]) -> None:
    try:
        delay_ms = int(query.get("ms", ["0"])[0])
    except ValueError:
        delay_ms = 0
    time.sleep(max(0, min(delay_ms, SLOW_MAX_MS)) / 1000)


def render_placeholders(text: str) -> str:
    """Fill ``{{NAME}}`` placeholders with planted secrets (one source of truth)."""
    for name, value in PLANTED_SECRETS.items():
        text = text.replace("{{" + name + "}}", value)
    return text


class _FixtureHandler(SimpleHTTPRequestHandler):
    """Static files from the fixture site plus the dynamic test routes."""

    # HTTP/1.0 closes each connection, so no keep-alive socket outlives a test.
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: request logs would only clutter pytest output."""

    def end_headers(self) -> None:
        # Never let the browser cache fixture pages: tests reload and compare fresh state.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        route = self._ROUTES.get(parts.path)
        if parts.path.startswith(SLOW_PREFIX):
            self._slow_page(parts.path, parse_qs(parts.query))
        elif route is not None:
            route(self, parse_qs(parts.query))
        elif any(parts.path.startswith(prefix) for prefix in FIXTURE_APPS):
            self._fixture_app(parts.path)
        elif parts.path.endswith(".html") or parts.path in ("", "/"):
            self._send_html_file(parts.path)
        else:
            super().do_GET()

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        route = self._POST_ROUTES.get(parts.path)
        if parts.path.startswith(SLOW_PREFIX):
            self._slow_redirect(parts.path, parse_qs(parts.query))
            return
        if route is None:
            # What the stdlib handler answers for a method it does not implement.
            self.send_error(HTTPStatus.NOT_IMPLEMENTED, f"Unsupported method ({self.command!r})")
            return
        length = int(self.headers.get("Content-Length") or 0)
        route(self, parse_qs(self.rfile.read(length).decode(errors="replace")))

    # --- dynamic routes ----------------------------------------------------------------

    def _slow(self, query: dict[str, list[str]]) -> None:
        try:
            delay_ms = int(query.get("ms", [str(SLOW_DEFAULT_MS)])[0])
        except ValueError:
            delay_ms = SLOW_DEFAULT_MS
        time.sleep(max(0, min(delay_ms, SLOW_MAX_MS)) / 1000)
        self._send_html_file("/slow.html")

    def _slow_page(self, path: str, query: dict[str, list[str]]) -> None:
        """`GET /slow/<page>?ms=N`: the fixture page `<page>`, answered after N ms."""
        _sleep_ms(query)
        self._send_html_file("/" + path[len(SLOW_PREFIX) :])

    def _slow_redirect(self, path: str, query: dict[str, list[str]]) -> None:
        """`POST /slow/<page>?ms=N`: after N ms, 303 to `GET /slow/<page>?ms=N` (Post/Redirect/
        Get, so the browser keeps the posting document until the redirect's target answers)."""
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        _sleep_ms(query)
        ms = query.get("ms", ["0"])[0]
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", f"{path}?ms={ms}")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _report(self, _query: dict[str, list[str]]) -> None:
        self._send_body(HTTPStatus.OK, "text/plain; charset=utf-8", REPORT_TEXT.encode())

    def _set_cookie(self, _query: dict[str, list[str]]) -> None:
        body = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<title>Cookie Set</title><link rel="icon" href="data:,"></head>'
            "<body><h1>Cookie Set</h1><p>The server set a session cookie.</p></body></html>"
        )
        cookie = f"{SET_COOKIE_NAME}={SET_COOKIE_SECRET}; Path=/; HttpOnly; SameSite=Lax"
        self._send_body(
            HTTPStatus.OK, "text/html; charset=utf-8", body.encode(), [("Set-Cookie", cookie)]
        )

    def _legacy_charset(self, _query: dict[str, list[str]]) -> None:
        """A page in windows-1252 with no charset header: its forms submit in that charset."""
        text = (FIXTURE_SITE_DIR / "legacy-charset.txt").read_text(encoding="utf-8")
        self._send_body(HTTPStatus.OK, "text/html", text.encode("cp1252"))

    def _api_ok(self, _query: dict[str, list[str]]) -> None:
        self._send_json(HTTPStatus.OK, {"ok": True, "items": [1, 2, 3]})

    def _api_fail(self, _query: dict[str, list[str]]) -> None:
        self._send_json(HTTPStatus.INTERNAL_SERVER_ERROR, {"ok": False, "error": "fixture failure"})

    def _order_missing(self, _query: dict[str, list[str]]) -> None:
        self._send_json(HTTPStatus.NOT_FOUND, {"ok": False, "error": "order not found"})

    def _missing(self, _query: dict[str, list[str]]) -> None:
        self._send_body(HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", b"not found\n")

    def _redirect(self, query: dict[str, list[str]]) -> None:
        """`GET /redirect?to=URL`: 302 to any URL (an open redirect, as many sites have)."""
        self.send_response(HTTPStatus.FOUND)
        self.send_header("Location", query.get("to", ["/"])[0])
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _frame(self, query: dict[str, list[str]]) -> None:
        """`GET /frame?src=URL`: a page that frames any URL (`<iframe id="f">`)."""
        src = html.escape(query.get("src", ["about:blank"])[0], quote=True)
        body = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Framer</title>'
            f'</head><body><h1>Framer</h1><iframe id="f" src="{src}"></iframe></body></html>'
        )
        self._send_body(HTTPStatus.OK, "text/html; charset=utf-8", body.encode())

    def _fixture_app(self, path: str) -> None:
        """A built app's page and its `dist/` bundle files; nothing else from its folder."""
        prefix = next(p for p in FIXTURE_APPS if path.startswith(p))
        folder, rest = FIXTURE_APPS[prefix], path[len(prefix) :]
        name = rest.removeprefix("dist/")
        built = folder / "dist" / name
        if rest in ("", "index.html"):
            body = (folder / "index.html").read_bytes()
            self._send_body(HTTPStatus.OK, "text/html; charset=utf-8", body)
        elif rest.startswith("dist/") and "/" not in name and built.suffix in _APP_TYPES:
            if not built.is_file():
                self._missing({})
                return
            kind = _APP_TYPES[built.suffix] + "; charset=utf-8"
            self._send_body(HTTPStatus.OK, kind, built.read_bytes())
        else:
            self._missing({})

    def _walk_submit(self, _form: dict[str, list[str]]) -> None:
        """Post/Redirect/Get back to the walk page that posted: a new document, same URL."""
        referer = self.headers.get("Referer") or ""
        origin = f"http://{self.headers.get('Host', '')}/"
        location = referer if referer.startswith(origin) else "/walk.html"
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    _ROUTES: ClassVar[dict[str, Callable[[_FixtureHandler, dict[str, list[str]]], None]]] = {
        "/slow.html": _slow,
        "/files/report.txt": _report,
        "/set-cookie": _set_cookie,
        "/legacy-charset": _legacy_charset,
        "/api/ok": _api_ok,
        "/api/fail": _api_fail,
        "/api/v1/orders/missing": _order_missing,
        "/missing.png": _missing,
        "/redirect": _redirect,
        "/frame": _frame,
    }
    _POST_ROUTES: ClassVar[dict[str, Callable[[_FixtureHandler, dict[str, list[str]]], None]]] = {
        "/walk-submit": _walk_submit,
    }

    # --- helpers -------------------------------------------------------------------------

    def _send_html_file(self, url_path: str) -> None:
        name = url_path.lstrip("/") or "index.html"
        target = (FIXTURE_SITE_DIR / name).resolve()
        if FIXTURE_SITE_DIR not in target.parents or not target.is_file():
            self._missing({})
            return
        body = render_placeholders(target.read_text(encoding="utf-8")).encode()
        self._send_body(HTTPStatus.OK, "text/html; charset=utf-8", body)

    def _send_json(self, status: HTTPStatus, payload: dict[str, Any]) -> None:
        self._send_body(status, "application/json", json.dumps(payload).encode())

    def _send_body(
        self,
        status: HTTPStatus,
        content_type: str,
        body: bytes,
        extra_headers: list[tuple[str, str]] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in extra_headers or []:
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class _QuietServer(ThreadingHTTPServer):
    """Threaded server whose worker threads never block interpreter exit."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Browsers drop connections (navigating away from /slow.html, aborted downloads);
        # that is expected noise, not a test failure.
        pass


class FixtureServer:
    """A running fixture server; use :func:`start_fixture_server` to create one."""

    def __init__(self) -> None:
        handler = partial(_FixtureHandler, directory=str(FIXTURE_SITE_DIR))
        self._httpd = _QuietServer(("127.0.0.1", 0), handler)
        self.host: str = "127.0.0.1"
        self.port: int = self._httpd.server_port
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="fixture-server", daemon=True
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        """Origin of the server, e.g. ``http://127.0.0.1:40123`` (no trailing slash)."""
        return f"http://{self.host}:{self.port}"

    def url(self, path: str = "/") -> str:
        """Absolute URL for ``path`` (``"form.html"`` and ``"/form.html"`` both work)."""
        return f"{self.base_url}/{path.lstrip('/')}"

    def close(self) -> None:
        """Stop serving and release the port; safe to call twice."""
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join(timeout=10)
        self._httpd.server_close()

    def __enter__(self) -> FixtureServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def start_fixture_server() -> FixtureServer:
    """Start a fixture server on 127.0.0.1 at an OS-chosen port and return it."""
    return FixtureServer()
