"""Did an element action take? The read-back compared with what was asked (pure).

Why lenient where it must be: apps reformat what they are given (a phone mask turns
`5551234567` into `(555) 123-4567`, an email field trims, a field upper-cases), so a value
counts as holding the text when it contains it, exactly or with only letters and digits
compared. It fails only on evidence: the field is empty, or holds something else (a
`maxlength` cut, a control that ignored the text). Nothing read means `None`, never a failure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from html.parser import HTMLParser

from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.tools.agent_browser.effects.date_entry import DateField, wanted_value


@dataclass(frozen=True)
class Asked:
    """One standalone element action: its target and what it asked for."""

    command: str
    operand: str
    ref: str | None
    """The shown ref id (`e4`) when the target is a ref."""
    info: RefInfo | None
    text: str | None = None
    options: tuple[str, ...] = ()

    @property
    def role(self) -> str | None:
        return self.info.role if self.info is not None else None


_WORDS = re.compile(r"[\W_]+", re.UNICODE)
_SPACE = re.compile(r"\s+")


def _alnum(text: str) -> str:
    return _WORDS.sub("", text).casefold()


def holds_text(got: str, want: str) -> bool:
    """`got` holds `want` (contained, exactly or letters and digits only)."""
    if want in got:
        return True
    core = _alnum(want)
    return bool(core) and core in _alnum(got)


def text_verdict(
    want: str, value: str | None, text: str | None, *, replaced: bool
) -> tuple[str | None, bool | None]:
    """(what the element holds, verified) for `fill` (`replaced`) or `type`.

    `value` is the element's `value` (inputs, textareas, selects), `text` its text content
    (the only readable content of a contenteditable region)."""
    if value is None and text is None:
        return None, None
    shown = value if value or not text else text
    if want == "":
        return shown, (shown == "") if replaced else None
    if value and _value_took(value, want, replaced=replaced):
        return shown, True
    if replaced and not value and text:
        # An editor's text (contenteditable) after `fill` is the asked text and nothing else:
        # one that kept its old text beside the new (a code editor inserts at its cursor) did
        # not take the fill.
        return shown, " ".join(text.split()) == " ".join(want.split())
    if any(got and holds_text(got, want) for got in (value, text)):
        # A field value that merely contains a short text may have held it before the call
        # (`fill a` on "banana"): unknown, never claimed. After `type`, an editor's text
        # keeps its other text.
        return shown, None if value and not (text and holds_text(text, want)) else True
    return shown, False


def slider_verdict(want: str, held: str | None) -> bool | None:
    """A slider holds the asked number (`37` and `37.0` alike); None when nothing was read."""
    if held is None or held == "":
        return None
    try:
        return float(held) == float(want)
    except ValueError:
        return False


def _value_took(value: str, want: str, *, replaced: bool) -> bool:
    """A control's value shows the text: equal (letters and digits only, for masks and
    upper-casing) after `fill`, ending with it after `type` (which appends)."""
    if replaced:
        return value == want or (bool(_alnum(want)) and _alnum(value) == _alnum(want))
    return value.endswith(want) or (bool(_alnum(want)) and _alnum(value).endswith(_alnum(want)))


# ----- select -------------------------------------------------------------------------------


class _Options(HTMLParser):
    """(value, label) of each `<option>` in a select's inner HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.options: list[tuple[str | None, str]] = []
        self._open = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "option":
            self.options.append((dict(attrs).get("value"), ""))
            self._open = True

    def handle_endtag(self, tag: str) -> None:
        if tag in ("option", "select", "optgroup"):
            self._open = False

    def handle_data(self, data: str) -> None:
        if self._open and self.options:
            value, label = self.options[-1]
            self.options[-1] = (value, label + data)


def options_of(html: str) -> list[tuple[str, str]]:
    """(value, label) pairs, whitespace-normalised; an option without a value attribute
    has its label as value, as in the DOM."""
    parser = _Options()
    try:
        parser.feed(html)
        parser.close()
    except (ValueError, AssertionError):
        return []
    out: list[tuple[str, str]] = []
    for value, label in parser.options:
        label = _SPACE.sub(" ", label).strip()
        out.append((label if value is None else value, label))
    return out


def select_verdict(
    asked: Sequence[str], value: str | None, html: str | None
) -> tuple[list[str] | None, bool | None]:
    """(labels of the selected option, verified). `get value` names the first selected
    option only, so with several options asked a match stays unverified (None)."""
    if value is None:
        return None, None
    options = options_of(html or "")
    label = next((lab for val, lab in options if val == value), None)
    shown = [label if label is not None else value]
    norm = {_SPACE.sub(" ", a).strip() for a in asked}
    matched = value in asked or (label is not None and label in norm)
    if len(asked) > 1:
        return shown, None if matched else False
    return shown, matched


# ----- date and time inputs -----------------------------------------------------------------


@dataclass(frozen=True)
class DateVerdict:
    """A fill into a native date/time input: the value it should hold and whether it does."""

    field: DateField
    wanted: str | None
    """None: the model's text is not a value of this input type."""
    verified: bool | None


def date_verdict(field: DateField, text: str) -> DateVerdict:
    """Set as asked, provably not set (still empty, or another value), or unknown; an empty
    text asks for an empty field."""
    if not text.strip():
        return DateVerdict(field, None, field.value == "")
    wanted = wanted_value(field, text)
    if wanted is not None:
        return DateVerdict(field, wanted, field.value == wanted)
    return DateVerdict(field, None, False if field.value == "" else None)


def toggle_expected(role: str | None, prior: bool | None) -> bool | None:
    """The state a click should leave a toggle in: a radio is checked; a checkbox or switch
    flips from the state the identity re-read saw (unknown without it)."""
    if role in ("radio", "menuitemradio"):
        return True
    return None if prior is None else not prior
