"""Fulfilled routes that could answer a page load on a browser's own endpoint (pure)."""

from __future__ import annotations

import pytest

from agent_browser_tools.planning.route_rule import route_pattern, route_problem

ORDINARY = frozenset({3000})


def _route(*words: str) -> tuple[str, ...]:
    return ("network", "route", *words)


@pytest.mark.parametrize(
    "words",
    [
        ("*", "--body", "<script>x</script>"),
        ("**", "--body", "x"),
        ("**/*", "--body", "x"),
        ("*/json/version", "--body", "x"),
        # No `*`: the engine matches any URL that contains the pattern (measured on 0.39.4).
        ("https://example.com/app", "--body", "x"),
        # The host is not closed by `/`: `http://example.com@127.0.0.1:9222/` or `:9222` fit.
        ("http://example.com*", "--body", "x"),
        ("https://example.com:*", "--body", "x"),
        # A local host on a port no ordinary server holds (a browser's, or none yet).
        ("http://127.0.0.1:41683/*", "--body", "x"),
        ("http://localhost/*", "--body", "x"),
        ("http://2130706433:41683/*", "--body", "x"),
        ("http://[::1]:41683/x*", "--body", "x"),
        # Documents are not left out.
        ("*", "--body", "x", "--resource-type", "document"),
        ("*", "--body", "x", "--resource-type", "fetch,Document"),
        ("*", "--body", "x", "--resource-type", ","),  # empty list: every type
        ("*", "--body", "x", "--resource-type", "other"),
        ("*", "--body", "x", "--resource-types", "xhr,signedexchange"),
        # The engine reads the pattern as the first word, even a flag-looking one.
        ("--body", "x", "https://example.com/*"),
        ("ftp://example.com/*", "--body", "x"),
    ],
)
def test_body_routes_that_could_answer_a_local_page_load_are_refused(
    words: tuple[str, ...],
) -> None:
    problem = route_problem(_route(*words), ORDINARY)
    assert problem is not None and "--resource-type fetch,xhr" in problem


@pytest.mark.parametrize(
    "words",
    [
        ("*", "--abort"),
        ("*", "--body", "x", "--abort"),  # abort wins over a body in the engine
        ("*",),
        ("*", "--body", "{}", "--resource-type", "fetch,xhr"),
        ("*", "--body", "{}", "--resource-types", " XHR , Fetch "),
        ("*", "--body", "x", "--resource-type", "image,script,stylesheet,font,media"),
        ("https://example.com/api/*", "--body", "{}"),
        ("https://example.com?*", "--body", "{}"),
        ("http://user@example.com:8443/app*", "--body", "<p>x</p>"),
        ("http://127.0.0.1:3000/*", "--body", "<p>dev server</p>"),
        ("http://localhost:3000/mock*", "--body", "x"),
    ],
)
def test_other_routes_pass(words: tuple[str, ...]) -> None:
    assert route_problem(_route(*words), ORDINARY) is None


def test_without_listener_facts_local_hosts_are_refused() -> None:
    assert route_problem(_route("http://127.0.0.1:3000/*", "--body", "x"), None) is not None
    assert route_problem(_route("https://example.com/*", "--body", "x"), None) is None


def test_other_commands_are_not_routes() -> None:
    assert route_problem(("open", "https://example.com"), frozenset()) is None
    assert route_problem(("network", "unroute", "*"), frozenset()) is None
    assert route_pattern(_route("--body", "x", "*")) == "--body"
