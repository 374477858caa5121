"""`spill` is answered by the wrapper, in a direct call and in a code cell alike: the engine
never sees it, no browser is needed, and a spill of one conversation is not another's."""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.bounds import spill_bytes
from agent_browser_tools.results.spill_reader import WINDOW_CHARS
from tests.support.fake import FakeEngine, fake_settings


async def test_a_spill_reads_without_the_engine_directly_and_in_a_cell(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = BrowserTools(settings=fake_settings(fake_engine, tmp_path), cwd=tmp_path)
    other = BrowserTools(settings=fake_settings(fake_engine, tmp_path), cwd=tmp_path)
    try:
        text = "".join(f"- row {n}\n" for n in range(3_000))
        name = spill_bytes(tools.runtime.spill_dir, "snapshot", ".txt", text.encode()).name
        direct = await tools.call("agent_browser", {"args": ["spill", name]})
        assert not direct.is_error, direct.text
        assert direct.details["data"]["text"] == text[:WINDOW_CHARS]
        assert direct.text.startswith(f"Spill {name}: characters 0-{WINDOW_CHARS} of")

        code = f"""
          const parts = [];
          let call = {{ args: ['spill', '{name}'] }};
          while (call) {{
            const got = await browser(call);
            if (!got.success) {{ emit({{ error: got.error }}); return; }}
            parts.push(got.data.text);
            call = (got.nextActions || [])[0]?.params;
          }}
          emit(parts.join(''));
        """
        cell = await tools.call("agent_browser_code", {"code": code})
        assert not cell.is_error, cell.text
        assert cell.details["data"] == text, "a cell follows the next calls to the whole file"

        stranger = await other.call("agent_browser", {"args": ["spill", name]})
        assert stranger.is_error and stranger.details["failureCategory"] == "validation-error"
        assert f"No spill named {name} in this conversation" in stranger.text
        assert not [argv for argv in fake_engine.argvs() if "spill" in argv], "engine-free"
    finally:
        await other.aclose()
        await tools.aclose()
