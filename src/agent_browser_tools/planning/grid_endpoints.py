"""The operator's Selenium Grid as a browser endpoint pages and the model must stay off (pure).

A grid's router answers anyone who reaches it: its `/status` lists every session with the
WebSocket URL (`se:cdp`) that drives its browser, and Selenium checks no Origin on those
sockets. So a page on the grid's origin, or a model that reads it, could drive another
conversation's browser. Like a local browser's DevTools port (`local_origins`), every grid
origin is refused as a URL operand, guarded against in page scripts and withheld as content:
the grid URL's host and port, and those of every `se:cdp` endpoint it handed out. A loopback
grid is matched in every spelling a browser accepts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from agent_browser_tools.planning.local_origins import (
    DEFAULT_PORTS,
    canonical_host,
    is_local_host,
    local_port,
)


@dataclass(frozen=True)
class GridEndpoints:
    hosts: frozenset[str] = frozenset()
    """`host:port` of each non-loopback grid origin (canonical host, explicit port)."""
    loopback_ports: frozenset[int] = frozenset()
    """Ports of grid origins on this machine (any loopback spelling reaches them)."""

    @classmethod
    def of(cls, urls: Iterable[str]) -> GridEndpoints:
        hosts: set[str] = set()
        ports: set[int] = set()
        for url in urls:
            port = local_port(url)
            if port is not None:
                ports.add(port)
            elif (endpoint := host_port(url)) is not None:
                hosts.add(endpoint)
        return cls(hosts=frozenset(hosts), loopback_ports=frozenset(ports))

    def __bool__(self) -> bool:
        return bool(self.hosts or self.loopback_ports)

    def matches(self, url: str) -> bool:
        """Whether a browser loading `url` would reach a grid origin."""
        port = local_port(url)
        if port is not None:
            return port in self.loopback_ports
        endpoint = host_port(url)
        return endpoint is not None and endpoint in self.hosts


def host_port(url: str) -> str | None:
    """`host:port` of an http(s)/ws(s) URL as a browser connects to it, else None."""
    text = url.strip().replace("\\", "/")
    scheme = text.partition(":")[0].lower()
    if scheme not in DEFAULT_PORTS:
        return None
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return None
    host = canonical_host(parts.hostname or "")
    if not host or is_local_host(host):
        return None
    return f"{host}:{DEFAULT_PORTS[scheme] if port is None else port}"
