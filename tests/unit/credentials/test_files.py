"""Recorded files are rewritten in place, atomically, keeping their permission bits."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from agent_browser_tools.credentials.files import scrub_file
from agent_browser_tools.credentials.store import SecretStore
from agent_browser_tools.redaction import REDACTED

HAR = {
    "log": {
        "entries": [
            {
                "request": {
                    "url": "http://a.test/?token=tok-123456",
                    "headers": [{"name": "Authorization", "value": "Bearer abcdefSECRET123"}],
                },
                "response": {"status": 200},
            }
        ]
    }
}


def test_har_is_scrubbed_in_place_with_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "net.har"
    path.write_text(json.dumps(HAR), encoding="utf-8")
    path.chmod(0o640)
    outcome = scrub_file(path, "net.har", "har", SecretStore().scrub)
    assert outcome.status == "scrubbed" and outcome.warning() is None
    text = path.read_text(encoding="utf-8")
    assert "tok-123456" not in text and "abcdefSECRET123" not in text
    request = json.loads(text)["log"]["entries"][0]["request"]
    assert request["headers"][0]["value"] == REDACTED
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["net.har"]  # no temp file left


def test_a_clean_har_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "clean.har"
    original = json.dumps({"log": {"entries": [{"request": {"url": "http://a.test/"}}]}})
    path.write_text(original, encoding="utf-8")
    before = path.stat().st_mtime_ns
    outcome = scrub_file(path, "clean.har", "har", SecretStore().scrub)
    assert outcome.status == "unchanged"
    assert path.read_text(encoding="utf-8") == original and path.stat().st_mtime_ns == before


def test_an_unparseable_har_is_reported_by_name(tmp_path: Path) -> None:
    path = tmp_path / "broken.har"
    path.write_text('{"log": {"entries": [', encoding="utf-8")
    outcome = scrub_file(path, "broken.har", "har", SecretStore().scrub)
    assert outcome.status == "failed"
    warning = outcome.warning()
    assert warning is not None and "broken.har" in warning and "could not be scrubbed" in warning
    assert outcome.as_dict()["status"] == "failed"


def test_a_har_that_cannot_be_rewritten_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "net.har"
    path.write_text(json.dumps(HAR), encoding="utf-8")

    def refuse(src: str, dst: Path) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    outcome = scrub_file(path, "net.har", "har", SecretStore().scrub)
    assert outcome.status == "failed" and "cannot rewrite" in (outcome.reason or "")
    assert "net.har" in (outcome.warning() or "")
    assert [p.name for p in tmp_path.iterdir()] == ["net.har"]  # the temp file is removed


def test_trace_files_are_scrubbed_as_json_text_or_reported(tmp_path: Path) -> None:
    store = SecretStore()
    store.register_typed("typed-secret-9")
    trace = tmp_path / "trace.json"
    trace.write_text(
        json.dumps({"traceEvents": [{"args": {"data": "typed-secret-9 at https://u:pw99@h/"}}]}),
        encoding="utf-8",
    )
    assert scrub_file(trace, "trace.json", "trace", store.scrub).status == "scrubbed"
    text = trace.read_text(encoding="utf-8")
    assert "typed-secret-9" not in text and "pw99" not in text
    binary = tmp_path / "profile.bin"
    binary.write_bytes(b"\x00\x01typed-secret-9")
    outcome = scrub_file(binary, "profile.bin", "profile", store.scrub)
    assert outcome.status == "failed" and "profile.bin" in (outcome.warning() or "")
    missing = scrub_file(tmp_path / "gone.har", "gone.har", "har", store.scrub)
    assert missing.status == "failed" and "cannot read" in (missing.reason or "")
