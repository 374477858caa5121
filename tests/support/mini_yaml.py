"""A strict reader for the small YAML subset the README's client snippets use.

No YAML parser is installed and the project does not add one for two snippets, so the YAML
blocks are checked structurally: block mappings (`key: value` / `key:` + a deeper block),
block sequences (`- item`, an item may open a mapping), flow lists of JSON strings
(`["serve"]`), and plain scalars. Anything else (tabs, bad indentation, a line that is not
`key: value`, a duplicate key, quoting or YAML syntax outside the subset) is an error, so a
snippet this accepts is valid YAML meaning the value returned.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_PLAIN = re.compile(r"[A-Za-z0-9_./~$-][A-Za-z0-9_ ./~$@-]*")
_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_.$-]*")


class YamlSubsetError(ValueError):
    pass


@dataclass(frozen=True)
class _Line:
    indent: int
    text: str
    number: int


def parse(text: str) -> Any:
    lines = _lines(text)
    if not lines:
        raise YamlSubsetError("empty document")
    value, pos = _block(lines, 0, lines[0].indent)
    if pos != len(lines):
        raise YamlSubsetError(f"line {lines[pos].number}: unexpected indentation")
    return value


def _lines(text: str) -> list[_Line]:
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if "\t" in raw:
            raise YamlSubsetError(f"line {number}: tab")
        stripped = raw.strip()
        if stripped and not stripped.startswith("#"):
            out.append(_Line(len(raw) - len(raw.lstrip(" ")), stripped, number))
    return out


def _block(lines: list[_Line], pos: int, indent: int) -> tuple[Any, int]:
    if lines[pos].text.startswith("- ") or lines[pos].text == "-":
        return _sequence(lines, pos, indent)
    return _mapping(lines, pos, indent)


def _sequence(lines: list[_Line], pos: int, indent: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    while pos < len(lines) and lines[pos].indent == indent and lines[pos].text.startswith("- "):
        line = lines[pos]
        item = line.text[2:].strip()
        if ":" in item and not item.startswith("["):
            # `- key: value` opens a mapping whose keys sit two columns deeper.
            nested = [*lines[:pos], _Line(indent + 2, item, line.number), *lines[pos + 1 :]]
            value, pos = _mapping(nested, pos, indent + 2)
            lines = nested
        else:
            value, pos = _scalar(item, line.number), pos + 1
        items.append(value)
    return items, pos


def _mapping(lines: list[_Line], pos: int, indent: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    while pos < len(lines) and lines[pos].indent == indent:
        line = lines[pos]
        key, sep, rest = line.text.partition(":")
        if not sep or not _KEY.fullmatch(key) or (rest and not rest.startswith(" ")):
            raise YamlSubsetError(f"line {line.number}: not `key: value`: {line.text!r}")
        if key in out:
            raise YamlSubsetError(f"line {line.number}: duplicate key {key!r}")
        pos += 1
        if rest.strip():
            out[key] = _scalar(rest.strip(), line.number)
        elif pos < len(lines) and lines[pos].indent > indent:
            out[key], pos = _block(lines, pos, lines[pos].indent)
        elif pos < len(lines) and lines[pos].indent == indent and lines[pos].text[:2] == "- ":
            out[key], pos = _sequence(lines, pos, indent)
        else:
            out[key] = None
    if pos < len(lines) and lines[pos].indent > indent:
        raise YamlSubsetError(f"line {lines[pos].number}: unexpected indentation")
    return out, pos


def _scalar(text: str, number: int) -> Any:
    if text.startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise YamlSubsetError(f"line {number}: bad flow list {text!r}") from exc
        if not all(isinstance(item, str) for item in value):
            raise YamlSubsetError(f"line {number}: flow list of strings only")
        return value
    if text in ("true", "false"):
        return text == "true"
    if text.isdigit():
        return int(text)
    if text.startswith('"'):
        try:
            loaded: str = json.loads(text)
        except json.JSONDecodeError as exc:
            raise YamlSubsetError(f"line {number}: bad quoted string {text!r}") from exc
        return loaded
    if not _PLAIN.fullmatch(text) or " #" in text:
        raise YamlSubsetError(f"line {number}: scalar outside the subset: {text!r}")
    return text
