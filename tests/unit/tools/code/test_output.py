"""Code cells: input validation, image selection, outputPath, stack lines, clamping (pure)."""

from __future__ import annotations

import asyncio
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.runtime import Runtime
from agent_browser_tools.sandbox.protocol import user_line
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.code import run as agent_browser_code
from agent_browser_tools.tools.code.cell import CodeCellHost, ImageHandle
from agent_browser_tools.tools.code.output import MAX_IMAGE_BYTES, load_images, write_output
from agent_browser_tools.tools.code.scope import BrowserRequest, CellIdentity
from agent_browser_tools.tools.code.spec import SPEC as CODE


def png_bytes(width: int = 2, height: int = 2) -> bytes:
    def chunk(kind: bytes, payload: bytes) -> bytes:
        body = kind + payload
        return struct.pack(">I", len(payload)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def _runtime(tmp_path: Path) -> Runtime:
    settings = Settings(env={"HOME": str(tmp_path)}, state_dir=tmp_path / "state")
    return Runtime(settings, conversation_id="conv-out", cwd=tmp_path)


def _handle(path: Path, handle_id: str = "img-1", mime: str | None = "image/png") -> ImageHandle:
    info = path.stat()
    return ImageHandle(handle_id, str(path), str(path), info.st_size, info.st_mtime_ns, mime)


# ----- input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"code": "1", "args": ["get", "url"]}, "await browser({ args: [...] })"),
        ({"code": "1", "stdin": "x"}, "browser({ args, stdin })"),
        ({"code": "1", "sessionMode": "fresh"}, "sessionMode"),
        ({"code": ""}, "`code`"),
        ({"code": "x" * 65_537}, "`code`"),
        ({"code": "1", "timeoutMs": 300_001}, "`timeoutMs`"),
        ({"code": "1", "timeoutMs": 0}, "`timeoutMs`"),
        ({"code": "1", "session": ""}, "`session`"),
        ({}, "missing required field `code`"),
    ],
)
async def test_input_is_rejected_before_running(
    tmp_path: Path, params: dict[str, Any], needle: str
) -> None:
    result = await CODE.call(_runtime(tmp_path), params)
    assert result.is_error
    assert result.details["failureCategory"] == "validation-error"
    assert needle in result.text


async def test_code_byte_limit_is_checked_at_execution(tmp_path: Path) -> None:
    code = "é" * 40_000  # 40,000 characters (schema-valid) but 80,000 UTF-8 bytes
    result = await CODE.call(_runtime(tmp_path), {"code": code})
    assert result.details["failureCategory"] == "validation-error"
    assert "80000 UTF-8 bytes" in result.text


def test_schema_caps() -> None:
    schema = agent_browser_code.CodeInput.model_json_schema()
    assert schema["additionalProperties"] is False
    assert schema["properties"]["code"]["maxLength"] == 65_536
    assert schema["properties"]["timeoutMs"]["maximum"] == 300_000
    assert schema["properties"]["timeoutMs"]["default"] == 120_000
    assert set(schema["properties"]) == {"code", "session", "namespace", "timeoutMs", "outputPath"}


# ----- stack lines ---------------------------------------------------------------------------


def test_user_line_skips_prelude_frames() -> None:
    stack = "    at emit (<input>:100059:50)\n    at <anonymous> (<input>:4:10)\n"
    assert user_line(stack) == 3
    assert user_line("SyntaxError: expecting ';'\n    at <input>:2:8") == 1
    assert user_line("    at control (<input>:100160:23)") is None
    assert user_line("") is None


# ----- images --------------------------------------------------------------------------------


def test_load_images_reads_verified_files(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(png_bytes())
    selection = load_images([_handle(shot)], per_image_max=1024)
    assert selection.error is None
    assert [b.mime_type for b in selection.blocks] == ["image/png"]
    assert selection.rows == [
        {"id": "img-1", "path": str(shot), "mimeType": "image/png", "bytes": shot.stat().st_size}
    ]


def test_changed_or_missing_images_fail(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(png_bytes())
    handle = _handle(shot)
    shot.write_bytes(png_bytes(3, 3))
    changed = load_images([handle], per_image_max=1 << 20)
    assert changed.category is not None and changed.category.value == "artifact-missing"
    assert "changed on disk" in str(changed.error)
    shot.unlink()
    gone = load_images([handle], per_image_max=1 << 20)
    assert gone.category is not None and gone.category.value == "artifact-missing"


def test_image_bounds(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(png_bytes())
    too_big = load_images([_handle(shot)], per_image_max=10)
    assert too_big.category is not None and too_big.category.value == "validation-error"
    assert "inline image limit" in str(too_big.error)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    wrong = load_images([_handle(text, mime=None)], per_image_max=1 << 20)
    assert "not an inline image" in str(wrong.error)
    big = tmp_path / "big.png"
    big.write_bytes(b"\0" * (MAX_IMAGE_BYTES // 2 + 1))
    handles = [_handle(big, "a"), _handle(big, "b")]
    total = load_images(handles, per_image_max=MAX_IMAGE_BYTES)
    assert "in total" in str(total.error)


def _host(tmp_path: Path) -> CodeCellHost:
    loop_time = 10**9
    return CodeCellHost(_runtime(tmp_path), CellIdentity("s", None, "explicit"), loop_time)


def test_host_registers_and_selects_only_its_own_handles(tmp_path: Path) -> None:
    host = _host(tmp_path)
    shot = tmp_path / "shot.png"
    shot.write_bytes(png_bytes())
    observation = {
        "success": True,
        "imageObservations": [
            {"path": str(shot), "mimeType": "image/png", "id": "forged"},
            {"path": str(tmp_path / "missing.png")},
        ],
    }
    registered = host._register_images(observation)
    first, second = registered["imageObservations"]
    assert first["id"].startswith(f"img-{host.token}-")
    assert "id" not in second  # not on disk: not selectable
    assert host.select_image(first["id"], str(shot)) is None
    assert host.select_image(first["id"], str(shot)) is None  # duplicate: coalesced
    assert host.selected == [first["id"]]
    assert host.select_image("forged", str(shot)) is not None
    assert host.select_image(first["id"], "/etc/passwd") is not None
    other_cell = _host(tmp_path)
    assert other_cell.select_image(first["id"], str(shot)) is not None


# ----- outputPath ----------------------------------------------------------------------------


def test_write_output(tmp_path: Path) -> None:
    record = write_output("@out/a.json", tmp_path, {"b": [1]}, [])
    assert record["status"] == "saved"
    assert record["path"] == "out/a.json"
    assert record["absolutePath"] == str(tmp_path / "out" / "a.json")
    assert record["source"] == "code-result"
    text = (tmp_path / "out" / "a.json").read_text()
    assert text == '{\n  "b": [\n    1\n  ]\n}\n'
    assert record["bytes"] == len(text)
    assert oct(os.stat(tmp_path / "out" / "a.json").st_mode & 0o777) == "0o600"
    write_output("plain.txt", tmp_path, "as-is", [])
    assert (tmp_path / "plain.txt").read_text() == "as-is"


def test_write_output_refuses_browser_artifacts(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"png")
    record = write_output("shot.png", tmp_path, {"a": 1}, [str(shot)])
    assert record["status"] == "failed"
    assert shot.read_bytes() == b"png"
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    failed = write_output("file-not-dir/out.json", tmp_path, {"a": 1}, [])
    assert failed["status"] == "failed"


# ----- clamping ------------------------------------------------------------------------------


async def test_inner_timeouts_are_clamped_to_the_cell_budget(tmp_path: Path) -> None:
    host = _host(tmp_path)
    host.deadline = asyncio.get_running_loop().time() + 100
    args = ["--session", "s", "get", "url"]
    assert host._timeout_ms(args, BrowserRequest(args=["get", "url"]), 100_000) is None
    assert host._timeout_ms(args, BrowserRequest(args=["get", "url"]), 2_000) == 2_000
    request = BrowserRequest(args=["get", "url"], timeoutMs=50_000)
    assert host._timeout_ms(args, request, 2_000) == 2_000
    assert host._timeout_ms(args, request, 90_000) == 50_000
    waits = ["--session", "s", "wait", "60000"]
    assert host._timeout_ms(waits, BrowserRequest(args=["wait", "60000"]), 30_000) == 30_000
