"""Redaction of native (`--json false`) cookie and storage output, where text lines stand in
for the JSON entries `redaction.redact_data` reads (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from agent_browser_tools.redaction import REDACTED, redact_text, storage_value_verdict


def redact_native_text(text: str, path: Sequence[str], *, single_key: bool = False) -> str:
    """Native (`--json false`) cookie and storage output: `name=value` / `key: value` lines.

    Cookie values are always hidden; storage values follow the same benign-value policy as
    JSON results. A single-key storage read hides the whole value, embedded newlines included.
    Text cannot prove which line belongs to which entry, so this is conservative, and JSON
    mode remains the unambiguous boundary for sensitive storage.
    """
    head = tuple(path[:1])
    if head == ("cookies",):
        return "\n".join(_cookie_line(line) for line in text.split("\n"))
    if head != ("storage",) or not text:
        return redact_text(text)
    if single_key and ": " in text:
        key, _, value = text.partition(": ")
        if storage_value_verdict(key, value.rstrip("\n")):
            return f"{key}: {REDACTED}" + ("\n" if text.endswith("\n") else "")
        return text
    return "\n".join(_storage_line(line) for line in text.split("\n"))


def redact_native_batch_text(text: str, row_paths: Sequence[Sequence[str]]) -> str:
    """Native `batch` output: rows' text is concatenated with no per-row boundary.

    The batch argv, not the text, picks the rules: when any row touches cookies (or storage),
    every line gets the cookie (or storage) line rule, so a `name=value` cookie line cannot
    pass as ordinary output of another row.
    """
    heads = {tuple(path[:1]) for path in row_paths}
    out = text
    for head in (("cookies",), ("storage",)):
        if head in heads:
            out = redact_native_text(out, head)
    return redact_text(out)


def _cookie_line(line: str) -> str:
    name, sep, value = line.partition("=")
    if not sep or not value.strip():
        return redact_text(line)
    return f"{name}={REDACTED}"


def _storage_line(line: str) -> str:
    key, sep, value = line.partition(": ")
    if not sep:
        return redact_text(line)
    return f"{key}: {REDACTED}" if storage_value_verdict(key, value) else f"{key}: {value}"
