"""Engine answers as prose (pure): taxonomy templates, action sentences, field lines."""

from __future__ import annotations

from agent_browser_tools.results.answer_prose import answer_lines, field_lines
from agent_browser_tools.taxonomy import resolve_command

LOCATED = "[data-agent-browser-located='true']"


def test_the_first_template_whose_fields_are_present_wins() -> None:
    assert answer_lines(("wait",), {"selector": "#b", "waited": "selector"}, None) == [
        "Waited for #b."
    ]
    assert answer_lines(("back",), {}, None) == ["Went back."]


def test_a_find_names_its_locator_never_the_engine_marker() -> None:
    match = resolve_command(["find", "role", "button", "click", "--name", "Save"])
    line = answer_lines(("find",), {"clicked": LOCATED}, match)
    assert line == ['Clicked the element with role "button" named "Save".']
    assert answer_lines(("find",), {"clicked": LOCATED}, None) == [
        "Clicked the element found by the locator."
    ]


def test_other_answers_are_field_lines_without_bookkeeping() -> None:
    data = {"cookies": [{"name": "a", "value": "1"}], "lifecycle": {"launchHash": 1}}
    assert field_lines({k: v for k, v in data.items() if k != "lifecycle"}) == [
        "cookies (1):",
        "- name=a; value=1",
    ]
    assert answer_lines(("cookies", "get"), data, None) == ["cookies (1):", "- name=a; value=1"]


def test_close_all_names_the_sessions_it_closed_and_failed() -> None:
    data = {"closed": 2, "failed": [], "sessions": ["s1", "s2"]}
    assert answer_lines(("close",), data, None) == ["Closed sessions: s1, s2; failed: none."]
    assert answer_lines(("close",), {"closed": True}, None) == ["Closed the browser session."]
