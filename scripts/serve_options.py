"""The README's `serve` options table, read from the CLI's own argparse parser so the table
says exactly what `agent-browser-tools serve --help` says (one table per argument group)."""

from __future__ import annotations

import argparse
import importlib


def serve_parser() -> argparse.ArgumentParser:
    """The `serve` subparser of the console script's parser."""
    # `hosts.cli.main` the module (the package re-exports the `main` function under that name).
    cli_main = importlib.import_module("agent_browser_tools.hosts.cli.main")
    parser: argparse.ArgumentParser = cli_main._parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            serve: argparse.ArgumentParser = action.choices["serve"]
            return serve
    raise SystemExit("agent-browser-tools has no serve subcommand")


def _flag(action: argparse.Action) -> str:
    names = ", ".join(action.option_strings)
    if action.nargs == 0:
        return f"`{names}`"
    metavar = action.metavar or (action.dest or "").upper()
    return f"`{names} {metavar}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _title(group: argparse._ArgumentGroup) -> str:
    title = group.title or ""
    if title in ("options", "optional arguments"):
        return "General"
    return title[:1].upper() + title[1:]


def options_table() -> list[str]:
    """Markdown: for each non-empty argument group, its title and an Option | Meaning table."""
    lines: list[str] = []
    for group in serve_parser()._action_groups:
        actions = [
            a
            for a in group._group_actions
            if a.option_strings and a.help != argparse.SUPPRESS and "-h" not in a.option_strings
        ]
        if not actions:
            continue
        if lines:
            lines.append("")
        lines += [f"*{_cell(_title(group))}*", "", "| Option | Meaning |", "| --- | --- |"]
        lines += [f"| {_flag(a)} | {_cell(a.help or '')} |" for a in actions]
    return lines
