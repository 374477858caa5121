"""The README's fenced code blocks, so tests can parse and run what users copy."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    line: int
    """1-based line of the opening fence."""


def fenced_blocks(text: str | None = None) -> list[Block]:
    """Every ``` fenced block of `text` (the README by default), in order."""
    lines = (README.read_text(encoding="utf-8") if text is None else text).splitlines()
    blocks: list[Block] = []
    opened: tuple[str, int] | None = None
    body: list[str] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if opened is None and stripped.startswith("```"):
            opened, body = (stripped[3:].strip(), number), []
        elif opened is not None and stripped == "```":
            blocks.append(Block(opened[0], "\n".join(body), opened[1]))
            opened = None
        elif opened is not None:
            body.append(line)
    if opened is not None:
        raise AssertionError(f"README.md: the fence opened on line {opened[1]} is never closed")
    return blocks


def block_after(marker: str, lang: str) -> Block:
    """The first `lang` block after the first README line containing `marker`."""
    text = README.read_text(encoding="utf-8")
    at = text.index(marker)
    start_line = text[:at].count("\n") + 1
    for block in fenced_blocks(text):
        if block.line > start_line and block.lang == lang:
            return block
    raise AssertionError(f"README.md: no {lang} block after {marker!r}")
