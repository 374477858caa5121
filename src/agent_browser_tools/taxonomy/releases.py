"""The engine releases the taxonomy knows: the one place that names them (pure).

`TARGET_ENGINE_VERSION` is the release this package is written for (`pyproject.toml` pins the
`agent-browser-cli` wheel to it; a unit test keeps the two in step); `SUPPORTED_ENGINE_VERSIONS`
are the releases whose command surface the taxonomy was checked against, each with its
capability baseline (`baselines/`). `engine.target` re-exports them for the engine layer.
"""

from __future__ import annotations

import re

TARGET_ENGINE_VERSION = "0.39.4"
"""The upstream release whose command surface and envelopes this package is written for."""

MIN_ENGINE_VERSION = "0.39.0"
"""Oldest engine accepted: earlier releases lack envelope fields and flags the rules rely on."""

ENGINE_WHEEL = "agent-browser-cli"
"""PyPI distribution that ships the engine binary."""

SUPPORTED_ENGINE_VERSIONS = ("0.39.4", "0.41.2")
"""The releases whose command surface the taxonomy was checked against, each with its
capability baseline (`taxonomy/baselines/`): the PyPI wheel's, and npm's `agent-browser`."""

ENGINE_NPM = "agent-browser"
"""The npm package most users install the engine from."""


def surface_of(version: tuple[int, int, int] | None) -> str:
    """The supported release whose command surface an engine of `version` is read with: its
    own when supported, else the newest supported one older than it (what it surely has),
    else the oldest. Unknown: the target release."""
    if version is None:
        return TARGET_ENGINE_VERSION
    older = [v for v in SUPPORTED_ENGINE_VERSIONS if (parse_version(v) or ()) <= version]
    return (
        max(older, key=lambda v: parse_version(v) or ()) if older else SUPPORTED_ENGINE_VERSIONS[0]
    )


def supported(version: tuple[int, int, int] | None) -> bool:
    """Whether the engine is one of `SUPPORTED_ENGINE_VERSIONS`."""
    return version is not None and version_text(version) in SUPPORTED_ENGINE_VERSIONS


def support_note(version: tuple[int, int, int] | None) -> str:
    """What to tell a user about this engine version, in one sentence."""
    if supported(version):
        return "supported"
    listed = ", ".join(SUPPORTED_ENGINE_VERSIONS)
    shown = version_text(version) if version is not None else "an unknown version"
    return (
        f"{shown} is not a supported engine (supported: {listed}); its commands and flags are "
        f"read as {surface_of(version)}'s, and anything newer is refused. Install a supported "
        f"one: `pip install {ENGINE_WHEEL}=={TARGET_ENGINE_VERSION}`, or `npm install -g "
        f"{ENGINE_NPM}@{SUPPORTED_ENGINE_VERSIONS[-1]}` and point AGENT_BROWSER_TOOLS_BIN at it."
    )


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
