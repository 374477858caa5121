"""Fast scans that tell when text needs no redaction rule at all (pure, no imports).

Why: a snapshot of a large page holds thousands of names, and `redaction` runs its rules
only on text holding one of the words they need. Asking the case-blind pattern once per name
(or once over half a megabyte of tree) costs more than the engine's whole answer; plain
substring lookups on lower-cased text answer the same question exactly, and one scan over
all names joined answers it for the whole table.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

_WORDS = (
    "://", "bearer", "basic", "token", "eyj", "passw", "secret", "apikey", "api_key",
    "api-key", "xox", "akia", "aiza", "glpat", "sk-", "sk_", "pk-", "pk_", "rk-", "rk_",
    "ghp-", "ghp_", "gho-", "gho_", "ghu-", "ghu_", "ghs-", "ghs_", "npm-", "npm_",
)  # fmt: skip
"""`redaction._MAYBE`'s words, lower case, every spelling: `in` finds them in a long text
much faster than the case-blind pattern does."""
_TO_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""The only characters outside ASCII that a case-blind pattern matches to an ASCII letter."""


def maybe_secret(text: str) -> bool:
    """`redaction._MAYBE.search(text)` as a yes/no, exactly: lower case and the four letters
    above folded, each word looked up as a plain substring. A long text (a dense page's
    tree) is asked line by line, so lines read before cost a lookup (no word holds a line
    break)."""
    if len(text) > LONG_TEXT:
        return not all_plain(text.split("\n"))
    return _has_word(text)


LONG_TEXT = 64 * 1024


def _has_word(text: str) -> bool:
    if not text.isascii() and any(c in text for c in "\u0130\u0131\u017f\u212a"):
        text = text.translate(_TO_ASCII)
    low = text.lower()
    return any(word in low for word in _WORDS)


def all_plain(texts: Iterable[str]) -> bool:
    """Whether no text needs any rule: one search over all of them (the rules' words hold no
    NUL, so a hit lies inside one text). Thousands of ref names cost one scan, not one each,
    and a name found plain before (the same page read again) costs a lookup."""
    fresh = [text for text in texts if text not in _PLAIN]
    if not fresh:
        return True
    if _has_word("\x00".join(fresh)):
        return False
    if len(_PLAIN) + len(fresh) > PLAIN_MEMORY:
        _PLAIN.clear()
    _PLAIN.update(dict.fromkeys(fresh))
    return True


PLAIN_MEMORY = 200_000
"""Texts remembered as plain (a pure verdict; cleared whole when full)."""
_PLAIN: dict[str, None] = {}


def sensitive_key(key: str, rule: re.Pattern[str]) -> bool:
    """`rule.search(key)`, remembered: a table repeats the same few keys thousands of times."""
    return _searched(key, rule)


@functools.lru_cache(maxsize=512)
def _searched(key: str, rule: re.Pattern[str]) -> bool:
    return rule.search(key) is not None


TABLE_SIZE = 64
_SCALARS = (int, float, bool, type(None))


def plain_table(value: Mapping[Any, Any], rule: re.Pattern[str]) -> dict[Any, Any] | None:
    """A copy of a large table of flat records (a snapshot's ref map) when no key is
    sensitive and no text needs a rule (one scan for all); None to walk it item by item.
    The records themselves are shared, not copied: flat records of plain values that need
    no rule are what the answer shows, and nothing after redaction changes them."""
    texts: list[str] = []
    shapes: set[tuple[Any, ...]] = set()
    out: dict[Any, Any] = {}
    for name, record in value.items():
        if type(record) is not dict and not isinstance(record, Mapping):
            return None
        for item in record.values():
            kind = type(item)
            if kind is str:
                texts.append(item)
            elif kind not in _SCALARS and not isinstance(item, _SCALARS):
                return None  # nested (or a str subclass): walked item by item
        shapes.add(tuple(record))
        out[name] = record
    keys = {str(key) for shape in shapes for key in shape}
    if any(sensitive_key(k, rule) for k in keys) or not all_plain(texts):
        return None
    return out
