"""The public Python API: `BrowserTools`.

```python
async with BrowserTools() as tools:
    result = await tools.call("agent_browser", {"args": ["open", "https://example.com"]})
    print(result.text)
```

One `BrowserTools` is one conversation: it owns its implicit managed browser and closes it on
`aclose()` (unless `close_on_exit=False`). Caller-owned sessions are never closed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.tool_result import TextBlock, ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.sessions_lifecycle import close_owned

Handler = Callable[[Runtime, Mapping[str, Any]], Awaitable[ToolResult]]


@dataclass(frozen=True)
class ToolSpec:
    """A tool declared as data: name, description, input schema and handler."""

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Handler


AGENT_BROWSER_DESCRIPTION = (
    "Use a real browser: open pages, read them (snapshot -i gives @eN refs), click, fill, "
    "take screenshots, inspect network/console, and work in logged-in sessions. args are the "
    "exact agent-browser CLI args; re-run snapshot -i after navigation because refs are "
    "page-scoped."
)

TOOLS: dict[str, ToolSpec] = {
    "agent_browser": ToolSpec(
        name="agent_browser",
        description=AGENT_BROWSER_DESCRIPTION,
        input_schema=AgentBrowserInput.model_json_schema(),
        handler=agent_browser.run,
    ),
}


class BrowserTools:
    """The tools of one conversation, callable in-process."""

    def __init__(
        self,
        *,
        conversation_id: str | None = None,
        settings: Settings | None = None,
        cwd: Path | None = None,
        close_on_exit: bool = True,
    ) -> None:
        self.settings = settings or Settings.load(cwd=cwd)
        self.runtime = Runtime(self.settings, conversation_id=conversation_id, cwd=cwd)
        self.close_on_exit = close_on_exit

    @property
    def conversation_id(self) -> str:
        return self.runtime.conversation_id

    async def call(self, tool: str, params: Mapping[str, Any]) -> ToolResult:
        """Run one tool call; unknown tools fail as `validation-error`, never raise."""
        spec = TOOLS.get(tool)
        if spec is None:
            message = f"unknown tool {tool!r}; available: {', '.join(sorted(TOOLS))}."
            details = {
                "resultCategory": "failure",
                "failureCategory": FailureCategory.VALIDATION_ERROR.value,
                "error": message,
            }
            return ToolResult(content=(TextBlock(text=message),), details=details, is_error=True)
        return await spec.handler(self.runtime, params)

    async def aclose(self) -> None:
        """Close the managed browsers this conversation launched (if configured to)."""
        if self.close_on_exit:
            await close_owned(self.runtime)

    async def __aenter__(self) -> BrowserTools:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    @staticmethod
    def tool_specs() -> list[dict[str, Any]]:
        """JSON-schema tool declarations (`name`, `description`, `input_schema`)."""
        return [
            {"name": s.name, "description": s.description, "input_schema": s.input_schema}
            for s in TOOLS.values()
        ]
