#!/usr/bin/env python3
"""Write the stdio front's answers (`hosts/mcp/front_data.json`) from the SDK itself.

    python scripts/gen_stdio_front.py           # rewrite front_data.json
    python scripts/gen_stdio_front.py --check   # exit 1 when it is stale

Why: the front answers `initialize`, `ping` and `tools/list` before the SDK loads (see
`hosts/mcp/front_answers.py`); its answers must stay the SDK's for the same request, so they
are recorded from the real server (`front_reference`) and checked in CI, like the README's
tools table. Run it after changing a tool spec, the instructions, the server's capabilities
or the SDK version.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
# This checkout's modules, even when another checkout is installed in the environment.
sys.path.insert(0, str(ROOT / "src"))

from agent_browser_tools.hosts.mcp.front_answers import DATA_FILE  # noqa: E402
from agent_browser_tools.hosts.mcp.front_reference import front_data  # noqa: E402


def render() -> str:
    return json.dumps(anyio.run(front_data), ensure_ascii=False, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is stale")
    args = parser.parse_args(argv)
    text = render()
    current = DATA_FILE.read_text(encoding="utf-8") if DATA_FILE.exists() else ""
    if args.check:
        if current != text:
            print(
                f"{DATA_FILE.relative_to(ROOT)} is stale: run python scripts/gen_stdio_front.py",
                file=sys.stderr,
            )
            return 1
        return 0
    if current != text:
        DATA_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {DATA_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
