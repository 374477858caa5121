#!/usr/bin/env python3
"""Write (or check) an engine release's capability baseline from the binary itself.

The baseline (`src/agent_browser_tools/taxonomy/baselines/engine-<version>.json`) lists the
command paths and global flags the release documents: its `--help`, each command's `--help`,
`doctor --help` (its switches are global) and its skills reference (the npm package's
`skill-data`, which the PyPI wheel lacks: give `--markdown` files or a stored `--skills-list`).
`tests/unit/taxonomy/test_baseline.py` then holds the taxonomy to every stored baseline.

    # add or refresh a release
    python scripts/engine_baseline.py --engine /path/to/agent-browser \\
        --markdown package/skill-data/core/SKILL.md \\
        --markdown package/skill-data/core/references/commands.md

    # CI: the stored baseline still matches the installed binary
    python scripts/engine_baseline.py --engine "$(python -c ...)" --skills-list FILE --check
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from extract_engine_commands import engine_paths  # noqa: E402

from agent_browser_tools.engine.environment import offline  # noqa: E402
from agent_browser_tools.engine.target import parse_version, version_text  # noqa: E402
from agent_browser_tools.taxonomy import inventory  # noqa: E402
from agent_browser_tools.taxonomy.baseline import Baseline  # noqa: E402

BASELINES = ROOT / "src" / "agent_browser_tools" / "taxonomy" / "baselines"
_FLAG_LINE = re.compile(r"^  (?:-[A-Za-z], )?(--[a-z][a-z0-9-]*)")
_HEADER = re.compile(r"^(?P<title>[^\s:][^:]*):")
GLOBAL_SECTIONS = frozenset({"Authentication", "Options"})
"""The top-level help's sections of global flags (`Snapshot Options` are `snapshot`'s)."""


def _run(engine: str, *args: str) -> str:
    done = subprocess.run(
        [engine, *args], capture_output=True, text=True, timeout=60, check=False, env=offline()
    )
    return done.stdout


def global_flags(help_text: str, doctor_help: str) -> set[str]:
    """The global flags: the top-level help's flag sections, `doctor`'s own switches (the
    engine strips them wherever they appear) and `--help`."""
    found = {"--help"}
    for text, sections in ((help_text, GLOBAL_SECTIONS), (doctor_help, frozenset({"Options"}))):
        section = ""
        for line in text.splitlines():
            header = _HEADER.match(line)
            if header:
                section = header.group("title")
                continue
            flag = _FLAG_LINE.match(line)
            if flag and section in sections:
                found.add(flag.group(1))
    return found


def build(engine: str, markdown: list[Path], skills_list: Path | None) -> Baseline:
    version = parse_version(_run(engine, "--version"))
    if version is None:
        raise SystemExit(f"{engine} --version printed no version")
    paths = engine_paths(engine)
    for path in markdown:
        paths |= inventory.markdown_command_paths(path.read_text(encoding="utf-8"))
    if skills_list is not None:
        paths |= inventory.parse_paths(skills_list.read_text(encoding="utf-8"))
    # Every command word either source names has a help page of its own (`state`, `swipe`),
    # whose usage line documents the word itself (`find <locator> ...`).
    for head in sorted({path[0] for path in paths}):
        page = _run(engine, head, "--help")
        paths |= inventory.command_help_paths(head, page)
        if f"Usage: agent-browser {head}" in page:
            paths.add((head,))
    flags = global_flags(_run(engine, "--help"), _run(engine, "doctor", "--help"))
    return Baseline(version_text(version), frozenset(paths), frozenset(flags))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--engine", required=True, help="the agent-browser binary")
    parser.add_argument("--markdown", type=Path, action="append", default=[])
    parser.add_argument("--skills-list", type=Path, help="a stored skills command list")
    parser.add_argument("--check", action="store_true", help="compare with the stored file")
    args = parser.parse_args(argv)
    os.environ.update(offline())
    made = build(args.engine, args.markdown, args.skills_list)
    target = BASELINES / f"engine-{made.engine}.json"
    text = json.dumps(made.to_data(), indent=1) + "\n"
    if args.check:
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            print(f"{target} does not match {args.engine}: re-run without --check", file=sys.stderr)
            return 1
        print(f"{target.name} matches {args.engine}")
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
