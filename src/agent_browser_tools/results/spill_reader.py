"""`agent_browser` answered without the engine: `spill NAME [--offset N]` reads a saved spill.

Why: a result that does not fit names a file (`Full snapshot: ...`), but that file lives in
the state dir, which the file policy keeps out of the model's reach (and many hosts give the
model no file tool at all), so the model could be told where the rest was and never read it.
This reads it back through the tool, a window at a time, with the exact call for the next
window.

Only this conversation's spill dir (`Runtime.spill_dir`) is read, and only by a file name
the wrapper writes there (no path, no `..`, no symlink): a name from another conversation is
simply not there. Spills are redacted before they are written; nothing here un-redacts. The
window stays well under the 16,000-character visible limit.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_browser_tools.results import response
from agent_browser_tools.results.bounds import SPILL_COMMAND, read_call
from agent_browser_tools.results.categories import SuccessCategory
from agent_browser_tools.results.next_actions import NextAction
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult

WINDOW_CHARS = 12_000
"""Characters per read: the visible limit less room for the header and the next call."""
NAME = re.compile(r"^[a-z]+-[0-9a-f]{6,64}\.(txt|json)$")
"""The names the wrapper gives its spills (`snapshot-<hex>.txt`, `observation-<hex>.json`)."""
USAGE = 'agent_browser {"args": ["spill", "<name from the result>", "--offset", "<N>"]}'


def asks(args: Sequence[str]) -> bool:
    """Whether the call is a spill read (its first word is `spill`)."""
    return bool(args) and args[0] == SPILL_COMMAND


def answer(spill_dir: Path, params: Mapping[str, Any], args: Sequence[str]) -> ToolResult:
    """The window of the named spill, or a validation error that says what to do."""
    wants_json = response.caller_wants_json(params)
    try:
        name, offset = _parse(args)
        text = _read(spill_dir, name)
    except ValueError as exc:
        return response.rejected(str(exc), params, wants_json=wants_json)
    if offset > len(text):
        message = f"--offset {offset} is past the end of {name} ({len(text)} characters)."
        return response.rejected(message, params, wants_json=wants_json)
    end = min(len(text), offset + WINDOW_CHARS)
    head = f"Spill {name}: characters {offset}-{end} of {len(text)}."
    obs = Observation(success=True, success_category=SuccessCategory.INSPECTION)
    window = text[offset:end]
    # The window is in `data` too: a code cell gets the observation, not the prose.
    obs.data = {"name": name, "offset": offset, "end": end, "total": len(text), "text": window}
    lines = [head, window]
    if end < len(text):
        obs.next_actions.append(
            NextAction(
                id="read-more-of-spill",
                reason="The rest of the saved output, from where this window ended.",
                params={"args": [SPILL_COMMAND, name, "--offset", str(end)]},
            )
        )
        lines.append(f"More: {read_call(name, end)}")
    else:
        lines.append("End of the spill.")
    if wants_json:
        return response.from_observation(obs, text=json.dumps(obs.to_dict()))
    return response.from_observation(obs, text="\n".join(lines))


def _parse(args: Sequence[str]) -> tuple[str, int]:
    words = [a for a in args[1:] if a != "--json"]
    if len(words) == 1:
        words += ["--offset", "0"]
    if len(words) != 3 or words[1] != "--offset":
        raise ValueError(f"`spill` reads a saved output by name: {USAGE}.")
    name, raw = words[0], words[2]
    if not NAME.match(name):
        raise ValueError(
            f"`spill` takes the file name a result gave (e.g. snapshot-1a2b3c4d5e6f.txt), not "
            f"a path or another name: {USAGE}."
        )
    if not raw.isdigit():
        raise ValueError(f"--offset takes a character count (0 or more), not {raw[:20]!r}.")
    return name, int(raw)


def _read(directory: Path, name: str) -> str:
    """The spill's text; a missing, replaced or linked file is refused (never followed)."""
    path = directory / name
    gone = ValueError(
        f"No spill named {name} in this conversation: spills are kept per conversation and "
        "the oldest are removed; run the command again to get a new one."
    )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        raise gone from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise gone
        return handle.read().decode("utf-8", errors="replace")
