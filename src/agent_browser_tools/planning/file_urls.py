"""Which URLs make the browser read a local file, and which file (pure).

Chromium reads a local file for a `file:` URL however it is spelled: any letter case
(`FILE:`), with or without slashes (`file:/x`, `file:x`, `file:////x`), `localhost` as host,
backslashes for slashes, percent-encoded dots (`%2e%2e` is `..`), surrounding spaces and
control characters (trimmed) and tabs or newlines inside (removed), and wrapped in
`view-source:` or `filesystem:`. The engine passes `file:` URLs through (`open`), or any
URL containing `://` (`record start`), so each of those spellings reaches Chromium. A URL
without a scheme is not a file read: the engine makes it `https://` (`open /etc/passwd` is
`https:///etc/passwd`, a failed name lookup).

Spellings whose file we cannot pin down are refused instead of guessed: another host
(`file://server/x`), encoded separators or NUL (`%2f`, `%5c`, `%00`), and `javascript:` URLs
(they run in the page, which can navigate a `file:` page to any other local file).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_TRIM = "".join(chr(code) for code in range(0x21))
_INSIDE = str.maketrans("", "", "\t\n\r")
_ENCODED_SEPARATOR = re.compile(r"%(2f|5c|00)", re.IGNORECASE)
WRAPPING_SCHEMES = frozenset({"view-source", "filesystem"})
LOCAL_HOSTS = frozenset({"", "localhost"})


class UnpinnedFileUrl(ValueError):
    """A URL that may read a local file we cannot name; the message says why."""


def local_file_path(url: str) -> str | None:
    """The absolute local path `url` makes the browser read, or None for a URL that reads
    no local file. Raises `UnpinnedFileUrl` for a spelling whose file cannot be pinned."""
    text = url.strip(_TRIM).translate(_INSIDE)
    while True:
        match = _SCHEME.match(text)
        if match is None:
            return None
        scheme = match.group(1).lower()
        rest = text[match.end() :]
        if scheme in WRAPPING_SCHEMES:
            text = rest.strip(_TRIM)
            continue
        if scheme == "javascript":
            raise UnpinnedFileUrl(
                "a javascript: URL runs in the page, and a local page can open any other local file"
            )
        if scheme != "file":
            return None
        return _file_path(rest)


def _file_path(rest: str) -> str:
    rest = rest.replace("\\", "/")
    rest = rest.split("#", 1)[0].split("?", 1)[0]
    if rest.startswith("//"):
        authority, _slash, tail = rest[2:].partition("/")
        host = unquote(authority).lower()
        if host not in LOCAL_HOSTS:
            raise UnpinnedFileUrl(
                f"it names the host {authority!r}; only local files (file:///path) are allowed"
            )
        path = "/" + tail
    else:
        path = rest if rest.startswith("/") else "/" + rest
    if _ENCODED_SEPARATOR.search(path):
        raise UnpinnedFileUrl("it percent-encodes a path separator or a NUL byte")
    return unquote(path)


@dataclass(frozen=True)
class UrlAsPath:
    """A URL written where a local file path belongs."""

    scheme: str
    local_path: str | None
    """The file a `file:` URL names (None for another scheme, or one we cannot pin)."""


def url_as_path(value: str) -> UrlAsPath | None:
    """The URL in a value given as a file path (`file:` in any spelling, `view-source:` and
    the like, or any `scheme://...`), or None for a path.

    Why: the engine takes such a value as a relative path (`upload @e1 file:///x` uploads
    `./file:/x`, which does not exist) and answers success, so the model never learns."""
    text = value.strip(_TRIM).translate(_INSIDE)
    match = _SCHEME.match(text)
    if match is None:
        return None
    scheme = match.group(1).lower()
    if scheme == "file" or scheme in WRAPPING_SCHEMES:
        try:
            return UrlAsPath(scheme, local_file_path(text))
        except UnpinnedFileUrl:
            return UrlAsPath(scheme, None)
    if len(scheme) > 1 and text[match.end() :].startswith("//"):  # `C:/x` is a drive
        return UrlAsPath(scheme, None)
    return None


def root_uri_path(uri: str) -> str | None:
    """The directory a `file://` root URI names (MCP client roots), or None for another scheme
    or a spelling that is not a plain local path."""
    if not uri.lower().startswith("file:"):
        return None
    try:
        return local_file_path(uri)
    except UnpinnedFileUrl:
        return None
