"""A loopback stand-in for the Exa and Brave search APIs, recording every request.

It answers in each provider's documented response shape; `make_runtime` points a `Runtime`'s
web-search config at it. Used by `tests/fake/test_web_search_http.py`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.web_search.spec import SPEC as WEB_SEARCH

EXA_KEY = "sk-exa-7f3Q9xK2mP8vL4nR6tY1wZ5"
BRAVE_KEY = "BSAq8Zr2Lm5Nx7Vc1Kp4Tj9Wd3Hf6Gy0"


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    started: float
    ended: float = 0.0


def exa_body(urls: list[str], request_id: str = "req-exa-1") -> dict[str, Any]:
    """Exa `/search` response shape."""
    return {
        "requestId": request_id,
        "resolvedSearchType": "neural",
        "results": [
            {
                "id": url,
                "title": f"Exa title {i}",
                "url": url,
                "publishedDate": "2026-06-02T00:00:00.000Z",
                "author": "Author",
                "highlights": [f"Highlight {i}"],
                "highlightScores": [0.5],
            }
            for i, url in enumerate(urls, start=1)
        ],
        "costDollars": {"total": 0.005},
    }


def brave_body(urls: list[str], query: str = "search text") -> dict[str, Any]:
    """Brave `/web/search` response shape."""
    return {
        "type": "search",
        "query": {"original": query, "more_results_available": False},
        "web": {
            "type": "search",
            "results": [
                {
                    "title": f"Brave title {i}",
                    "url": url,
                    "description": f"Description <strong>{i}</strong>",
                    "page_age": "2026-06-01T10:00:00",
                    "age": "1 day ago",
                    "language": "en",
                    "profile": {"name": f"Site {i}"},
                    "meta_url": {"hostname": urlsplit(url).hostname},
                }
                for i, url in enumerate(urls, start=1)
            ],
        },
    }


class FakeProviders:
    """A threaded HTTP server on 127.0.0.1:0 with a reply function per provider."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.exa: Callable[[Recorded], Reply] = lambda r: Reply(body=exa_body(_urls(5)))
        self.brave: Callable[[Recorded], Reply] = lambda r: Reply(body=brave_body(_urls(5)))
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                record = Recorded(
                    method=self.command,
                    path=parts.path,
                    query=dict(parse_qsl(parts.query, keep_blank_values=True)),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=json.loads(raw) if raw else None,
                    started=time.monotonic(),
                )
                with fake._lock:
                    fake.requests.append(record)
                route = fake.exa if parts.path.startswith("/exa/") else fake.brave
                reply = route(record)
                time.sleep(reply.delay_s)
                record.ended = time.monotonic()  # before the client can see the response
                payload = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = _serve
            do_POST = _serve

        return Handler


def _urls(n: int) -> list[str]:
    return [f"https://site{i}.example/page" for i in range(1, n + 1)]


def make_runtime(
    tmp_path: Path,
    fake: FakeProviders,
    *,
    exa: str | None = EXA_KEY,
    brave: str | None = BRAVE_KEY,
    extra_toml: str = "",
    env: dict[str, str] | None = None,
) -> Runtime:
    """A runtime whose global config points both providers at the fake server."""
    home = tmp_path / "home"
    config_dir = home / ".config" / "agent-browser-tools"
    config_dir.mkdir(parents=True, exist_ok=True)
    lines = [
        "[web_search]",
        f'exa_base_url = "{fake.base}/exa"',
        f'brave_base_url = "{fake.base}/brave/res/v1"',
    ]
    if exa is not None:
        lines.append(f"exa_api_key = {json.dumps(exa)}")
    if brave is not None:
        lines.append(f"brave_api_key = {json.dumps(brave)}")
    (config_dir / "config.toml").write_text("\n".join(lines) + "\n" + extra_toml)
    environ = {"HOME": str(home), "PATH": "/usr/bin:/bin", **(env or {})}
    settings = Settings.load(environ, cwd=tmp_path, trust_project=False)
    return Runtime(settings, cwd=tmp_path)


async def search(rt: Runtime, **params: Any) -> ToolResult:
    return await WEB_SEARCH.call(rt, {"query": "search text", **params})


def assert_no_key(result: ToolResult, *keys: str) -> None:
    blob = result.text + json.dumps(result.details)
    for key in keys:
        assert key not in blob
