"""Unknown-command getter hints (`title` instead of `get title`), on real engine errors."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.results.classify import GETTER_TOKENS, HINT_HEADER, GetterHint, getter_hint

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "engine_errors-0.39.4.json"
RECORDS: list[dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))


def _record(scenario: str) -> dict[str, Any]:
    return next(r for r in RECORDS if r["scenario"] == scenario)


# --- unknown-command getter hints --------------------------------------------------------------


def test_real_unknown_title_in_named_session_gets_session_prefixed_action() -> None:
    record = _record("unknown-command-title")
    hint = getter_hint(record["envelope"]["error"], tuple(record["argv"]), "cap-main")
    assert hint is not None
    assert hint.action_id == "use-get-title"
    assert hint.action_args == ("--session", "cap-main", "get", "title")
    assert hint.text.count(HINT_HEADER) == 1
    assert any("`get title`" in line for line in hint.lines)
    assert "get text" in hint.lines[0]  # the grouped `get` line
    action = hint.next_action()
    assert action is not None
    assert action.to_dict()["params"] == {"args": ["--session", "cap-main", "get", "title"]}
    assert action.id == "use-get-title"


def test_real_unknown_url_without_named_session_has_plain_args() -> None:
    record = _record("unknown-command-url")
    hint = getter_hint(record["envelope"]["error"], ("url",), None)
    assert hint is not None
    assert (hint.action_id, hint.action_args) == ("use-get-url", ("get", "url"))


def test_real_unknown_text_gets_guidance_but_no_action() -> None:
    record = _record("unknown-command-text")
    hint = getter_hint(record["envelope"]["error"], tuple(record["argv"]), "cap-main")
    assert hint is not None
    assert any("`get text <selector>`" in line for line in hint.lines)
    assert hint.action_id is None and hint.action_args is None and hint.next_action() is None


@pytest.mark.parametrize("token", sorted(GETTER_TOKENS))
def test_every_getter_token_gets_its_own_guidance(token: str) -> None:
    hint = getter_hint(f"Unknown command: {token}", (token,), "s1")
    assert hint is not None
    assert any(f"`{GETTER_TOKENS[token]}`" in line for line in hint.lines)
    assert (hint.action_id is not None) == (token in {"title", "url"})


@pytest.mark.parametrize(
    "error", ["unknown command: title", "Unknown subcommand: title", "UNRECOGNIZED COMMAND title"]
)
def test_hint_matches_each_phrase_case_insensitively(error: str) -> None:
    assert getter_hint(error, ("title",), None) is not None


@pytest.mark.parametrize(
    ("error", "command"),
    [
        (_record("unknown-subcommand-get")["envelope"]["error"], ("get", "frobnicate")),
        ("Unknown command: frobnicate", ("frobnicate",)),
        ("Element not found: #x. Verify the selector, role, or name", ("text", "#x")),
        ("Unknown command: title\nAgent-browser hint: refresh refs with snapshot -i", ("title",)),
        ("Unknown command: title", ()),
    ],
    ids=["get-subcommand", "non-getter", "not-unknown-command", "existing-hint", "no-command"],
)
def test_hint_does_not_apply(error: str, command: tuple[str, ...]) -> None:
    assert getter_hint(error, command, "s1") is None


def test_getter_hint_is_frozen() -> None:
    hint = GetterHint(lines=("x",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        hint.lines = ()  # type: ignore[misc]
