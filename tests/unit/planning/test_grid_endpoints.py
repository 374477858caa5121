"""The operator's grid origins, matched the way a browser reaches them."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from agent_browser_tools.planning.grid_endpoints import GridEndpoints, host_port
from agent_browser_tools.planning.route_rule import route_origin
from agent_browser_tools.planning.script_guard import ScriptGuard

REMOTE = GridEndpoints.of(["https://user:pw@Grid.Example:4444/wd/hub", "ws://node.example/x"])
LOCAL = GridEndpoints.of(["http://127.0.0.1:4444", "ws://127.0.0.1:4444/session/a/se/cdp"])


@pytest.mark.parametrize(
    "url",
    [
        "https://grid.example:4444/status",
        "HTTPS://GRID.EXAMPLE.:4444/",
        "https://grid.example:4444\\@elsewhere.test/",
        "http://node.example/",
        "ws://node.example:80/session/x/se/cdp",
        "http://node.example:80/ui",
    ],
)
def test_a_remote_grid_is_matched_in_its_spellings(url: str) -> None:
    assert REMOTE.matches(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://grid.example/status",  # another port
        "https://grid.example.org:4444/",
        "https://elsewhere.test/?u=https://grid.example:4444/",
        "file:///grid.example:4444",
        "data:text/html,grid.example:4444",
    ],
)
def test_other_origins_are_not_the_grid(url: str) -> None:
    assert not REMOTE.matches(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:4444/status",
        "http://localhost:4444/",
        "http://[::1]:4444/",
        "http://2130706433:4444/",
        "http://0x7f.1:4444/",
    ],
)
def test_a_loopback_grid_is_matched_in_every_loopback_spelling(url: str) -> None:
    assert LOCAL.matches(url)
    assert not LOCAL.matches(url.replace(":4444", ":4445"))


def test_no_grid_matches_nothing() -> None:
    assert not GridEndpoints() and not GridEndpoints().matches("http://127.0.0.1:4444/")
    assert REMOTE and LOCAL
    assert host_port("mailto:x@grid.example") is None


@pytest.mark.parametrize(
    ("command", "origin"),
    [
        (
            ["network", "route", "https://grid.example:4444/*", "--body", "x"],
            "https://grid.example:4444/",
        ),
        (["network", "route", "https://grid.example:4444/*", "--abort"], None),
        (["network", "route", "**/*", "--body", "x"], None),
        (["network", "route", "https://a.test/*", "--body", "x", "--resource-type", "xhr"], None),
        (["get", "title"], None),
    ],
)
def test_the_one_origin_a_body_route_names(command: list[str], origin: str | None) -> None:
    assert route_origin(command) == origin


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node runs the guard statement here")
@pytest.mark.parametrize(
    ("href", "blocked"),
    [
        ("https://grid.example:4444/status", True),
        ("https://GRID.example.:4444/", True),
        ("http://node.example/ui", True),
        ("https://grid.example/", False),
        ("https://elsewhere.test/", False),
    ],
)
def test_the_script_guard_throws_on_a_grid_origin(href: str, blocked: bool) -> None:
    """The guard statement, run as a page would run it (in node, with the page's location)."""
    guard = ScriptGuard(ordinary=frozenset(), nonce="n", grid_hosts=REMOTE.hosts)
    script = guard.script("'ran'")
    program = (
        f"const location = new URL({json.dumps(href)});"
        f"try {{ console.log(eval({json.dumps(script)})) }}"
        "catch (e) { console.log('blocked ' + e.message) }"
    )
    assert NODE is not None
    out = subprocess.run([NODE, "-e", program], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("blocked policy-blocked") is blocked, out.stdout
    assert (out.stdout.strip() == "ran") is not blocked
