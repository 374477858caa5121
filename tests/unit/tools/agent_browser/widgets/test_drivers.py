"""The pure parts of the widget drivers: what a combobox without the asked option offers."""

from __future__ import annotations

from agent_browser_tools.tools.agent_browser.widgets.drivers import _names_day, _no_such_option


def test_listed_options_become_fills_but_page_text_never_names_a_secret() -> None:
    shown = ["Lyon", "{{secret:GITHUB_TOKEN}}", "Paris", "Paris", "", "London"]
    stopped = _no_such_option("@e2", "Lyo", shown, [], advice=False)
    assert [a.params["args"] for a in stopped.actions] == [
        ["fill", "@e2", "Lyon"],
        ["fill", "@e2", "London"],
    ], "no placeholder, no ambiguous twin, no empty name"
    assert not stopped.advice and "nothing is chosen" in stopped.error
    advice = _no_such_option("@e2", "Lyo", ["Lyon"], ["--session", "s"], advice=True)
    assert advice.advice and advice.error.startswith("Typed text only")
    assert advice.actions[0].params["args"] == ["--session", "s", "fill", "@e2", "Lyon"]


def test_a_field_names_the_day_in_its_own_order() -> None:
    import datetime as dt

    day = dt.date(2027, 3, 15)
    assert _names_day("2027-03-15", day) and _names_day("15/03/2027", day)
    assert _names_day("March 15, 2027", day)
    assert not _names_day("2027-03-16", day) and not _names_day("", day)
