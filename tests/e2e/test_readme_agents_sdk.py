"""The README's OpenAI Agents SDK example runs as written, up to the model.

`Runner.run` needs an OpenAI model and key, so the test replaces it with a stand-in that
does what the agent's first step does through the same `MCPServerStdio`: list the tools and
call one (`agent_browser_tools {}`, which opens no browser). Everything else (starting
`agent-browser-tools serve` from PATH, the MCP handshake, the context manager, the print) is
the README's code. `openai-agents` is in the `dev` extra; skipped when it is not installed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.readme import block_after

agents: Any = pytest.importorskip(
    "agents", reason="openai-agents is not installed (pip install openai-agents)"
)


def test_the_agents_sdk_example_runs_up_to_the_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    block = block_after("**OpenAI Agents SDK**", "python")
    seen: dict[str, Any] = {}

    async def run(cls: Any, agent: Any, prompt: str) -> SimpleNamespace:
        (server,) = agent.mcp_servers
        seen["tools"] = [tool.name for tool in await server.list_tools()]
        listed = await server.call_tool("agent_browser_tools", {})
        seen["listing"] = listed.content[0].text
        return SimpleNamespace(final_output=f"stand-in answer to: {prompt}")

    monkeypatch.setattr(agents.Runner, "run", classmethod(run))
    # The console script of this environment, and a private state dir (the SDK passes the
    # child only HOME, PATH and a few more variables).
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path))
    exec(compile(block.body, f"README.md:{block.line}", "exec"), {"__name__": "__main__"})
    assert {"agent_browser", "agent_browser_code", "agent_browser_tools"} <= set(seen["tools"])
    assert "agent_browser_qa" in seen["listing"]
    assert capsys.readouterr().out.startswith("stand-in answer to: What is the title")
