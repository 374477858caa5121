"""What a file is, from its first bytes (bounded reads, never the suffix).

Why: a `.png` the engine wrote as JPEG, a text file named `.png`, or a HAR named `.pdf` must not
be described by its name. Recognition is of the header only, never a full-file validation;
unknown, unreadable or truncated headers give None.
"""

from __future__ import annotations

import codecs
import struct
from pathlib import Path

HEADER_BYTES = 64
"""Enough of a file's start to recognise the formats below."""
_EBML = b"\x1a\x45\xdf\xa3"
_JSON_STARTS = (b"{", b"[")


def media_type(path: Path) -> str | None:
    """PNG, JPEG, GIF, WebP, PDF, WebM (recordings), ZIP, or JSON (saved state, HAR, traces,
    CPU profiles: the first non-blank byte opens an object or array)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEADER_BYTES)
    except OSError:
        return None
    return _image_type(head) or _document_type(head)


def _image_type(head: bytes) -> str | None:
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _document_type(head: bytes) -> str | None:
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    if head.startswith(_EBML):
        # Matroska and WebM share the EBML header; the DocType says which.
        return "video/webm" if b"webm" in head else "video/x-matroska"
    if head.startswith(b"PK\x03\x04"):
        return "application/zip"
    stripped = head.lstrip(b" \t\r\n\xef\xbb\xbf")
    if stripped[:1] in _JSON_STARTS and len(stripped) > 1 and _text(head):
        return "application/json"
    return None


_CONTROL = frozenset(range(32)) - {9, 10, 13}


def _text(head: bytes) -> bool:
    """Whether `head` reads as UTF-8 text without control bytes. Why: one in a hundred
    encrypted (random) files starts with `{` or `[`; random bytes are never valid text."""
    if any(byte in _CONTROL for byte in head):
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return False
    return True


def image_dimensions(path: Path) -> tuple[str, int, int] | None:
    """(mime type, width, height) from a PNG/JPEG/WebP header, without decoding pixels."""
    try:
        with path.open("rb") as handle:
            head = handle.read(64 * 1024)
    except OSError:
        return None
    if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24:
        width, height = struct.unpack(">II", head[16:24])
        return "image/png", width, height
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP" and head[12:16] == b"VP8X":
        width = int.from_bytes(head[24:27], "little") + 1
        height = int.from_bytes(head[27:30], "little") + 1
        return "image/webp", width, height
    if head.startswith(b"\xff\xd8"):
        return _jpeg_dimensions(head)
    return None


def _jpeg_dimensions(head: bytes) -> tuple[str, int, int] | None:
    index = 2
    while index + 9 < len(head):
        if head[index] != 0xFF:
            return None
        marker = head[index + 1]
        length = struct.unpack(">H", head[index + 2 : index + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", head[index + 5 : index + 9])
            return "image/jpeg", width, height
        index += 2 + length
    return None
