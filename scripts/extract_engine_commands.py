#!/usr/bin/env python3
"""Print the command paths an agent-browser release documents, one per line, sorted.

Re-run it on an engine upgrade, then fix `taxonomy/commands.py` until
`tests/unit/taxonomy/test_taxonomy.py` passes. Typical uses:

    # paths from the live engine: top-level --help plus every `<command> --help`
    python scripts/extract_engine_commands.py --engine /path/to/agent-browser

    # the stored skills inventory (the npm package's skill-data, which the wheel lacks)
    python scripts/extract_engine_commands.py \\
        --markdown skill-data/core/references/commands.md --markdown skill-data/core/SKILL.md \\
        --comment "agent-browser 0.39.4 skills reference" \\
        > tests/fixtures/engine_reference/skills-commands-0.39.4.txt

The parsing lives in `agent_browser_tools.taxonomy.inventory` so the tests use the same code.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

try:
    from agent_browser_tools.taxonomy import inventory
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from agent_browser_tools.taxonomy import inventory


def _run_help(engine: str, *words: str) -> str:
    result = subprocess.run(
        [engine, *words, "--help"], capture_output=True, text=True, timeout=30, check=False
    )
    return result.stdout


def engine_paths(engine: str) -> set[inventory.Path]:
    """Paths from `engine --help` and from `<command> --help` for each top-level command."""
    paths = inventory.help_command_paths(_run_help(engine))
    for head in sorted({path[0] for path in paths}):
        paths |= inventory.command_help_paths(head, _run_help(engine, head))
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--engine", help="agent-browser binary to run (`--help` output)")
    parser.add_argument("--help-text", type=Path, help="saved `agent-browser --help` output")
    parser.add_argument(
        "--markdown", type=Path, action="append", default=[], help="skills markdown (repeatable)"
    )
    parser.add_argument("--comment", help="first line of the output, written as `# <comment>`")
    parser.add_argument(
        "--uncovered", action="store_true", help="print only paths the taxonomy does not cover"
    )
    args = parser.parse_args(argv)
    if not (args.engine or args.help_text or args.markdown):
        parser.error("give --engine, --help-text or --markdown")

    paths: set[inventory.Path] = set()
    if args.engine:
        paths |= engine_paths(args.engine)
    if args.help_text:
        paths |= inventory.help_command_paths(args.help_text.read_text(encoding="utf-8"))
    for markdown in args.markdown:
        paths |= inventory.markdown_command_paths(markdown.read_text(encoding="utf-8"))
    if args.uncovered:
        paths = set(inventory.uncovered(paths))
    if args.comment:
        sys.stdout.write(f"# {args.comment}\n")
    sys.stdout.write(inventory.format_paths(paths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
