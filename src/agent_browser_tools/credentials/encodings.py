"""The spellings a secret takes on its way through a browser, as one matcher per secret (pure).

Why: a value typed into a field comes back HTML-escaped from `get html` of a page that
mirrors it (`&lt;"&amp;+ `), percent-encoded in the URL of a GET form (`%3C%22%26%2B+`, or
`%20` for the space), JSON-escaped in trace files and engine answers (`\\u003c\\"`), and
base64-encoded inside longer blobs (a Basic `user:password` header, a HAR body). Matching
only the raw value, or one fixed spelling per encoder, misses the mixes browsers really
write: Chrome escapes `"` in attributes but not in text, a URL parser percent-encodes `<` and
`"` but leaves `&` and `+`, a redirect parameter encodes a URL twice (`%253C`).

So each character of the secret is matched in any of its spellings, independently:

- raw;
- HTML: named entities (`&lt;` `&LT;` `&amp;` `&quot;` `&apos;` `&nbsp;` ...) and numeric
  references (`&#60;` `&#x3C;` `&#X3c;`, leading zeros allowed), the `&` itself also as
  `\\u0026` (HTML inside JSON);
- percent: every UTF-8 byte as `%XX` in either hex case, `%25XX` (encoded twice), and `+`
  for a space (form encoding);
- legacy charsets: a page served as windows-1252 (or another legacy charset) submits its
  forms in that charset, so a non-ASCII character is also matched as its bytes in each of
  `LEGACY_CHARSETS` that can encode it (`ä` as `%E4`), and, for a charset that cannot, as
  the numeric reference the browser sends instead (`%26%23228%3B`), and those bytes read
  back by a lenient UTF-8 reader (U+FFFD for each, as the engine's HAR query strings show);
  JavaScript's `escape()` writes `%XX` (Latin-1) below U+0100 and `%uXXXX` above;
- JSON: `\\uXXXX` in either case (surrogate pairs above U+FFFF) and the short escapes
  `\\"` `\\\\` `\\/` `\\n` `\\t` ..., escaped again any number of times (JSON inside JSON);

ASCII letters, digits and `-_.` are never escaped by any of these encoders, so they match only
raw; the longest run of them in a secret is its anchor, a plain substring every spelling
contains, and a text without it is skipped at the cost of one substring search.

Base64 (standard and URL-safe, also percent-encoded inside a URL) is matched at each of the
three byte alignments the secret can have inside a longer blob: only the characters whose six
bits all come from the secret are fixed, so the match is those characters plus the one
partial character on each side (and padding). Secrets whose fixed run is shorter than
`BASE64_MIN` characters are not matched in base64 (a short run would hit ordinary blobs).

Limits: a page script that transforms a value (reverses it, encodes it twice in base64,
splits it across elements) makes a spelling no matcher knows.
"""

from __future__ import annotations

import base64
import re
import string
from collections.abc import Iterable
from dataclasses import dataclass

PLAIN = frozenset(string.ascii_letters + string.digits + "-_.")
"""Characters that no HTML, URL or JSON encoder escapes: matched raw only."""

BASE64_MIN = 6
"""Fewest fixed base64 characters matched (36 bits: a random hit is about 1 in 7e10)."""

ANCHOR_MIN = 3
"""Shorter anchors hit too much text to be worth a prefilter; the full pattern is used."""

_NAMED: dict[str, tuple[str, ...]] = {
    "<": ("lt", "LT"),
    ">": ("gt", "GT"),
    "&": ("amp", "AMP"),
    '"': ("quot", "QUOT"),
    "'": ("apos",),
    "\xa0": ("nbsp",),
    "+": ("plus",),
    "=": ("equals",),
    "/": ("sol",),
    "\\": ("bsol",),
    "%": ("percnt",),
    "#": ("num",),
    "!": ("excl",),
    "?": ("quest",),
    ":": ("colon",),
    ";": ("semi",),
    "(": ("lpar",),
    ")": ("rpar",),
    "@": ("commat",),
    "$": ("dollar",),
    "*": ("ast",),
    "^": ("Hat",),
    "`": ("grave",),
    "{": ("lcub", "lbrace"),
    "}": ("rcub", "rbrace"),
    "[": ("lsqb", "lbrack"),
    "]": ("rsqb", "rbrack"),
    "|": ("vert", "verbar"),
    ",": ("comma",),
}
_JSON_SHORT = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}
_ESCAPES = r"\\\\*"
"""A JSON escape's backslash, itself escaped any number of times (JSON text inside a JSON
string, as trace files hold console messages: `\\\"`). Written as a literal backslash then
more, so every spelling starts with a literal character (see `encoded_pattern`)."""
_AMPS = ("&", _ESCAPES + "u0026")
_PERCENT = "%(?:25)?"
"""A percent escape's `%`, itself encoded once more (`%253C`, a URL inside a URL)."""

LEGACY_CHARSETS = (
    "cp1252", "latin-1", "cp1250", "cp1251", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257",
    "cp1258", "cp874", "iso8859_2", "iso8859_3", "iso8859_4", "iso8859_5", "iso8859_6",
    "iso8859_7", "iso8859_8", "iso8859_10", "iso8859_13", "iso8859_14", "iso8859_15",
    "iso8859_16", "koi8_r", "koi8_u", "mac_roman", "mac_cyrillic", "cp866", "cp932", "euc_jp",
    "gb18030", "big5hkscs", "cp949",
)  # fmt: skip
"""The legacy charsets browsers still submit forms in (the WHATWG Encoding standard's, by
their Python codec names): Latin-1 (also `escape()`'s `%XX`) and windows-1252 first."""
_B64_EDGE = frozenset(string.ascii_letters + string.digits + "+/-_")
_B64_SPECIAL = {"+": r"(?:\+|-|%2[bB])", "/": r"(?:/|_|%2[fF])"}


def _hex(number: int, width: int = 0) -> str:
    """`number` in hex as a pattern matching either case (`3c` -> `3[cC]`)."""
    digits = f"{number:0{width}x}"
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in digits)


_REPLACEMENT_FORMS = (
    "\ufffd",
    _ESCAPES + "u" + _hex(0xFFFD, 4),
    "".join(_PERCENT + _hex(byte, 2) for byte in "\ufffd".encode()),
)
"""U+FFFD, what a lenient UTF-8 reader makes of a byte that is not UTF-8: raw, as a JSON
escape and percent-encoded again."""
_REPLACED = "(?:" + "|".join(_REPLACEMENT_FORMS) + ")"


def char_forms(char: str) -> list[str]:
    """Every spelling of one character (see the module docstring), each a pattern that
    starts with a literal character."""
    if char in PLAIN:
        return [re.escape(char)]
    code = ord(char)
    forms = [re.escape(char)]
    for amp in _AMPS:
        forms += [f"{amp}{name};" for name in _NAMED.get(char, ())]
        forms.append(f"{amp}#(?:0*{code}|[xX]0*{_hex(code)});")
    forms.append("".join(f"{_PERCENT}{_hex(byte, 2)}" for byte in char.encode("utf-8")))
    if code > 0x7F:
        forms += _legacy_forms(char)
    if char == " ":
        forms.append(r"\+")
    if char in _JSON_SHORT:
        forms.append(_ESCAPES + re.escape(_JSON_SHORT[char][1:]))
    units = char.encode("utf-16-be")
    forms.append(
        "".join(
            _ESCAPES + "u" + _hex(int.from_bytes(units[i : i + 2], "big"), 4)
            for i in range(0, len(units), 2)
        )
    )
    return forms


def _legacy_forms(char: str) -> list[str]:
    """A non-ASCII character as a legacy charset page submits it or `escape()` writes it: its
    bytes in each charset that has it, the numeric reference `&#N;` percent-encoded (what a
    form sends for a character its charset lacks), and `%uXXXX` per UTF-16 unit."""
    encoded: set[bytes] = set()
    for charset in LEGACY_CHARSETS:
        try:
            encoded.add(char.encode(charset))
        except UnicodeEncodeError:
            continue
    encoded.discard(char.encode("utf-8"))
    forms = ["".join(_byte_form(byte) for byte in raw) for raw in sorted(encoded)]
    for lossy in sorted({raw.decode("utf-8", errors="replace") for raw in encoded}):
        forms += _lossy_forms(lossy)
    forms.append(f"{_PERCENT}26{_PERCENT}230*{ord(char)}{_PERCENT}3[bB]")
    units = char.encode("utf-16-be")
    if ord(char) > 0xFF:
        forms.append(
            "".join(
                f"{_PERCENT}[uU]{_hex(int.from_bytes(units[i : i + 2], 'big'), 4)}"
                for i in range(0, len(units), 2)
            )
        )
    return forms


def _lossy_forms(text: str) -> list[str]:
    """Legacy bytes read back as UTF-8 by a reader that replaces what is not UTF-8 (a HAR's
    decoded query string: `P` U+FFFD `<`), one alternative per spelling of the first character
    so each starts with a literal one (see `encoded_pattern`)."""
    if not text:
        return []
    rest = "".join(_REPLACED if c == "\ufffd" else re.escape(c) for c in text[1:])
    firsts = _REPLACEMENT_FORMS if text[0] == "\ufffd" else (re.escape(text[0]),)
    return [first + rest for first in firsts]


def _byte_form(byte: int) -> str:
    """One byte of a legacy charset in a URL: `%XX`; an ASCII byte (the trail byte of a
    two-byte character) also as itself, since URL encoders leave letters and digits raw."""
    escaped = f"{_PERCENT}{_hex(byte, 2)}"
    if byte > 0x7F:
        return escaped
    return f"(?:{escaped}|{re.escape(chr(byte))})"


def char_pattern(char: str) -> str:
    """One character in any of its spellings, as one group."""
    forms = char_forms(char)
    return forms[0] if len(forms) == 1 else "(?:" + "|".join(forms) + ")"


def encoded_pattern(value: str) -> str:
    """The value with every character in any of its spellings.

    The first character's spellings are the top-level alternatives, each followed by the
    rest: every alternative then starts with a literal character, so the regex engine skips
    ahead to the few characters a spelling can start with instead of trying each position
    (a secret with no plain run to search for first is scanned this way)."""
    rest = "".join(char_pattern(char) for char in value[1:])
    return "|".join(form + rest for form in char_forms(value[0]))


def anchor(value: str) -> str | None:
    """The longest run of never-escaped characters, or None when shorter than `ANCHOR_MIN`."""
    runs = re.findall(r"[A-Za-z0-9._-]+", value)
    best = max(runs, key=len, default="")
    return best if len(best) >= ANCHOR_MIN else None


def base64_cores(raw: bytes) -> list[str]:
    """The base64 characters fixed by `raw` alone at each alignment (0, 1, 2 bytes before it),
    standard alphabet; at least `BASE64_MIN` long."""
    cores: list[str] = []
    for lead in range(3):
        encoded = base64.b64encode(bytes(lead) + raw).decode("ascii")
        start = -(-8 * lead // 6)
        end = 8 * (lead + len(raw)) // 6
        core = encoded[start:end]
        if len(core) >= BASE64_MIN and core not in cores:
            cores.append(core)
    return cores


@dataclass(frozen=True)
class Base64Core:
    """One alignment's fixed characters, as a pattern in either alphabet.

    `+`/`/` at the ends (three spellings each) are left out of the pattern so it starts and
    ends with a plain character (the regex engine then finds it as fast as a substring); the
    scrub takes `reach` neighbour characters on each side instead: the left-out ones and the
    partial character."""

    pattern: re.Pattern[str]
    anchor: str
    reach: tuple[int, int]

    @classmethod
    def build(cls, core: str) -> Base64Core | None:
        trimmed = core.strip("+/")
        if len(trimmed) < BASE64_MIN:
            return None
        lead = len(core) - len(core.lstrip("+/"))
        tail = len(core) - len(core.rstrip("+/"))
        pattern = "".join(_B64_SPECIAL.get(c, c) for c in trimmed)
        anchor = max(re.findall(r"[A-Za-z0-9]+", trimmed), key=len)
        return cls(re.compile(pattern), anchor, (lead + 1, tail + 1))

    def scrub(self, text: str, replacement: str) -> str:
        """Replace each match, its reach and its padding."""
        if self.anchor not in text:
            return text
        out: list[str] = []
        last = 0
        for match in self.pattern.finditer(text):
            start, end = match.start(), match.end()
            floor, ceiling = max(last, start - self.reach[0]), min(len(text), end + self.reach[1])
            while start > floor and text[start - 1] in _B64_EDGE:
                start -= 1
            while end < ceiling and text[end] in _B64_EDGE:
                end += 1
            while end < len(text) and text[end] == "=":
                end += 1
            out += [text[last:start], replacement]
            last = end
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)


def base64_matchers(value: str) -> tuple[Base64Core, ...]:
    """The value's base64 cores that are long enough to match."""
    built = (Base64Core.build(core) for core in base64_cores(value.encode("utf-8")))
    return tuple(core for core in built if core is not None)


@dataclass(frozen=True)
class Matcher:
    """Every spelling of one secret, precomputed when it is registered."""

    value: str
    replacement: str
    anchor: str | None
    encoded: re.Pattern[str]
    base64: tuple[Base64Core, ...]

    @classmethod
    def build(cls, value: str, replacement: str) -> Matcher:
        return cls(
            value=value,
            replacement=replacement,
            anchor=anchor(value),
            encoded=re.compile(encoded_pattern(value)),
            base64=base64_matchers(value),
        )

    @property
    def needles(self) -> tuple[str, ...]:
        """Plain substrings one of which every spelling contains; empty when the value has
        no anchor (then only its full pattern can tell)."""
        return (self.anchor, *(core.anchor for core in self.base64)) if self.anchor else ()

    def scrub(self, text: str) -> str:
        """`text` with every spelling of the value replaced by `replacement`."""
        if self.anchor is None or self.anchor in text:
            text = self.encoded.sub(lambda _m: self.replacement, text)
        for core in self.base64:
            text = core.scrub(text, self.replacement)
        return text


class Secrets:
    """The matchers of a set of values, with a cheap test for text that holds none of them.

    Why: the common case is output that holds no secret at all, and a 1 MB answer should
    cost a few substring searches to prove it, not a regex pass per value and spelling.
    """

    def __init__(self, matchers: Iterable[Matcher]) -> None:
        self.order = tuple(sorted(matchers, key=lambda m: len(m.value), reverse=True))
        needles = {needle for m in self.order for needle in m.needles}
        self._needles = tuple(sorted(needles, key=len, reverse=True))
        unanchored = [m for m in self.order if not m.needles]
        alternatives = [m.encoded.pattern for m in unanchored]
        alternatives += [core.pattern.pattern for m in unanchored for core in m.base64]
        self._unanchored = re.compile("|".join(alternatives)) if alternatives else None

    def found(self, text: str) -> bool:
        """Whether some value may be in `text` (a cheap test that can say yes wrongly)."""
        if any(needle in text for needle in self._needles):
            return True
        return self._unanchored is not None and self._unanchored.search(text) is not None

    def scrub(self, text: str) -> str:
        """`text` with every spelling of every value replaced, longest value first."""
        if not text or not self.found(text):
            return text
        for matcher in self.order:
            text = matcher.scrub(text)
        return text
