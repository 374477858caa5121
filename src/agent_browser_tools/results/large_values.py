"""Huge string values of a command's answer go to a file (pure but for `save`).

Why: an `eval` returning 50 MB, or `get html` of a giant page, is read by nobody inline (the
visible text shows 16,000 characters) yet would travel whole through redaction, details, code
cells and the MCP message. A string longer than `LARGE_VALUE_CHARS` anywhere in the answer is
replaced by its first `LARGE_VALUE_HEAD_CHARS` characters and a marker naming the file that
holds all of it and the exact `spill` call that reads it back through the tool (the state dir
is not the model's to open); `largeValues` in the observation lists each one (field, size, file).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_browser_tools.results.bounds import read_call
from agent_browser_tools.size_limits import LARGE_VALUE_CHARS, LARGE_VALUE_HEAD_CHARS

Save = Callable[[str], str]
"""Saves one whole value privately and returns its path; raises `OSError`."""

MAX_DEPTH = 64
"""Deeper structures are left as they are (answers are shallow; this only bounds the walk)."""


@dataclass
class LargeValues:
    """The values moved out of one answer so far (`rows` go to `details.largeValues`)."""

    save: Save
    limit: int = LARGE_VALUE_CHARS
    head: int = LARGE_VALUE_HEAD_CHARS
    rows: list[dict[str, Any]] = field(default_factory=list)
    _saved: dict[int, str | Exception] = field(default_factory=dict)

    def cut(self, value: Any, where: str, depth: int = 0) -> Any:
        """`value` with every over-limit string replaced (copied only where changed)."""
        if isinstance(value, str):
            return self._replace(value, where) if len(value) > self.limit else value
        if depth >= MAX_DEPTH:
            return value
        if isinstance(value, dict):
            out = {k: self.cut(v, f"{where}.{k}", depth + 1) for k, v in value.items()}
            return out if any(out[k] is not value[k] for k in value) else value
        if isinstance(value, list):
            items = [self.cut(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
            return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
        return value

    def _replace(self, text: str, where: str) -> str:
        # The same string object (a batch's roll-up and its step) is saved once.
        saved = self._saved.get(id(text))
        if saved is None:
            try:
                saved = self.save(text)
            except OSError as exc:
                saved = exc
            self._saved[id(text)] = saved
        total = len(text)
        row: dict[str, Any] = {"field": where, "characters": total}
        if isinstance(saved, Exception):
            row["error"] = f"not saved: {saved}"
            tail = f"the rest could not be saved ({saved}); ask for a smaller part"
        else:
            row["path"] = saved  # the absolute path stays in details; the model reads by name
            name = posixpath.basename(saved)
            tail = f"the whole value is saved as {name}: read it with {read_call(name)}"
        self.rows.append(row)
        return (
            f"{text[: self.head]}\n[... {total - self.head:,} more characters of "
            f"{total:,} not shown; {tail}]"
        )
