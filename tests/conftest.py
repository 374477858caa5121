"""Shared pytest wiring for the whole test tree.

Keep this file small: fixtures and hooks live in ``tests/support/`` and are only imported
here, because pytest discovers fixtures and hooks by name in a conftest's namespace.
"""

from __future__ import annotations

# Fake engine: ``fake_engine`` gives a scriptable stand-in binary for faults and argv checks.
from tests.support.fake import fake_engine

# Real engine + fixture site: the fixtures ``fixture_site``, ``engine_binary``,
# ``engine_env`` and ``real_session``, and the leak guard hooks that fail the run when an
# engine daemon or Chromium started by it is still alive at the end.
from tests.support.real_engine import (
    engine_binary,
    engine_env,
    fixture_site,
    pytest_sessionfinish,
    pytest_sessionstart,
    real_session,
)

# BrowserTools on the real engine: ``browser_tools`` (closed at teardown).
from tests.support.tools import browser_tools

__all__ = [
    "browser_tools",
    "engine_binary",
    "engine_env",
    "fake_engine",
    "fixture_site",
    "pytest_sessionfinish",
    "pytest_sessionstart",
    "real_session",
]
