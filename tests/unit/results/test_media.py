"""Media types come from a file's first bytes: recordings, archives and JSON files too."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.results.media import media_type


@pytest.mark.parametrize(
    ("content", "media"),
    [
        (b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm", "video/webm"),
        (b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x88matroska", "video/x-matroska"),
        (b"PK\x03\x04\x14\x00\x00\x00", "application/zip"),
        (b'{\n  "cookies": [],\n  "origins": []\n}\n', "application/json"),  # state save
        (b'{"traceEvents":[', "application/json"),  # trace stop
        (b"\xef\xbb\xbf  [1, 2]", "application/json"),  # BOM and blanks before an array
        (b"{", None),  # truncated: a lone brace proves nothing
        (b"id,name,qty\n1,widget,3\n", None),  # a CSV download: unknown
        (b"", None),
    ],
)
def test_the_header_names_the_type_whatever_the_suffix(
    tmp_path: Path, content: bytes, media: str | None
) -> None:
    path = tmp_path / "misnamed.png"
    path.write_bytes(content)
    assert media_type(path) == media


def test_an_unreadable_file_has_no_type(tmp_path: Path) -> None:
    assert media_type(tmp_path / "absent.webm") is None
    assert media_type(tmp_path) is None  # a directory


def test_random_bytes_that_open_with_a_brace_are_not_json(tmp_path: Path) -> None:
    """An encrypted state file is random bytes: about one in a hundred starts with `{` or `[`
    (the real-engine artifact test once saw one named application/json)."""
    import random

    rng = random.Random(28)
    path = tmp_path / "site.json.enc"
    for start in (b"{", b"[", b" {"):
        for _ in range(200):
            path.write_bytes(start + rng.randbytes(63))
            assert media_type(path) is None
    path.write_bytes('{"name": "Zoë", "rows": [1, 2]}'.encode())  # text, not ASCII only
    assert media_type(path) == "application/json"
