"""The MCP host, split by concern.

- `convert`: ToolSpec/ToolResult <-> MCP types (pure).
- `conversations`: one `BrowserTools` per conversation, calls in flight, shutdown.
- `server`: the SDK `Server` and its handlers (tools, resources, progress, list_changed).
- `options`: `serve` flags and the rules for starting at all (token off loopback).
- `stdio` / `http`: the two transports and their lifecycles.
- `stdio_front` / `front_answers`: a new stdio conversation's handshake answered while the SDK
  imports, from the SDK's recorded answers (`front_data.json`, from `front_reference`).
- `http_guard` / `http_conn` / `http_limits`: the HTTP edge: header rules before the SDK,
  read deadlines and the connection cap in uvicorn's protocol, and their settings.

The entry point is `agent_browser_tools.hosts.mcp.serve.run`.

Importing this package registers the SDK's `mcp` and `mcp.server` packages lazily first
(`sdk_import`), so whichever host module imports the SDK first loads only what it names.
"""

from agent_browser_tools.hosts.mcp.sdk_import import skip_sdk_package_inits

skip_sdk_package_inits()
