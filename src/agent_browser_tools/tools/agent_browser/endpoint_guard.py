"""Direct tool, before dispatch: keep browsers off the DevTools and stream ports of browsers.

Chromium accepts a DevTools WebSocket from a page whose origin is its own DevTools server, so
script on `http://127.0.0.1:<a browser's debug port>/` can drive that browser, whichever
conversation owns it (`engine.browser_ports`). Two checks keep a model from getting there:

- a URL operand (`open`, `tab new`, `diff url`, ... and batch rows) naming a loopback port
  that a browser or engine daemon listens on is refused;
- before caller-written page script runs (`eval`, `wait --fn`), one `get url` checks where
  the page is now, because a page can redirect itself there after the model last looked.

What this does not stop is a page that lands on such a port by itself and runs script the
model did not write (a `network route --body` page, an operator init script): see the README's
security model.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

from agent_browser_tools.engine.browser_ports import browser_ports
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.policy import PolicyBlocked, calls_of
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import helper_data

LOOPBACK_HOSTS = frozenset({"localhost", "0.0.0.0", "::1", "::", "[::1]"})
RULE = "browser-endpoint"


def loopback_port(url: str) -> int | None:
    """The port of an http(s)/ws(s) URL on this machine, else None (pure)."""
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https", "ws", "wss"):
        return None
    local = host in LOOPBACK_HOSTS or host.startswith("127.") or host.endswith(".localhost")
    if not local:
        return None
    if port is None:
        return 443 if parts.scheme.lower() in ("https", "wss") else 80
    return port


def _url_operands(plan: ExecutionPlan) -> Iterator[tuple[str, str]]:
    for where, _globals, match in calls_of(plan.checked):
        if match is None:
            continue
        for index in match.spec.files.urls:
            if index < len(match.operands):
                yield where, match.operands[index]


def check_urls(plan: ExecutionPlan) -> None:
    """Raise `PolicyBlocked` for a URL operand on a browser's own port."""
    local = [(where, url, loopback_port(url)) for where, url in _url_operands(plan)]
    local = [(where, url, port) for where, url, port in local if port is not None]
    if not local:
        return
    guarded = browser_ports()
    for where, url, port in local:
        if port in guarded:
            raise _blocked(
                f"{where}{url} is port {port} of a browser's own DevTools or stream server, "
                "which would let the page drive browsers over CDP.",
                url,
            )


def _runs_page_script(plan: ExecutionPlan) -> bool:
    return any(m is not None and m.runs_page_script for _w, _g, m in calls_of(plan.checked))


async def check_page(call: DirectCall) -> None:
    """Before caller-written page script: raise `PolicyBlocked` when the page is on a
    browser's own port now (one `get url`; nothing for other commands).

    A session with no page this conversation knows of is not read: the read would launch its
    browser, whose first page is blank."""
    if call.key is None or not _runs_page_script(call.plan):
        return
    entry = call.rt.log.state.session(call.key)
    if entry.closed or (entry.target is None and entry.ref_snapshot is None):
        return
    data = await helper_data(call.rt, call.plan, ["get", "url"])
    url = data.get("url") if isinstance(data, dict) else None
    port = loopback_port(url) if isinstance(url, str) else None
    if port is not None and port in browser_ports():
        raise _blocked(
            f"the page is on {url}, port {port} of a browser's own DevTools or stream server; "
            "script there could drive browsers over CDP, so it does not run. Open another page "
            "first.",
            url or "",
        )


def _blocked(message: str, subject: str) -> PolicyBlocked:
    return PolicyBlocked(
        f"{message} Browsers stay off these ports: use the page's own URL instead.",
        rule=RULE,
        subject=subject,
        allow_with=None,
    )
