"""URLs on this machine's ports, read the way a browser reads the host (pure)."""

from __future__ import annotations

import pytest

from agent_browser_tools.planning.local_origins import canonical_host, is_local_host, local_port


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
        # Spellings a browser canonicalizes to 127.0.0.1 (WHATWG host parsing).
        ("http://2130706433:9222/json/list", 9222),
        ("http://0x7f000001:9222/", 9222),
        ("http://0x7f.1:9222/", 9222),
        ("http://0177.0.0.1:9222/", 9222),
        ("http://127.1:9222/", 9222),
        ("http://127.0.0.%31:9222/", 9222),
        ("http://127.0.0.1.:9222/", 9222),
        ("http://localhost.:9222/", 9222),
        ("http://foo.localhost.:9222/", 9222),
        ("http://１２７．０．０．１:9222/", 9222),
        ("http://127。0。0。1:9222/", 9222),
        ("http://[::ffff:127.0.0.1]:9222/", 9222),
        ("http://[::ffff:7f00:1]:9222/", 9222),
        ("http://[::]:9222/", 9222),
        ("http://127.0.\t0.1:9222/", 9222),
        # A backslash ends the authority of an http(s) URL: the host is 127.0.0.1.
        ("http://127.0.0.1:9222\\@example.com/", 9222),
        ("http://user:pw@127.0.0.1:9222/", 9222),
        ("view-source:http://127.0.0.1:9222/json/list", 9222),
        ("VIEW-SOURCE:view-source:http://localhost:9222/", 9222),
    ],
)
def test_local_urls_name_their_port(url: str, port: int) -> None:
    assert local_port(url) == port


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com:9222/",
        "http://127.0.0.1.example.com:9222/",
        "http://localhost.example.com:9222/",
        "http://10.1.2.3:9222/",
        "http://[2001:db8::1]:9222/",
        "file:///etc/passwd",
        "data:text/html,<p>x</p>",
        "about:blank",
        "http://127.0.0.1:99999/",
        "http://[::1/",
        "ftp://127.0.0.1:21/",
        "http://256.0.0.1:9222/",
        "127.0.0.1:9222/json/list",  # no scheme: the engine opens it as https
    ],
)
def test_other_urls_are_not_local_ports(url: str) -> None:
    assert local_port(url) is None


def test_hosts_are_canonicalized_like_a_browser() -> None:
    assert canonical_host("2130706433") == "127.0.0.1"
    assert canonical_host("0x7F.0.0.1") == "127.0.0.1"
    assert canonical_host("EXAMPLE.com.") == "example.com"
    assert canonical_host("4294967296") is None  # out of range: the browser refuses it
    assert canonical_host("1.2.3.4.5") is None
    assert is_local_host("[::1]") and is_local_host("::7f00:1")
    assert not is_local_host("") and not is_local_host("[::2]")
