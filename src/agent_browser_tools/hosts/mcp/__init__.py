"""The MCP host, split by concern.

- `convert`: ToolSpec/ToolResult <-> MCP types (pure).
- `conversations`: one `BrowserTools` per conversation, calls in flight, shutdown.
- `server`: the SDK `Server` and its handlers (tools, resources, progress, list_changed).
- `options`: `serve` flags and the rules for starting at all (token off loopback).
- `stdio` / `http`: the two transports and their lifecycles.

The entry point is `agent_browser_tools.hosts.mcp.serve.run`.
"""
