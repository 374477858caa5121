"""The README's client snippets, generated from one data table so the server's command line is
stated once: every client's config is built from `COMMAND` and `ARGS` below.

Formats come from each client's own documentation (the config file, its top-level key and the
field names). Most clients take the "standard config" (`mcpServers` with `command`/`args`);
the rest get their own snippet. `scripts/gen_tool_reference.py` writes the section between the
`clients:start` / `clients:end` markers, and tests parse every snippet.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

NAME = "agent-browser"
"""The server's name in every client config."""
COMMAND = "agent-browser-tools"
ARGS: tuple[str, ...] = ("serve",)
"""The one command line every snippet runs: `agent-browser-tools serve`."""
PACKAGE = "agent-browser-tools"
"""The PyPI name `uvx` and `pipx` install."""


@dataclass(frozen=True)
class StandardClient:
    """A client that reads the standard `mcpServers` block from `where`."""

    name: str
    where: str
    command_line: str = ""
    """A CLI alternative (markdown), when the client has one."""


@dataclass(frozen=True)
class OwnFormatClient:
    """A client with a config shape of its own: `lang` names the fenced block's language."""

    name: str
    where: str
    lang: str
    render: Callable[[], str]
    note: str = ""


def argv() -> list[str]:
    return [COMMAND, *ARGS]


def shell_line() -> str:
    return shlex.join(argv())


def standard_entry() -> dict[str, Any]:
    return {"command": COMMAND, "args": list(ARGS)}


def _json(value: Any, indent: str = "") -> str:
    """Indented JSON with short lists of strings kept on one line, as people write configs."""
    if isinstance(value, dict) and value:
        inner = indent + "  "
        items = [f"{inner}{json.dumps(k)}: {_json(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + _json(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value)


def standard_config() -> str:
    return _json({"mcpServers": {NAME: standard_entry()}})


def _vscode() -> str:
    return _json({"servers": {NAME: {"type": "stdio", **standard_entry()}}})


def _copilot_cli() -> str:
    entry = {"type": "local", **standard_entry(), "tools": ["*"]}
    return _json({"mcpServers": {NAME: entry}})


def _opencode() -> str:
    entry = {"type": "local", "command": argv(), "enabled": True}
    return _json({"$schema": "https://opencode.ai/config.json", "mcp": {NAME: entry}})


def _zed() -> str:
    return _json({"context_servers": {NAME: standard_entry()}})


def _toml_list(items: list[str]) -> str:
    # JSON string escapes are valid TOML basic-string escapes for these plain values.
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


def _codex() -> str:
    return "\n".join(
        [
            f'[mcp_servers."{NAME}"]' if "." in NAME else f"[mcp_servers.{NAME}]",
            f"command = {json.dumps(COMMAND)}",
            f"args = {_toml_list(list(ARGS))}",
        ]
    )


def _yaml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


def _goose() -> str:
    return "\n".join(
        [
            "extensions:",
            f"  {NAME}:",
            f"    name: {NAME}",
            "    type: stdio",
            f"    cmd: {COMMAND}",
            f"    args: {_yaml_list(list(ARGS))}",
            "    enabled: true",
            "    timeout: 300",
        ]
    )


def _continue() -> str:
    return "\n".join(
        [
            f"name: {NAME}",
            "version: 0.0.1",
            "schema: v1",
            "mcpServers:",
            f"  - name: {NAME}",
            f"    command: {COMMAND}",
            f"    args: {_yaml_list(list(ARGS))}",
        ]
    )


def _vscode_cli() -> str:
    entry = json.dumps({"name": NAME, **standard_entry()}, separators=(",", ":"))
    return f"code --add-mcp {shlex.quote(entry)}"


def _goose_cli() -> str:
    return f"goose session --with-extension {shlex.quote(shell_line())}"


def _claude_code() -> str:
    return f"claude mcp add {NAME} -- {shell_line()}"


def _codex_cli() -> str:
    return f"codex mcp add {NAME} -- {shell_line()}"


def _gemini_cli() -> str:
    return f"gemini mcp add {NAME} {shell_line()}"


def _amp() -> str:
    return f"amp mcp add {NAME} -- {shell_line()}"


STANDARD: tuple[StandardClient, ...] = (
    StandardClient(
        "Claude Desktop",
        "`claude_desktop_config.json` (Settings -> Developer -> Edit Config)",
    ),
    StandardClient(
        "Cline",
        "`cline_mcp_settings.json` (opened from Cline's MCP Servers view)",
    ),
    StandardClient("Cursor", "`.cursor/mcp.json` in the project, or `~/.cursor/mcp.json`"),
    StandardClient(
        "Gemini CLI",
        "`~/.gemini/settings.json` or `.gemini/settings.json`",
        f"`{_gemini_cli()}`",
    ),
    StandardClient("Junie", "`.junie/mcp/mcp.json`"),
    StandardClient("Kiro", "`.kiro/settings/mcp.json`"),
    StandardClient("LM Studio", "`mcp.json` (Program -> Install -> Edit mcp.json)"),
    StandardClient("Warp", "Settings -> AI -> Manage MCP Servers -> + Add (paste the block)"),
    StandardClient("Windsurf", "`~/.codeium/windsurf/mcp_config.json`"),
)

OWN_FORMAT: tuple[OwnFormatClient, ...] = (
    OwnFormatClient(
        "Claude Code",
        "the `claude` CLI",
        "bash",
        _claude_code,
        "`--scope user` makes it available in every project.",
    ),
    OwnFormatClient(
        "Codex",
        "`~/.codex/config.toml`",
        "toml",
        _codex,
        f"Or from the command line: `{_codex_cli()}`",
    ),
    OwnFormatClient(
        "Amp",
        "the `amp` CLI",
        "bash",
        _amp,
        'In its editor extension the same entry goes under `"amp.mcpServers"` in settings.json.',
    ),
    OwnFormatClient(
        "VS Code (Copilot agent mode)",
        "`.vscode/mcp.json`",
        "json",
        _vscode,
        f"Or from the command line: `{_vscode_cli()}`",
    ),
    OwnFormatClient("Copilot CLI", "`~/.copilot/mcp-config.json`", "json", _copilot_cli),
    OwnFormatClient("opencode", "`opencode.json`", "json", _opencode),
    OwnFormatClient("Zed", "`settings.json`", "json", _zed),
    OwnFormatClient(
        "Goose",
        "`~/.config/goose/config.yaml`",
        "yaml",
        _goose,
        f"Or for one session: `{_goose_cli()}`",
    ),
    OwnFormatClient(
        "Continue", f"`.continue/mcpServers/{NAME}.yaml` in the workspace", "yaml", _continue
    ),
)


def _fence(lang: str, body: str) -> list[str]:
    return [f"```{lang}", *body.splitlines(), "```"]


def uvx_entry() -> dict[str, Any]:
    """The standard entry with `uvx` fetching and running the package (no install)."""
    return {"command": "uvx", "args": [PACKAGE, *ARGS]}


def _preamble() -> list[str]:
    """How the snippets' command is found, and the `uvx` form that needs no install."""
    return [
        f"Every snippet below runs `{shell_line()}`. That command is on `PATH` after",
        f"`pipx install git+file:///path/to/clone` (`pipx install {PACKAGE}` once the",
        "package is on PyPI); otherwise put its full path in `command` (e.g.",
        f"`/path/to/.venv/bin/{COMMAND}`), or let `uvx` run it (until the package is on PyPI,",
        'put `"--from", "/path/to/clone"` first in `args`):',
        "",
        *_fence("json", _json(uvx_entry())),
        "",
        "The first `uvx` start downloads the package and the engine, so a client with a short",
        "start-up timeout may give up once; start it again, or install with `pipx`. Flags from",
        f"the [options table](#serve-options) go after `{ARGS[-1]}` in `args`.",
        "",
    ]


def section() -> list[str]:
    """The README lines between the `clients` markers."""
    lines = [
        *_preamble(),
        "**Standard config**, understood by most clients:",
        "",
        *_fence("json", standard_config()),
        "",
        "| Client | Where the standard config goes | Or from the command line |",
        "| --- | --- | --- |",
        *(f"| {c.name} | {c.where} | {c.command_line or '-'} |" for c in STANDARD),
    ]
    for client in OWN_FORMAT:
        lines += ["", f"**{client.name}** ({client.where})", ""]
        lines += _fence(client.lang, client.render())
        if client.note:
            lines += ["", client.note]
    return lines


def client_count() -> int:
    return len(STANDARD) + len(OWN_FORMAT)
