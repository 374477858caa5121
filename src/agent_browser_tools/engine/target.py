"""The engine version this code targets: the one place that names it.

`pyproject.toml` pins the `agent-browser-cli` wheel to the same version; a unit test keeps the
two in step, and the command taxonomy was checked against this version's `--help`.
"""

from __future__ import annotations

import re

TARGET_ENGINE_VERSION = "0.39.4"
"""The upstream release whose command surface and envelopes this package is written for."""

MIN_ENGINE_VERSION = "0.39.0"
"""Oldest engine accepted: earlier releases lack envelope fields and flags the rules rely on."""

ENGINE_WHEEL = "agent-browser-cli"
"""PyPI distribution that ships the engine binary."""


_VERSION_RE = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def parse_version(text: str) -> tuple[int, int, int] | None:
    """Extract `(major, minor, patch)` from `agent-browser 0.39.4` style text, else None."""
    match = _VERSION_RE.search(text)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def version_text(version: tuple[int, int, int]) -> str:
    """Render a parsed version as `0.39.4`."""
    return ".".join(str(part) for part in version)
