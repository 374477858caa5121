"""The engine version this code targets, as the engine layer sees it.

The release facts live with the taxonomy (`taxonomy.releases`: which releases it knows); this
module re-exports them for discovery, `doctor` and `--version`.
"""

from __future__ import annotations

from agent_browser_tools.taxonomy.releases import (
    ENGINE_NPM,
    ENGINE_WHEEL,
    MIN_ENGINE_VERSION,
    SUPPORTED_ENGINE_VERSIONS,
    TARGET_ENGINE_VERSION,
    parse_version,
    support_note,
    supported,
    surface_of,
    version_text,
)

__all__ = [
    "ENGINE_NPM",
    "ENGINE_WHEEL",
    "MIN_ENGINE_VERSION",
    "SUPPORTED_ENGINE_VERSIONS",
    "TARGET_ENGINE_VERSION",
    "parse_version",
    "support_note",
    "supported",
    "surface_of",
    "version_text",
]
