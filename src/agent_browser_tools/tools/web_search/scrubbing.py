"""Removing a resolved API key from any text before it leaves the tool."""

from __future__ import annotations

from agent_browser_tools.redaction import REDACTED


def scrub(text: str, *secrets: str) -> str:
    """`text` with every occurrence of each non-empty secret replaced."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return text
