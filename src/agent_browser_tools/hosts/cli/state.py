"""`agent-browser-tools state`: list and prune stored conversations.

Pruning removes whole conversations from the journal (never single events, which would make
the remaining history lie) and their spill files.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import sys
from typing import TextIO

from agent_browser_tools.settings import Settings


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    state = sub.add_parser("state", help="list or prune stored conversations")
    actions = state.add_subparsers(dest="state_command", required=True)
    actions.add_parser("list", help="stored conversations, oldest activity first")
    pruner = actions.add_parser("prune", help="delete old or named conversations")
    pruner.add_argument("--older-than-days", type=float, help="last activity before N days ago")
    pruner.add_argument("--conversation", action="append", default=[], help="id to delete")


def _when(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch).isoformat(timespec="seconds")


def run_state(args: argparse.Namespace, out: TextIO | None = None) -> int:
    # Imported here: the journal (and pydantic) would slow down every other command's start.
    from agent_browser_tools.state.sqlite_journal import JournalError, list_conversations, prune
    from agent_browser_tools.state.writable import state_dir_problem

    out = out or sys.stdout
    settings = Settings.load()
    problem = state_dir_problem(settings.state_dir)
    if problem is not None:
        sys.stderr.write(f"state: {problem}\n")
        return 1
    try:
        if args.state_command == "list":
            rows = list_conversations(settings.state_dir)
            out.write(f"{len(rows)} conversation(s) in {settings.state_dir}\n")
            for row in rows:
                out.write(
                    f"{row.id}  events={row.events}  created={_when(row.created_at)}  "
                    f"last={_when(row.updated_at)}\n"
                )
            return 0
        if args.older_than_days is None and not args.conversation:
            out.write("state prune: give --older-than-days N and/or --conversation ID\n")
            return 2
        older = args.older_than_days * 86_400 if args.older_than_days is not None else None
        before = {row.id for row in list_conversations(settings.state_dir)}
        removed = prune(settings.state_dir, older_than_s=older, ids=args.conversation)
        gone = before - {row.id for row in list_conversations(settings.state_dir)}
        for ident in gone:
            shutil.rmtree(settings.state_dir / "spill" / ident[:32], ignore_errors=True)
        out.write(f"pruned {removed} conversation(s)\n")
        return 0
    except JournalError as exc:  # e.g. the disk filled up between the check and the prune
        sys.stderr.write(f"state: {exc}\n")
        return 1
