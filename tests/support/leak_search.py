"""Searching everything the wrapper produced for secrets: results, files, the journal, logs.

Shared by the planted-secret tests. `spellings` produces, independently of the wrapper's
matchers (stdlib encoders and the forms browsers, URL parsers and JSON encoders are known to
write), every encoding of a value a leak could take, so a search finds a secret in whatever
form it escaped.
"""

from __future__ import annotations

import base64
import html
import json
import re
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult

PATH_KEYS = frozenset({"observationPath", "fullOutputPath", "absolutePath"})


class Recorder:
    """Every result of a conversation, for the final search."""

    def __init__(self, tools: BrowserTools) -> None:
        self.tools = tools
        self.results: list[tuple[list[str], ToolResult]] = []

    async def call(self, *args: str, **params: Any) -> ToolResult:
        result = await self.tools.call("agent_browser", {"args": list(args), **params})
        self.results.append((list(args), result))
        return result

    async def ok(self, *args: str, **params: Any) -> ToolResult:
        result = await self.call(*args, **params)
        assert not result.is_error, f"{args[:3]} failed: {result.text[:2000]}"
        return result


def _escaped(char: str) -> bool:
    """Escapers leave letters, digits and `-_.` alone."""
    return not (char.isalnum() or char in "-_.")


def _go_json(value: str) -> str:
    inner = json.dumps(value)[1:-1]
    return inner.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _lower_hex(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), text)


def base64_pieces(value: str) -> dict[str, str]:
    """Base64 text that encodes only the value's bytes, at each alignment inside a longer blob
    and in both alphabets: found in any blob that carries the value."""
    pieces: dict[str, str] = {}
    raw = value.encode()
    for lead in range(3):
        encoded = base64.b64encode(b"\x00" * lead + raw).decode()
        piece = encoded[(lead * 4 + 2) // 3 : -4]
        pieces[f"base64 at offset {lead}"] = piece
        pieces[f"base64url at offset {lead}"] = piece.replace("+", "-").replace("/", "_")
    return pieces


def js_escape(value: str) -> str:
    """JavaScript's `escape()`: `%XX` below U+0100, `%uXXXX` per UTF-16 unit above."""
    out = []
    for char in value:
        if char.isascii() and (char.isalnum() or char in "@*_+-./"):
            out.append(char)
        elif ord(char) < 0x100:
            out.append(f"%{ord(char):02X}")
        else:
            units = char.encode("utf-16-be")
            out += [f"%u{units[i : i + 2].hex().upper()}" for i in range(0, len(units), 2)]
    return "".join(out)


def legacy_form(value: str, charset: str = "cp1252") -> str:
    """A GET form's value from a page in a legacy `charset`: a character the charset lacks
    is sent as its numeric reference, percent-encoded, as browsers do."""
    return quote_plus(value, safe="", encoding=charset, errors="xmlcharrefreplace")


def spellings(value: str) -> dict[str, str]:
    """Raw, HTML-escaped, percent-encoded (%20 and +, UTF-8 and windows-1252), JSON-escaped,
    `escape()`d and base64 forms."""
    forms = {
        "raw": value,
        "html escaped": html.escape(value),
        "html text node": html.escape(value, quote=False),
        "html attribute (&#34;)": html.escape(value, quote=False).replace('"', "&#34;"),
        "html numeric": "".join(f"&#{ord(c)};" if _escaped(c) else c for c in value),
        "html hex": "".join(f"&#x{ord(c):x};" if _escaped(c) else c for c in value),
        "percent %20": quote(value, safe=""),
        "percent lower hex": _lower_hex(quote(value, safe="")),
        "percent +": quote_plus(value, safe=""),
        "encodeURIComponent": quote(value, safe="-_.!~*'()"),
        "url parser query": value.replace("<", "%3C").replace('"', "%22").replace(" ", "%20"),
        "percent twice": quote(quote(value, safe=""), safe=""),
        "percent + windows-1252": legacy_form(value),
        "percent windows-1252 lower hex": _lower_hex(legacy_form(value)),
        "js escape()": js_escape(value),
        "json": json.dumps(value)[1:-1],
        "json \\u003c": _go_json(value),
        "json of html": json.dumps(html.escape(value))[1:-1],
        "json inside json": json.dumps(json.dumps(value))[1:-1],
    }
    return {**forms, **base64_pieces(value)}


def needles(label: str, value: str) -> dict[str, str]:
    """Every spelling of `value`, labelled for a leak report."""
    return {f"{label} ({form})": text for form, text in spellings(value).items()}


def named_paths(value: Any) -> Iterator[Path]:
    """Files a result's details name (spills, full outputs, saved artifacts)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in PATH_KEYS and isinstance(item, str) and item:
                yield Path(item)
            else:
                yield from named_paths(item)
    elif isinstance(value, list):
        for item in value:
            yield from named_paths(item)


def sqlite_rows(path: Path) -> str:
    """Every row of every table, as text (reads through the WAL like any reader)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        query = "SELECT name FROM sqlite_master WHERE type = 'table'"
        tables = [row[0] for row in conn.execute(query)]
        dumped = [repr(conn.execute(f'SELECT * FROM "{name}"').fetchall()) for name in tables]
        dumped += list(conn.iterdump())
    finally:
        conn.close()
    assert "events" in tables, f"{path} has no journal events table"
    return "\n".join(dumped)


def is_sqlite(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(16) == b"SQLite format 3\x00"


def file_blobs(root: Path, label: str, skip: Path | None = None) -> dict[str, bytes]:
    """Every regular file under `root` (SQLite files also row by row)."""
    blobs: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        if skip is not None and skip in path.parents:
            continue
        name = f"{label}:{path.relative_to(root)}"
        blobs[name] = path.read_bytes()
        if is_sqlite(path):
            blobs[f"{name} (rows)"] = sqlite_rows(path).encode()
    return blobs


def result_blobs(recorder: Recorder) -> tuple[dict[str, bytes], set[Path]]:
    """Each result's text and details, and the files they name."""
    blobs: dict[str, bytes] = {}
    named: set[Path] = set()
    for index, (args, result) in enumerate(recorder.results):
        where = f"result {index} ({' '.join(args[:3])[:40]})"
        blobs[f"{where} text"] = result.text.encode()
        blobs[f"{where} details"] = json.dumps(result.details, default=str).encode()
        named.update(named_paths(result.details))
    return blobs, named


def find_leaks(blobs: Mapping[str, bytes], wanted: Mapping[str, str]) -> list[str]:
    """Where each needle occurs, with some context."""
    leaks = []
    for where, blob in blobs.items():
        for label, needle in wanted.items():
            at = blob.find(needle.encode())
            if at >= 0:
                context = blob[max(at - 80, 0) : at + len(needle) + 20].decode(errors="replace")
                leaks.append(f"{label} in {where}: ...{context}...")
    return leaks
