"""URLs on this machine's ports, as the endpoint guard reads them (pure part)."""

from __future__ import annotations

import pytest

from agent_browser_tools.tools.agent_browser.endpoint_guard import loopback_port


@pytest.mark.parametrize(
    ("url", "port"),
    [
        ("http://127.0.0.1:41683/json/list", 41683),
        ("HTTP://LOCALHOST:9222/json", 9222),
        ("http://127.1.2.3:9222/", 9222),
        ("ws://[::1]:9222/devtools/browser/x", 9222),
        ("http://0.0.0.0:9222", 9222),
        ("http://app.localhost:3000/", 3000),
        ("http://localhost/", 80),
        ("https://localhost/", 443),
        ("  http://127.0.0.1:5/ ", 5),
    ],
)
def test_local_urls_name_their_port(url: str, port: int) -> None:
    assert loopback_port(url) == port


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com:9222/",
        "file:///etc/passwd",
        "data:text/html,<p>x</p>",
        "about:blank",
        "http://127.0.0.1:99999/",
        "http://[::1/",
        "ftp://127.0.0.1:21/",
    ],
)
def test_other_urls_are_not_local_ports(url: str) -> None:
    assert loopback_port(url) is None
