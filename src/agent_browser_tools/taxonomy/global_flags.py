"""Global flags of agent-browser 0.39.4, one row each (type: `spec.py`, lookup: `lookup.py`).

Which flags are launch-scoped follows the contract's exact list; which are sensitive decides
what argv redaction masks. Kept apart from the command rows in `commands.py`.
"""

from __future__ import annotations

from agent_browser_tools.taxonomy.spec import GlobalFlag
from agent_browser_tools.taxonomy.vocabulary import FlagValue, ModelAccess, PathUse

REQ = FlagValue.REQUIRED
BOOL = FlagValue.OPTIONAL_BOOL
OP = ModelAccess.OPERATOR
READ = PathUse.READ_FILE
DIR = PathUse.WRITE_DIR


def _g(
    name: str,
    summary: str,
    value: FlagValue = REQ,
    *,
    short: str | None = None,
    launch: bool = False,
    sensitive: bool = False,
    selects: bool = False,
    inspection: bool = False,
    access: ModelAccess = ModelAccess.MODEL,
    path: PathUse | None = None,
    daemon: bool = False,
    since: str | None = None,
) -> GlobalFlag:
    return GlobalFlag(
        name,
        summary,
        short,
        value,
        launch,
        sensitive,
        selects,
        inspection,
        access,
        path,
        daemon,
        since,
    )


# Launch-scoped is exactly the contract's list; --extension and --proxy also only matter at
# launch upstream, but the contract does not list them, so they pass through unchanged.
# `access=OP` marks what only the operator may set (the security model): what runs as a program
# or loads code into the browser (executable, args, extensions, config, engine), the user's own
# browsers and profiles, other network paths and trust (CDP, providers, proxies, CA certs,
# certificate errors, allowed domains), persisted restore state shared across conversations, and
# the daemon's lifetime. Appearance and identity flags (headed, user agent, device, color scheme,
# headers) stay the model's. `path=` values must lie inside the file roots. `--init-script`
# is the operator's too: it runs on every page, including a browser's own DevTools origin a
# redirect can land on before the wrapper sees where it went (see `engine.browser_ports`).
# `daemon=True`: measured on 0.39.4, a later call without the flag relaunches the browser.
# fmt: off
GLOBAL_FLAGS: tuple[GlobalFlag, ...] = (
    _g("--profile", "Chrome profile name or directory", launch=True, access=OP),
    _g("--restore", "Auto-save/restore state (optional key)", FlagValue.OPTIONAL,
       launch=True, access=OP),
    _g("--restore-save", "Restore auto-save policy", launch=True, access=OP),
    _g("--restore-check-url", "Validate restored URL", launch=True, access=OP),
    _g("--restore-check-text", "Validate restored page text", launch=True, access=OP),
    _g("--restore-check-fn", "Validate restored state with JS", launch=True, access=OP),
    _g("--session-name", "Legacy restore persistence key", launch=True, access=OP),
    _g("--state", "Load auth state JSON at launch", launch=True, path=READ),
    _g("--auto-connect", "Connect to a running Chrome", BOOL, launch=True, access=OP),
    _g("--headers", "Origin-scoped HTTP headers (credentials)", sensitive=True),
    _g("--session", "Isolated session", selects=True),
    _g("--namespace", "Isolate daemon sockets and restore state", launch=True),
    _g("--executable-path", "Custom browser executable", launch=True, access=OP),
    _g("--extension", "Load a browser extension (repeatable)", access=OP),
    _g("--init-script", "Page init script (repeatable)", launch=True, path=READ,
       access=OP),
    _g("--enable", "Built-in init scripts", launch=True),
    _g("--args", "Browser launch args", launch=True, access=OP),
    _g("--user-agent", "Custom User-Agent", launch=True),
    _g("--proxy", "Proxy server URL (may embed user:pass)", sensitive=True, access=OP),
    _g("--proxy-bypass", "Hosts that bypass the proxy", access=OP),
    _g("--ignore-https-errors", "Ignore HTTPS certificate errors", BOOL, access=OP),
    _g("--ca-cert", "Trust a CA certificate", launch=True, access=OP),
    _g("--no-ca-cert", "Clear retained CA trust", BOOL, launch=True, access=OP),
    _g("--use-system-ca", "OS trust store for CLI requests", BOOL, access=OP),
    _g("--allow-file-access", "Allow file:// access", BOOL, access=OP),
    _g("--hide-scrollbars", "Hide scrollbars in headless screenshots", BOOL),
    _g("--provider", "Browser provider", short="-p", launch=True, access=OP),
    _g("--device", "iOS device name", launch=True),
    _g("--json", "JSON output", BOOL),
    _g("--annotate", "Annotated screenshot", BOOL),
    _g("--screenshot-dir", "Default screenshot directory", path=DIR),
    _g("--screenshot-quality", "JPEG quality"),
    _g("--screenshot-format", "png or jpeg"),
    _g("--input-mode", "Sticky pointer mode (live session setting, not a launch flag)"),
    _g("--headed", "Show browser window", BOOL, launch=True),
    _g("--webgpu", "Enable WebGPU", BOOL, launch=True),
    _g("--no-webmcp", "Disable experimental WebMCP", BOOL, launch=True),
    # Remote CDP endpoints carry access tokens in their query strings.
    _g("--cdp", "Connect via CDP port or URL", launch=True, sensitive=True, access=OP),
    # Headers for the CDP handshake (an Authorization token): the connection is the operator's.
    # Not launch-scoped: the contract's list is exact (and the operator sets it anyway).
    _g(
        "--cdp-headers",
        "Headers for --cdp discovery and handshake",
        sensitive=True,
        access=OP,
        since="0.41.2",
    ),
    _g("--pin-tab", "Pin the session to its bound tab", BOOL),
    _g("--no-pin-tab", "Unpin the session", BOOL),
    _g("--color-scheme", "Color scheme"),
    _g("--download-path", "Default download directory", path=DIR),
    _g("--content-boundaries", "Wrap page output in boundary markers", BOOL),
    _g("--max-output", "Truncate page output"),
    _g("--allowed-domains", "Restrict network domains", launch=True, access=OP),
    _g("--action-policy", "Action policy JSON file", access=OP, daemon=True),
    _g("--confirm-actions", "Categories requiring confirmation", daemon=True),
    _g("--confirm-interactive", "Interactive confirmation prompts", BOOL),
    _g("--idle-timeout", "Daemon idle shutdown", launch=True, access=OP),
    _g("--engine", "Browser engine", access=OP),
    _g("--no-auto-dialog", "Do not auto-dismiss dialogs", BOOL, daemon=True),
    _g("--model", "AI model for chat", access=OP),
    _g("--verbose", "Show chat tool commands", BOOL, short="-v"),
    _g("--quiet", "Only AI text responses", BOOL, short="-q"),
    _g("--config", "Custom config file", access=OP),
    _g("--debug", "Debug output", BOOL, daemon=True),
    # doctor switches, but the engine strips them from argv wherever they appear.
    _g("--offline", "doctor: skip network probes", BOOL),
    _g("--quick", "doctor: skip the live launch test", BOOL),
    _g("--fix", "doctor: run destructive repairs", BOOL, access=OP),
    _g("--version", "Show version", FlagValue.NONE, short="-V", inspection=True),
    _g("--help", "Show help (after a command: that command's help)", FlagValue.NONE,
       short="-h", inspection=True),
)
# fmt: on
