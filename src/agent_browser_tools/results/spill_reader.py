"""`agent_browser` answered without the engine: `spill NAME [--offset N]` reads a saved spill.

Why: a result that does not fit names a saved spill (a compacted snapshot's full tree, a cut
observation, a huge value, a part moved out by the message budget), but spills live in the
state dir, which the file policy keeps out of the model's reach (and many hosts give the model
no file tool at all), so the model would be told where the rest is and never read it. This
reads it back through the tool, a window at a time, with the exact call for the next window;
every line that names a spill quotes its first call (`bounds.read_call`). The spelling is a
command word of its own (a wrapper-only taxonomy row), not a `snapshot` flag, because spills
come from any command; `--offset` counts characters, as the window header does.

Only this conversation's spill dir (`Runtime.spill_dir`) is read, and only by a name of the
shape the wrapper gives the spills it names (no path, no `..`, no symlink, no FIFO): a name
from another conversation is simply not there, and a removed one says so. Spills are redacted
before they are written and the conversation's secrets are scrubbed again over the whole file;
nothing here un-redacts. A window (prose or `--json`) stays under the visible limit.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_browser_tools import taxonomy
from agent_browser_tools.results import response
from agent_browser_tools.results.bounds import SPILL_COMMAND, VISIBLE_LIMIT, read_call
from agent_browser_tools.results.categories import SuccessCategory
from agent_browser_tools.results.next_actions import NextAction
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult

WINDOW_CHARS = 12_000
"""Characters per read: the visible limit less room for the header and the next call."""
NAME = re.compile(r"[a-z]+(?:-[A-Za-z]+)*-[0-9a-f]{6,64}\.(?:txt|json)")
"""The names the wrapper gives the spills it names: `snapshot-<hex>.txt`,
`observation-<hex>.json`, `value-<hex>.txt`, `details-<key>-<hex>.json`, `text-<hex>.txt`.
Not the engine's raw overflow (`stdout-*.out`: unredacted, removed once parsed, never named)
nor images (not text)."""
USAGE = 'agent_browser {"args": ["spill", "<name from the result>", "--offset", "<N>"]}'


def asks(args: Sequence[str]) -> bool:
    """Whether the call is a spill read: its command word, after any global flags (a code
    cell's `--session`), is `spill`."""
    _globals, words = taxonomy.split_global_flags(args)
    return bool(words) and words[0] == SPILL_COMMAND


def answer(
    spill_dir: Path,
    params: Mapping[str, Any],
    args: Sequence[str],
    scrub: Callable[[str], str] = str,
) -> ToolResult:
    """The window of the named spill, or a validation error that says what to do.

    `scrub` (the conversation's secret values) runs over the whole file before it is cut
    into windows: a value registered after the spill was written cannot straddle a window
    edge and leave each half unrecognised."""
    wants_json = response.caller_wants_json(params)
    try:
        name, offset = _parse(args)
        text = scrub(_read(spill_dir, name))
    except ValueError as exc:
        return response.rejected(str(exc), params, wants_json=wants_json)
    if offset > len(text):
        message = f"--offset {offset} is past the end of {name} ({len(text)} characters)."
        return response.rejected(message, params, wants_json=wants_json)
    end = min(len(text), offset + WINDOW_CHARS)
    result = _window(name, text, offset, end, wants_json)
    while len(result.text) > VISIBLE_LIMIT and end > offset + 1:
        # JSON escapes (newlines, quotes, control characters) can grow a window past the
        # visible limit: shrink it in proportion; the next call starts where this one ends.
        end = offset + max(1, (end - offset) * VISIBLE_LIMIT * 9 // (len(result.text) * 10))
        result = _window(name, text, offset, end, wants_json)
    return result


def _window(name: str, text: str, offset: int, end: int, wants_json: bool) -> ToolResult:
    """Characters `offset`-`end` of spill `name`, with the exact call for the next window."""
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
        text_out = json.dumps(obs.to_dict(), ensure_ascii=False)
        return response.from_observation(obs, text=text_out)
    return response.from_observation(obs, text="\n".join(lines))


def _parse(args: Sequence[str]) -> tuple[str, int]:
    words = taxonomy.split_global_flags(args)[1][1:]  # `--json`, a cell's `--session`: not ours
    if len(words) == 1:
        words += ["--offset", "0"]
    if len(words) != 3 or words[1] != "--offset":
        raise ValueError(f"`spill` reads a saved output by name: {USAGE}.")
    name, raw = words[0], words[2]
    if not NAME.fullmatch(name):  # not `match`: `$` would let a trailing newline through
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
        f"No spill named {name} in this conversation: it was removed (the operator's "
        "`state prune` removes a conversation's spills), or the name came from another "
        "conversation, whose spills are its own. Run the command that made it again."
    )
    try:  # O_NONBLOCK: a FIFO planted under a spill name must not hang the open
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        raise gone from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a directory, FIFO or device: not a spill
        os.close(fd)
        raise gone
    with os.fdopen(fd, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")
