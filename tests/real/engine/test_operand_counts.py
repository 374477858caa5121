"""The taxonomy's operand counts held against the engine itself (issue 33, item 2).

Both ways, for the common commands: what the engine refuses as `missing_arguments` the
wrapper refuses too (`planning.arity`), and what the engine runs with fewer operands the
wrapper lets through, except the calls the engine takes as something else: `fill`/`type`
without text fill nothing and report success, `upload` without files and `eval` without a
script run on nothing. Those are refused on purpose; the test shows the engine still takes
them, so a release that starts refusing them is noticed.
"""

from __future__ import annotations

import pytest

from agent_browser_tools import taxonomy
from agent_browser_tools.planning.arity import arity_problem
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import RealSession

pytestmark = pytest.mark.real_engine

ENGINE_REFUSES = [
    ["click"],
    ["dblclick"],
    ["hover"],
    ["focus"],
    ["check"],
    ["uncheck"],
    ["press"],
    ["select", "#flavor"],
    ["drag", "#email"],
    ["wait"],
    ["get", "text"],
    ["get", "html"],
    ["get", "value"],
    ["get", "count"],
    ["get", "box"],
    ["get", "styles"],
    ["get", "attr", "#email"],
    ["is", "visible"],
    ["keyboard", "type"],
    ["mouse", "move", "1"],
    ["set", "viewport", "100"],
    ["find", "role"],
    ["cookies", "set", "name"],
    ["storage", "local", "set", "key"],
]
ENGINE_RUNS = [
    ["snapshot"],
    ["scroll"],
    ["scroll", "down"],
    ["tab"],
    ["tab", "list"],
    ["get", "title"],
    ["get", "url"],
    ["wait", "100"],
    ["wait", "--load", "load"],
    ["mouse", "down"],
    ["mouse", "up"],
    ["mouse", "wheel"],  # 100 px down, though the engine's help says <dy>
    ["dialog", "status"],
    ["console"],
    ["cookies", "get"],
    ["storage", "local", "get"],
    ["screenshot"],
    ["open"],
    ["tab", "new"],  # last: the new tab is the active one until `tab close` closes it
    ["tab", "close"],
]
REFUSED_ON_PURPOSE = [
    ["fill", "#email"],
    ["type", "#email"],
    ["upload", "#attachment"],
    ["eval"],
]


def _ours(args: list[str]) -> str | None:
    match = taxonomy.resolve_command(args)
    assert match is not None, args
    return arity_problem(match)


def _engine_type(session: RealSession, args: list[str]) -> str | None:
    # A screenshot without a path goes to the engine's default directory: the test's own.
    shots = ["--screenshot-dir", str(session.engine.socket_dir)] if args[0] == "screenshot" else []
    envelope = session.run_json(*shots, *args)
    return envelope.get("type") if not envelope.get("success") else "ok"


@pytest.fixture
def on_form(real_session: RealSession, fixture_site: FixtureServer) -> RealSession:
    real_session.ok("open", fixture_site.url("/form.html"))
    return real_session


def test_the_taxonomy_refuses_what_the_engine_calls_missing(on_form: RealSession) -> None:
    for args in ENGINE_REFUSES:
        assert _engine_type(on_form, args) == "missing_arguments", args
        problem = _ours(args)
        assert problem is not None and "Usage: `" in problem, args


def test_the_taxonomy_lets_through_what_the_engine_runs_with_fewer(on_form: RealSession) -> None:
    for args in ENGINE_RUNS:
        assert _engine_type(on_form, args) == "ok", args
        assert _ours(args) is None, (args, _ours(args))


def test_what_the_engine_takes_as_something_else_is_refused_on_purpose(
    on_form: RealSession,
) -> None:
    for args in REFUSED_ON_PURPOSE:
        assert _engine_type(on_form, args) != "missing_arguments", args
        assert _ours(args) is not None, args
