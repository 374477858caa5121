"""Playing keys and typed text forward on a field, against what engine 0.39.4 measured."""

from __future__ import annotations

from agent_browser_tools.credentials.typing import Field, candidates, key_edit, play
from agent_browser_tools.taxonomy import FieldEdit

KEY = FieldEdit.KEY


def _keys(field: Field, *keys: str) -> Field:
    for key in keys:
        after = play([field], KEY, key)
        assert after is not None, key
        (field,) = after
    return field


def test_the_measured_session_replays_exactly() -> None:
    # `type #pw ab` into a never-focused field holding "pre" typed at its start.
    field = Field.at("pre", 0).insert("ab")
    field = _keys(field, "c", "Shift+d", "D", "Space", "+")
    assert field.value == "abcdD +pre"
    field = _keys(field, "Backspace", "Home", "x")
    assert field.value == "xabcdD pre"
    field = _keys(field, "Control+a", "z")
    assert field.value == "z"
    field = field.insert('Q<"&+ ').insert("W")
    field = _keys(field, "ArrowLeft", "ArrowLeft", "y")
    assert field.value == 'zQ<"&+y W'
    field = _keys(field, "Delete", "End", "Shift+ArrowLeft", "k")
    assert field.value == 'zQ<"&+yk'
    field = _keys(Field.at("base"), "Meta+a", "Alt+x", "a")
    assert field.value == "xa"


def test_keys_that_type_nothing_leave_the_field_and_need_no_read() -> None:
    for key in ("Enter", "Tab", "Shift+Tab", "Escape", "F5", "Numpad1", "ß", "é", "Control+b"):
        assert key_edit(key) is None, key
    assert key_edit("Control+Shift+a") is None
    for key in ("a", "+", "Space", "Backspace", "Home", "Shift+ArrowRight", "Control+a"):
        assert key_edit(key) is not None, key


def test_clipboard_undo_and_word_keys_make_the_value_unknown() -> None:
    for key in ("Control+v", "Meta+x", "Control+z", "Control+Backspace", "Alt+Delete"):
        assert play([Field.at("abc")], KEY, key) is None, key
    assert play([Field.at("abc")], KEY, "ArrowUp") is None


def test_candidates_cover_a_caret_the_read_could_not_see() -> None:
    assert candidates(None) == [Field.at("")]
    assert candidates("") == [Field.at("")]
    assert candidates("pre", (1, 9)) == [Field("pre", 1, 3)]
    both = candidates("pre")
    assert [f.insert("ab").value for f in both] == ["abpre", "preab"]
    assert play(both, FieldEdit.FILL, "new") == [Field.at("new")]
