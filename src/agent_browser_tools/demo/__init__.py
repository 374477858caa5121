"""`agent-browser-tools demo`: the first five calls of an agent, printed as it sees them.

Opens the bundled local page, takes `snapshot -i`, fills the name field and clicks the button
using refs from that snapshot, and saves a screenshot; then closes its browser. It runs in a
fresh temporary workspace holding a copy of the page, because tool calls may only read and
write files inside the workspace roots, and the demo keeps the default policy.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.settings import Settings

PAGE = Path(__file__).with_name("page.html")


def _ref(result: ToolResult, role: str, name: str) -> str:
    refs = result.details.get("refSnapshot", {}).get("refs", {})
    for ref_id, info in refs.items():
        if info.get("role") == role and info.get("name") == name:
            return "@" + str(ref_id)
    raise RuntimeError(f"the demo page has no {role} named {name!r}; snapshot: {refs}")


def _show(params: dict[str, Any], result: ToolResult) -> None:
    print(f"\n> agent_browser {json.dumps(params)}")
    for block in result.content:
        text = getattr(block, "text", None)
        if text is not None:
            print(text)
        else:
            print(f"[image {block.mime_type} attached: {block.path}]")  # type: ignore[union-attr]


async def run_demo() -> int:
    """Run the demo; return 0 when every step succeeded. Its temporary workspace (page copy,
    screenshot) is removed at the end, whatever happened: a demo leaves nothing behind."""
    out_dir = Path(tempfile.mkdtemp(prefix="abt-demo-"))
    try:
        return await _run_in(out_dir)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


async def _run_in(out_dir: Path) -> int:
    page = out_dir / PAGE.name
    shutil.copyfile(PAGE, page)
    failures = 0
    # The bundled page is ours, so this conversation may open it as a file:// page; a
    # model's conversation may not unless the operator allows file pages.
    settings = Settings.load(cwd=out_dir).with_layer("demo", {"files": {"allow_file_pages": True}})
    async with BrowserTools(conversation_id="demo", cwd=out_dir, settings=settings) as tools:

        async def step(params: dict[str, Any]) -> ToolResult:
            nonlocal failures
            result = await tools.call("agent_browser", params)
            _show(params, result)
            failures += int(result.is_error)
            return result

        await step({"args": ["open", page.as_uri()]})
        snap = await step({"args": ["snapshot", "-i"]})
        if snap.is_error:
            return 1
        await step({"args": ["fill", _ref(snap, "textbox", "Your name"), "Ada Lovelace"]})
        await step({"args": ["click", _ref(snap, "button", "Sign up")]})
        await step({"args": ["get", "text", "#welcome"]})
        await step({"args": ["screenshot", "./demo.png"]})
    verdict = "ok" if failures == 0 else f"{failures} step(s) failed"
    print(f"\ndemo: {verdict} (its temporary workspace {out_dir} is removed now)")
    return 0 if failures == 0 else 1
