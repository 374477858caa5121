"""How the direct tool presents engine answers, at the tool boundary (fake engine: exact
engine errors and payloads on demand, including secrets echoed back in a batch step error)."""

from __future__ import annotations

import json
from pathlib import Path

from agent_browser_tools.api import BrowserTools
from tests.fake.tools.agent_browser.test_argv import _call, _settings, _tools
from tests.support.fake import FakeEngine

#: A valid 1x1 PNG (67 bytes), so the image header can be read.
PNG_1x1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


async def test_a_getter_typed_without_get_fails_with_the_exact_fix(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Refused before the engine runs (the taxonomy knows no `title` command), with the
    exact argv to send instead."""
    tools = _tools(fake_engine, tmp_path)
    result = await _call(tools, {"args": ["title"]})
    assert result.is_error and result.details["failureCategory"] == "validation-error"
    assert 'It is `get title`: send ["get", "title"].' in result.text
    assert [argv for argv in fake_engine.argvs() if argv != ["--version"]] == []


async def test_a_batch_step_error_echoing_a_secret_is_scrubbed_by_exact_value(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    secret = "Zq8-unlabelled-value-77"
    tools = _tools(fake_engine, tmp_path)
    rows = [
        {
            "command": ["cookies", "set", "sid", secret],
            "success": False,
            "result": None,
            "error": f"invalid cookie value {secret} for sid",
        }
    ]
    fake_engine.on({"command": ["batch"]}, json=rows)
    stdin = json.dumps([["cookies", "set", "sid", secret]])
    result = await _call(tools, {"args": ["batch"], "stdin": stdin})
    assert secret not in result.text and secret not in json.dumps(result.details)
    assert "invalid cookie value" in result.text


async def test_read_says_which_path_ran(fake_engine: FakeEngine, tmp_path: Path) -> None:
    tools = _tools(fake_engine, tmp_path)
    fake_engine.on(
        {"command": ["read"]},
        envelope={
            "data": {
                "source": "http",
                "text": "Hello",
                "lifecycle": {"effectiveLaunch": {"browserLaunched": False}, "reused": True},
            }
        },
    )
    result = await _call(tools, {"args": ["read", "https://a.test/doc"]})
    line = (
        "Read execution: source http; agent-browser CLI started and exited 0; implicit managed "
        "session browser not launched; managed session reused."
    )
    assert line in result.text.splitlines()
    assert result.details["readSource"] == "http"


async def test_output_file_line_in_prose_but_not_in_caller_json(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    fake_engine.on({"command": ["get"]}, envelope={"data": {"url": "https://a.test/"}})
    prose = await _call(tools, {"args": ["get", "url"], "outputPath": "@out/url.json"})
    saved = tmp_path / "out" / "url.json"
    size = saved.stat().st_size
    assert f"Output file: out/url.json ({size} bytes)" in prose.text
    assert json.loads(saved.read_text()) == {"url": "https://a.test/"}
    as_json = await _call(tools, {"args": ["--json", "get", "url"], "outputPath": "out/j.json"})
    parsed = json.loads(as_json.text)
    assert "Output file" not in as_json.text and parsed["success"] is True
    assert as_json.details["outputFile"]["status"] == "saved"


async def test_inline_images_respect_the_configured_cap(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    shot = tmp_path / "shot.png"
    (tmp_path / "home").mkdir(exist_ok=True)
    small_cap = _settings(fake_engine, tmp_path, AGENT_BROWSER_TOOLS_INLINE_IMAGE_MAX_BYTES="10")
    for settings, inline in ((small_cap, False), (None, True)):
        tools = (
            BrowserTools(settings=settings, cwd=tmp_path, conversation_id="cap")
            if settings is not None
            else _tools(fake_engine, tmp_path)
        )
        fake_engine.reset()
        fake_engine.on({"command": ["screenshot"]}, envelope={"data": {"path": str(shot)}})
        shot.write_bytes(PNG_1x1)  # "written" just now, inside the command window
        result = await _call(tools, {"args": ["screenshot", str(shot)]})
        assert result.details["artifactVerification"]["verifiedCount"] == 1, result.text
        assert bool(result.images) is inline
        await tools.aclose()


async def test_an_undeclared_password_flag_in_a_batch_step_is_never_echoed(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    secret = "pwLEAKbatch999"
    tools = _tools(fake_engine, tmp_path)
    command = ["auth", "login", "x", "--password", secret]
    rows = [{"command": command, "success": False, "result": None, "error": "login failed"}]
    fake_engine.on({"command": ["batch"]}, json=rows)
    result = await _call(tools, {"args": ["batch"], "stdin": json.dumps([command])})
    # The taxonomy knows no `--password` for `auth login`: refused before the engine runs.
    assert "batch row 1: --password is not a flag of `auth login`" in result.text
    assert not any("batch" in argv for argv in fake_engine.argvs())
    assert secret not in result.text and secret not in json.dumps(result.details)
    await tools.aclose()
    state = tmp_path / "state"
    leaks = [p for p in state.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert leaks == []
