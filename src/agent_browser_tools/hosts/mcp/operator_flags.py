"""`serve` flags for the operator's browser and model policy, as one more config layer.

Every launch option of `launch_options.LAUNCH_OPTIONS` is a flag here, plus `--viewport`,
`--isolated`, `--allow-model-flag`, `--max-timeout-ms`, `--allow-file-pages` and
`--image-responses`; the flags given become a config layer above the config files
(`Settings.with_layer`), so a flag and its config key can never mean different things.
"""

from __future__ import annotations

import argparse
from typing import Any

from agent_browser_tools.launch_options import (
    GRID_HELP,
    ISOLATED_HELP,
    LAUNCH_OPTIONS,
    VIEWPORT_HELP,
)
from agent_browser_tools.settings import IMAGE_RESPONSE_MODES, IMAGE_RESPONSES_ENV


def add_operator_flags(parser: argparse.ArgumentParser) -> None:
    """Add the operator's launch and policy flags to the `serve` parser."""
    group = parser.add_argument_group("browser launch (operator only; also [browser] in config)")
    for option in LAUNCH_OPTIONS:
        dest = f"browser_{option.key}"
        if option.kind == "bool":
            group.add_argument(option.flag, dest=dest, action="store_true", help=option.help)
        elif option.kind == "list":
            group.add_argument(
                option.flag, dest=dest, action="append", metavar="VALUE", help=option.help
            )
        else:
            group.add_argument(option.flag, dest=dest, metavar="VALUE", help=option.help)
    group.add_argument("--viewport", dest="browser_viewport", metavar="WxH", help=VIEWPORT_HELP)
    group.add_argument(
        "--isolated", dest="browser_isolated", action="store_true", help=ISOLATED_HELP
    )
    group.add_argument("--grid-url", dest="browser_grid_url", metavar="URL", help=GRID_HELP)
    policy = parser.add_argument_group("model policy (also [policy] in config)")
    policy.add_argument(
        "--allow-model-flag",
        dest="policy_allow_model_flags",
        action="append",
        metavar="FLAG",
        help="let the model pass this operator-only engine flag (repeatable), e.g. "
        "--allow-model-flag=--args or --allow-model-flag args",
    )
    policy.add_argument(
        "--max-timeout-ms",
        dest="policy_max_timeout_ms",
        type=int,
        metavar="MS",
        help="largest timeoutMs a call may ask for (default 600000)",
    )


def add_access_flags(parser: argparse.ArgumentParser) -> None:
    """Add the file-root and shared-session flags (passed to `BrowserTools` as arguments)."""
    group = parser.add_argument_group("what the model may reach (operator only)")
    group.add_argument(
        "--file-root",
        action="append",
        default=[],
        metavar="DIR",
        help="a directory tool calls may read and write besides the execution dir and the "
        "client's roots (repeatable; or [files] roots / AGENT_BROWSER_TOOLS_FILE_ROOTS)",
    )
    group.add_argument(
        "--allow-unrestricted-file-access",
        action="store_true",
        help="let tool calls reach the whole filesystem (never the server's own state dir, "
        "nor, over --http, another conversation's workspace)",
    )
    group.add_argument(
        "--shared-session",
        action="append",
        default=[],
        metavar="NAME",
        help="a browser session every conversation may use by name (repeatable; or config "
        "[isolation] shared_sessions / env AGENT_BROWSER_TOOLS_SHARED_SESSIONS)",
    )


def add_file_page_flag(parser: argparse.ArgumentParser) -> None:
    """`--allow-file-pages` becomes `[files] allow_file_pages` in the flags layer."""
    parser.add_argument(
        "--allow-file-pages",
        dest="files_allow_file_pages",
        action="store_true",
        help="let the model open file:// pages that can show other local files (HTML, "
        "folders) inside the roots; off by default because such a page can frame any file",
    )


def add_image_flag(parser: argparse.ArgumentParser) -> None:
    """`--image-responses` becomes `[tools] image_responses` in the flags layer (like
    playwright-mcp's option of that name); a value outside the modes stops the start."""
    parser.add_argument(
        "--image-responses",
        dest="tools_image_responses",
        choices=IMAGE_RESPONSE_MODES,
        metavar="MODE",
        help="screenshots in results: include (default) sends the image inline besides the "
        "saved file's path; omit sends no image content, only the text naming the file (or "
        f"env {IMAGE_RESPONSES_ENV}, config [tools] image_responses)",
    )


def operator_layer(args: argparse.Namespace) -> dict[str, Any]:
    """The config layer the operator's flags make (`{}` when none were given)."""
    layer: dict[str, dict[str, Any]] = {}
    for name, value in vars(args).items():
        if value is None or value is False or value == []:
            continue
        section, _, key = name.partition("_")
        if section in ("browser", "policy", "files", "tools") and key:
            layer.setdefault(section, {})[key] = value
    return layer
