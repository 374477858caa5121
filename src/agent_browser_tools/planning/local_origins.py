"""Which URLs name a port on this machine, read the way a browser reads them (pure).

Why: Chromium's DevTools server answers any request whose Host is an IP literal or a
`localhost` name, and accepts a DevTools WebSocket from a page on its own origin, so a page on
`http://127.0.0.1:<a browser's port>/` can drive browsers. A browser canonicalizes the host
before it connects: `http://2130706433:9222`, `http://0x7f.1:9222`, `http://127.0.0.%31:9222`,
`http://[::ffff:127.0.0.1]:9222`, `http://localhost.:9222` and `HTTP://LOCALHOST:9222` all
reach 127.0.0.1:9222, and `http://127.0.0.1:9222\\@example.com/` is host 127.0.0.1 (a
backslash ends the authority in http(s) URLs). Checks that compare the raw text miss them.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from urllib.parse import unquote, urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
"""Schemes whose URLs have a host and port (WHATWG special schemes that reach a server)."""
_IGNORED = re.compile(r"[\t\n\r]")
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_VIEW_SOURCE = "view-source:"


def local_port(url: str) -> int | None:
    """The port of an http(s)/ws(s) URL whose host is this machine (a `localhost` name or a
    loopback/unspecified IP in any spelling), else None. `view-source:` shows the same page."""
    text = _IGNORED.sub("", url).strip(" \x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c")
    while text.lower().startswith(_VIEW_SOURCE):
        text = text[len(_VIEW_SOURCE) :]
    scheme, sep, rest = text.partition(":")
    scheme = scheme.lower()
    if not sep or scheme not in DEFAULT_PORTS:
        return None
    rest = rest.replace("\\", "/")
    try:
        parts = urlsplit(f"{scheme}:{rest}")
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return None
    if not is_local_host(host):
        return None
    return DEFAULT_PORTS[scheme] if port is None else port


def is_local_host(host: str) -> bool:
    """Whether a URL host (brackets optional) is this machine as a browser resolves it."""
    name = canonical_host(host)
    if name is None:
        return False
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return _local_address(address)


def canonical_host(host: str) -> str | None:
    """The host as a browser would connect to it: percent-decoded, lower-cased, full-width
    forms folded, trailing dots dropped and an IPv4 number in any WHATWG spelling (decimal,
    octal, hex, fewer than four parts) written as a dotted quad; None when a browser would
    refuse the host (a number out of range)."""
    text = unicodedata.normalize("NFKC", unquote(host)).translate(_DOTS).lower()
    if text.startswith("[") or ":" in text:
        return text  # an IPv6 literal
    text = text.rstrip(".")
    labels = text.split(".")
    if not labels or not _is_number(labels[-1]):
        return text
    numbers = [_number(label) for label in labels]
    if len(numbers) > 4 or any(n is None for n in numbers):
        return None
    values = [n for n in numbers if n is not None]
    if any(v > 255 for v in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return None
    total = sum(v * 256 ** (3 - i) for i, v in enumerate(values[:-1])) + values[-1]
    return str(ipaddress.IPv4Address(total))


def _is_number(label: str) -> bool:
    """WHATWG "ends in a number": all decimal digits, or a `0x` hex number."""
    if label.isdigit() and label.isascii():
        return True
    return label[:2] == "0x" and all(c in "0123456789abcdef" for c in label[2:])


def _number(label: str) -> int | None:
    if label[:2] == "0x":
        return (
            int(label[2:] or "0", 16) if all(c in "0123456789abcdef" for c in label[2:]) else None
        )
    if not (label.isdigit() and label.isascii()):
        return None
    if len(label) > 1 and label.startswith("0"):
        return int(label, 8) if all(c in "01234567" for c in label) else None
    return int(label)


def _local_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        if address.is_loopback or address.is_unspecified:
            return True
        mapped = address.ipv4_mapped
        if mapped is None and int(address) >> 32 == 0:
            mapped = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)  # ::127.0.0.1
        return mapped is not None and _local_address(mapped)
    return address.is_loopback or address.is_unspecified
