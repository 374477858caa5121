"""Which URL spellings make Chromium read a local file, and which file (engine 0.39.4 and
Chromium were asked: `FILE:/x`, `file:x`, `file://localhost/x` and `%2e%2e` all opened the
file; `/etc/passwd` without a scheme became `https://` and failed)."""

from __future__ import annotations

import pytest

from agent_browser_tools.planning.file_urls import (
    UnpinnedFileUrl,
    local_file_path,
    root_uri_path,
    url_as_path,
)


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("file:///etc/passwd", "/etc/passwd"),
        ("FILE:///etc/passwd", "/etc/passwd"),
        ("File:/etc/passwd", "/etc/passwd"),
        ("file:etc/passwd", "/etc/passwd"),
        ("file:////etc/passwd", "//etc/passwd"),
        ("file://localhost/etc/passwd", "/etc/passwd"),
        ("file://LOCALHOST/etc/passwd", "/etc/passwd"),
        ("file:///ws/%2e%2e/%2E%2E/etc/passwd", "/ws/../../etc/passwd"),
        ("file:///etc/pass%77d", "/etc/passwd"),
        ("file:\\\\\\etc\\passwd", "/etc/passwd"),
        ("  file:///etc/passwd  ", "/etc/passwd"),
        ("\x01\x1ffile:///etc/passwd", "/etc/passwd"),
        ("fi\tle:///etc/pa\nss\rwd", "/etc/passwd"),
        ("view-source:file:///etc/passwd", "/etc/passwd"),
        ("VIEW-SOURCE: view-source:file:///etc/passwd", "/etc/passwd"),
        ("filesystem:file:///temporary/x", "/temporary/x"),
        ("file:///etc/passwd?x=1#frag", "/etc/passwd"),
        ("file:///srv/a%20b.html", "/srv/a b.html"),
    ],
)
def test_every_file_spelling_names_its_file(url: str, path: str) -> None:
    assert local_file_path(url) == path


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/file:///etc/passwd",
        "http://x.test/?u=file:///etc/passwd",
        "about:blank",
        "data:text/html,<a href='file:///etc/passwd'>x</a>",
        "/etc/passwd",
        "./page.html",
        "example.com",
        "view-source:https://example.com",
        "chrome://version",
        "fil%65:///etc/passwd",
    ],
)
def test_urls_that_read_no_local_file(url: str) -> None:
    assert local_file_path(url) is None


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("file://server/share/x", "host"),
        ("file://etc/passwd", "host"),
        ("file://127.0.0.1/etc/passwd", "host"),
        ("file://user@localhost/etc/passwd", "host"),
        ("file://localhost:80/etc/passwd", "host"),
        ("file:///ws%2f..%2f..%2fetc/passwd", "separator"),
        ("file:///ws%5C..%5Cetc", "separator"),
        ("file:///etc/passwd%00.html", "NUL"),
        ("javascript:location='file:///etc/passwd'", "javascript"),
        ("view-source:javascript:alert(1)", "javascript"),
    ],
)
def test_spellings_whose_file_cannot_be_pinned_are_refused(url: str, why: str) -> None:
    with pytest.raises(UnpinnedFileUrl, match=why):
        local_file_path(url)


def test_client_root_uris() -> None:
    assert root_uri_path("file:///home/u/project") == "/home/u/project"
    assert root_uri_path("file:///home/u/my%20project/") == "/home/u/my project/"
    assert root_uri_path("https://example.com/repo") is None
    assert root_uri_path("file://server/share") is None


@pytest.mark.parametrize(
    ("value", "scheme", "path"),
    [
        ("file:///x/y.txt", "file", "/x/y.txt"),
        ("FILE:/x", "file", "/x"),
        ("file:x", "file", "/x"),
        (" file://localhost/a%20b ", "file", "/a b"),
        ("view-source:file:///x", "view-source", "/x"),
        ("file://server/x", "file", None),
        ("http://a.test/x", "http", None),
        ("s3://bucket/key", "s3", None),
    ],
)
def test_a_url_given_as_a_path_is_recognised(value: str, scheme: str, path: str | None) -> None:
    found = url_as_path(value)
    assert found is not None and (found.scheme, found.local_path) == (scheme, path)


@pytest.mark.parametrize("value", ["./a.txt", "/abs/a.txt", "a.txt", "C:/x", "a:b", "data:x"])
def test_paths_that_only_look_like_urls_are_paths(value: str) -> None:
    assert url_as_path(value) is None
