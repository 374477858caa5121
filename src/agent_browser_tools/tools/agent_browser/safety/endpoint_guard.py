"""Direct tool, at dispatch: keep script off the DevTools and stream ports of browsers.

Chromium accepts a DevTools WebSocket from a page whose origin is its own DevTools server, so
script on `http://127.0.0.1:<a browser's debug port>/` can drive that browser, whichever
conversation owns it (`engine.browser_ports`). What keeps a model from getting there:

- every caller-written page script (`eval`, `wait --fn`, direct or in batch rows) goes out
  behind a guard statement that throws on such an origin (`planning.script_guard`): the check
  runs in the same evaluation as the script, in whatever frame it runs, so a page that moved
  itself there after the wrapper last looked (a redirect, a timer) changes nothing;
- a URL operand naming a loopback port that a browser or engine daemon listens on is refused
  (in any spelling a browser accepts: `planning.local_origins`);
- a `network route --body` that could answer a page load on such a port is refused
  (`planning.route_rule`);
- before a polled script (`wait --fn`, where the engine reads a thrown guard as "not yet"),
  one `get url` refuses a page that is there already, so the model reads why, not a timeout;
- an answer whose content came from such a port (`read` follows redirects with the engine's
  own HTTP client; `get text`, `snapshot` and `eval` name the page they read) is withheld: a
  DevTools server's pages list its browser's tabs with the ids that open them.
"""

from __future__ import annotations

from collections.abc import Iterator

from agent_browser_tools.engine.browser_ports import browser_ports, listeners
from agent_browser_tools.planning.grid_endpoints import GridEndpoints
from agent_browser_tools.planning.local_origins import local_port
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.policy import PolicyBlocked, calls_of
from agent_browser_tools.planning.route_rule import route_origin, route_pattern, route_problem
from agent_browser_tools.planning.script_guard import RULE, refusal_message
from agent_browser_tools.taxonomy import split_global_flags
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import helper_data
from agent_browser_tools.tools.agent_browser.safety.dispatch_guard import script_matches


def _url_operands(plan: ExecutionPlan) -> Iterator[tuple[str, str]]:
    for where, _globals, match in calls_of(plan.checked):
        if match is None:
            continue
        for index in match.spec.files.urls:
            if index < len(match.operands):
                yield where, match.operands[index]
        for flag in match.spec.files.url_flags:
            value = match.flag_value(flag)
            if value is not None:
                yield where, value


def check_urls(plan: ExecutionPlan) -> None:
    """Raise `PolicyBlocked` for a URL operand on a browser's own port, or a fulfilled route
    that could answer a page load there."""
    local = [(where, url, local_port(url)) for where, url in _url_operands(plan)]
    local = [(where, url, port) for where, url, port in local if port is not None]
    if local:
        guarded = browser_ports()
        for where, url, port in local:
            if port in guarded:
                raise _blocked(
                    f"{where}{url} is port {port} of a browser's own DevTools or stream server, "
                    "which would let the page drive browsers over CDP.",
                    url,
                )
    _check_routes(plan)


def check_grid_urls(plan: ExecutionPlan, grid: GridEndpoints) -> None:
    """Raise `PolicyBlocked` for a URL operand on the operator's Selenium Grid, or a route
    that could answer a page load there: its pages list every conversation's browser with the
    socket that drives it (`planning.grid_endpoints`)."""
    if not grid:
        return
    for where, url in _url_operands(plan):
        if grid.matches(url):
            raise _blocked(
                f"{where}{url} is the browser grid's own endpoint, which lists every "
                "conversation's browser and the sockets that drive them.",
                url,
            )
    for where, command in _route_rows(plan):
        origin = route_origin(command)
        if origin is not None and grid.matches(origin):
            raise PolicyBlocked(
                f"{where}a route with a body on {origin}, the browser grid's own endpoint, "
                "would let a page there read every conversation's browser. Route another "
                "origin.",
                rule=RULE,
                subject=route_pattern(command),
                allow_with=None,
            )


def _route_rows(plan: ExecutionPlan) -> list[tuple[str, tuple[str, ...]]]:
    rows = [("", tuple(plan.checked.command_tokens))]
    if plan.checked.batch is not None:
        rows += [
            (f"batch row {index}: ", tuple(split_global_flags(row)[1]))
            for index, row in enumerate(plan.checked.batch.rows, start=1)
        ]
    return rows


def _check_routes(plan: ExecutionPlan) -> None:
    rows = _route_rows(plan)
    # Only a route that names no non-local origin needs the listening ports read.
    suspects = [(w, c) for w, c in rows if route_problem(c, frozenset()) is not None]
    if not suspects:
        return
    now = listeners()
    ordinary = now.others if now is not None else None
    for where, command in suspects:
        problem = route_problem(command, ordinary)
        if problem is not None:
            pattern = route_pattern(command)
            raise PolicyBlocked(where + problem, rule=RULE, subject=pattern, allow_with=None)


def _polls_page_script(plan: ExecutionPlan) -> bool:
    return any(
        m.runs_page_script and m.spec.page_script is not None and m.spec.page_script.polled
        for m in script_matches(plan)
    )


async def check_page(call: DirectCall) -> None:
    """Before a polled page script (`wait --fn`): raise `PolicyBlocked` when the page is on a
    browser's own endpoint now (one `get url`; nothing for other commands: an `eval` says so
    itself, through its guard).

    A session with no page this conversation knows of is not read: the read would launch its
    browser, whose first page is blank."""
    if call.key is None or not _polls_page_script(call.plan):
        return
    entry = call.rt.log.state.session(call.key)
    if entry.closed or (entry.target is None and entry.ref_snapshot is None):
        return
    data = await helper_data(call.rt, call.plan, ["get", "url"])
    url = data.get("url") if isinstance(data, dict) else None
    port = local_port(url) if isinstance(url, str) else None
    now = listeners() if port is not None else None
    if port is not None and now is not None and port not in now.others:
        shown = url if isinstance(url, str) else ""
        raise PolicyBlocked(refusal_message(shown), rule=RULE, subject=shown, allow_with=None)


def _blocked(message: str, subject: str) -> PolicyBlocked:
    return PolicyBlocked(
        f"{message} Browsers stay off these ports: use the page's own URL instead.",
        rule=RULE,
        subject=subject,
        allow_with=None,
    )
