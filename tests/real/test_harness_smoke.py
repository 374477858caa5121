"""Smoke tests of the real-engine harness: fixture site, sessions and the engine itself.

If these fail, every other real-engine test is suspect, so they check the basics the others
rely on: pages load with the roles we wrote, downloads land where asked, the slow route is
slow, and the planted secrets really reach the browser.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.support.fixture_server import (
    API_KEY_LOCAL_STORAGE,
    AUTH_TOKEN_COOKIE,
    JWT_LOCAL_STORAGE,
    REPORT_TEXT,
    SESSION_ID_COOKIE,
    FixtureServer,
)
from tests.support.real_engine import RealSession

pytestmark = pytest.mark.real_engine


def test_form_controls_appear_as_refs_with_their_roles(
    fixture_site: FixtureServer, real_session: RealSession
) -> None:
    """Every labelled control of form.html must be addressable by (role, accessible name)."""
    opened = real_session.ok("open", fixture_site.url("form.html"))
    assert opened["title"] == "Profile Form"

    snapshot = real_session.ok("snapshot", "-i")
    refs = {(ref["role"], ref["name"]) for ref in snapshot["refs"].values()}
    expected = {
        ("textbox", "Full name"),
        ("textbox", "Email"),
        ("textbox", "Password"),
        ("spinbutton", "Age"),
        ("combobox", "Flavor"),
        ("listbox", "Toppings"),
        ("checkbox", "Subscribe"),
        ("radio", "Small"),
        ("radio", "Medium"),
        ("radio", "Large"),
        ("textbox", "Comments"),
        ("textbox", "Rich notes"),
        ("button", "Attachment"),  # Chromium exposes a file input as a button
        ("button", "Submit"),
    }
    assert expected <= refs, f"missing: {sorted(expected - refs)}"
    # Refs are also written into the snapshot text that an agent reads.
    assert '- textbox "Full name" [ref=' in snapshot["snapshot"]


def test_download_lands_at_the_requested_path(
    fixture_site: FixtureServer, real_session: RealSession, tmp_path: Path
) -> None:
    """``download`` saves the file at exactly the given path, creating missing parents."""
    real_session.ok("open", fixture_site.url("downloads.html"))
    target = tmp_path / "nested" / "report.txt"

    data = real_session.ok("download", "a[download]", str(target))

    assert data["path"] == str(target)
    assert target.read_text(encoding="utf-8") == REPORT_TEXT


def test_slow_page_takes_at_least_its_delay(
    fixture_site: FixtureServer, real_session: RealSession
) -> None:
    """``open`` waits for the delayed response (a lower bound only: no timing ceilings)."""
    real_session.ok("open", fixture_site.url("clean.html"))  # browser launch not timed
    delay_s = 1.5

    started = time.monotonic()
    opened = real_session.ok("open", fixture_site.url(f"slow.html?ms={int(delay_s * 1000)}"))
    elapsed = time.monotonic() - started

    assert opened["title"] == "Slow Page"
    assert elapsed >= delay_s


def test_planted_secrets_reach_the_browser(
    fixture_site: FixtureServer, real_session: RealSession
) -> None:
    """storage.html must plant exactly the exported constants, or redaction tests mean nothing."""
    real_session.ok("open", fixture_site.url("storage.html"))

    cookies = {c["name"]: c["value"] for c in real_session.ok("cookies", "get")["cookies"]}
    assert cookies["session_id"] == SESSION_ID_COOKIE
    assert cookies["auth_token"] == AUTH_TOKEN_COOKIE

    local = real_session.ok("storage", "local")["data"]
    assert local == {"jwt": JWT_LOCAL_STORAGE, "theme": "dark", "api_key": API_KEY_LOCAL_STORAGE}
