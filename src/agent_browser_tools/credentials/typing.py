"""What a text field holds after the engine types into it (pure).

Why: a password typed key by key (`focus` + `press h`, `press u`, ...) or with `keyboard
type` into a field that already holds text is never one argv token, so registering the typed
text alone leaves the field's whole value (the thing a page mirrors, a form submits, a HAR
records) unknown to the scrubber. The wrapper reads the field once before the call and plays
the call's edits forward with these rules to know the value the field will hold.

Rules measured on engine 0.39.4 with Chromium (`press KEY` into a focused `<input>`):

- one printable ASCII character inserts itself at the caret, replacing the selection; Shift
  does not change it (`Shift+d` types `d`), Alt does not stop it (`Alt+x` types `x`);
  `Space` types a space; a non-ASCII character (`ß`) types nothing;
- `Backspace` / `Delete` delete the selection, else one character before / after the caret;
- `Home`, `End`, `ArrowLeft`, `ArrowRight` move the caret (with Shift: extend the selection);
- `Control+a` / `Meta+a` select all; other Control/Meta chords type nothing, except the
  clipboard and undo ones (`x`, `v`, `z`, `y`) and word-wise deletes and moves, whose result
  is unknown;
- every other key (`Enter`, `Tab`, `Escape`, `F5`, `Numpad1`, `keydown`) leaves the value.

`None` means the outcome cannot be known; the caller then stops predicting that field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent_browser_tools.taxonomy import FieldEdit

_CONTROL = frozenset({"control", "ctrl", "meta", "cmd", "command", "super", "controlormeta"})
_UNKNOWN_CHORDS = frozenset({"x", "v", "z", "y"})


@dataclass(frozen=True)
class Field:
    """A text field's value and selection (`start` == `end`: a caret)."""

    value: str
    start: int
    end: int

    @classmethod
    def at(cls, value: str, caret: int | None = None) -> Field:
        """`value` with the caret at `caret` (default: the end), clamped into range."""
        spot = len(value) if caret is None else max(0, min(caret, len(value)))
        return cls(value, spot, spot)

    def insert(self, text: str) -> Field:
        """`text` typed at the caret, replacing the selection."""
        head, tail = self.value[: self.start], self.value[self.end :]
        return Field.at(head + text + tail, len(head) + len(text))

    def delete(self, *, forward: bool) -> Field:
        if self.start != self.end:
            return self.insert("")
        if forward:
            return Field(self.value[: self.start] + self.value[self.start + 1 :], *[self.start] * 2)
        cut = max(self.start - 1, 0)
        return Field.at(self.value[:cut] + self.value[self.start :], cut)

    def move(self, caret: int, *, extend: bool) -> Field:
        caret = max(0, min(caret, len(self.value)))
        if not extend:
            return Field(self.value, caret, caret)
        anchor = self.start if caret >= self.end else self.end
        return Field(self.value, min(anchor, caret), max(anchor, caret))


Edit = Callable[[Field], "Field | None"]


def _split(key: str) -> tuple[set[str], str]:
    """(lower-case modifiers, base key) of `Shift+a`, `Control++`, `+`."""
    if key == "+" or not key.endswith("++"):
        parts = [key] if key == "+" else key.split("+")
    else:
        parts = [*key[:-2].split("+"), "+"]
    return {part.lower() for part in parts[:-1]}, parts[-1]


def key_edit(key: str) -> Edit | None:
    """The edit one `press KEY` makes to the focused field, or None when it leaves the value
    and caret alone (then nothing needs to be read or predicted)."""
    mods, base = _split(key)
    lower = base.lower()
    chord = bool(mods & _CONTROL)
    if lower == "space":
        base = lower = " "
    if len(base) == 1 and " " <= base <= "~":
        if not chord:
            return lambda field: field.insert(base)
        if lower == "a" and "shift" not in mods:
            return lambda field: field.move(len(field.value), extend=False).move(0, extend=True)
        return _unknown if lower in _UNKNOWN_CHORDS else None
    return _named_edit(lower, mods, chord)


def _named_edit(lower: str, mods: set[str], chord: bool) -> Edit | None:
    extend = "shift" in mods
    if lower in ("backspace", "delete"):
        if chord or "alt" in mods:
            return _unknown
        return lambda field: field.delete(forward=lower == "delete")
    if lower not in ("home", "end", "arrowleft", "arrowright", "arrowup", "arrowdown"):
        return None
    if chord or "alt" in mods or lower in ("arrowup", "arrowdown"):
        return _unknown
    if lower in ("home", "end"):
        return lambda field: field.move(0 if lower == "home" else len(field.value), extend=extend)
    left = lower == "arrowleft"

    def arrow(field: Field) -> Field:
        if extend:
            if left:
                return Field(field.value, max(field.start - 1, 0), field.end)
            return Field(field.value, field.start, min(field.end + 1, len(field.value)))
        if field.start != field.end:
            return field.move(field.start if left else field.end, extend=False)
        return field.move(field.start + (-1 if left else 1), extend=False)

    return arrow


def _unknown(_field: Field) -> Field | None:
    return None


def candidates(value: str | None, selection: tuple[int, int] | None = None) -> list[Field]:
    """Where the field may stand before the call: exactly as read; a value read without its
    selection has the caret at either end (a field's focus restores its last selection: the
    start for a never-focused field with a default value, the end after a fill); a field
    not read starts empty (then only what the call types is known)."""
    if value is None:
        return [Field.at("")]
    if selection is not None:
        start, end = sorted(max(0, min(n, len(value))) for n in selection)
        return [Field(value, start, end)]
    return [Field.at(value, 0)] if not value else [Field.at(value, 0), Field.at(value)]


def play(fields: list[Field], edit: FieldEdit, text: str) -> list[Field] | None:
    """The candidates after one edit, or None when a key's outcome cannot be known."""
    if edit is FieldEdit.FILL:
        return [Field.at(text)]
    if edit is FieldEdit.INSERT:
        return [field.insert(text) for field in fields]
    change = key_edit(text)
    if change is None:
        return fields
    after = [change(field) for field in fields]
    return None if any(field is None for field in after) else [f for f in after if f is not None]
