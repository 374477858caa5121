"""`agent_browser_network_source`'s workspace search: literal request-URL needles in text sources.

How the workspace is read (under the execution directory only, never through a symlink,
regular files only, never the server's own state, dependency/build/hidden trees and dotfiles
such as `.env` skipped, minified bundles and binaries skipped, every budget) is
`workspace_files`'s. This module owns what is searched: the text suffixes below, files of at
most `MAX_FILE_BYTES` (a larger one is generated and skipped), the needles, at most
`MAX_RAW_HITS` hits and the `MAX_MATCHES` most specific. Returned lines are trimmed and
redacted: a literal often sits next to a credential.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from agent_browser_tools.redaction import redact_text
from agent_browser_tools.workspace_files import Oversize, WalkRules, WorkspaceWalk, clamp_max_files

TEXT_SUFFIXES = (
    ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte",
    ".astro", ".html", ".htm", ".py", ".rb", ".go", ".rs", ".java", ".kt", ".swift",
    ".php", ".cs", ".dart", ".json", ".graphql", ".gql", ".yaml", ".yml", ".toml",
)  # fmt: skip
DATA_SUFFIXES = (".json", ".yaml", ".yml", ".toml")
"""Data, not code: saved browser state, HARs and configs hold cookie values and tokens that
redaction does not recognise, so a hit there gives its place but never the line."""
DATA_LINE = "(a data file: the line is not shown)"
MAX_FILE_BYTES = 512 * 1024
MAX_RAW_HITS = 200
MAX_MATCHES = 10
LINE_CHARS = 160


@dataclass(frozen=True)
class Needle:
    """A search string; `rank` 0 is the most specific; `request` indexes the failed request."""

    text: str
    rank: int
    request: int


@dataclass(frozen=True)
class Match:
    file: str
    """Relative to the search root, `/`-separated."""
    line: int
    column: int
    text: str
    """The matching line, trimmed to `LINE_CHARS` around the hit and redacted."""
    needle: Needle


@dataclass
class SearchOutcome:
    matches: list[Match] = field(default_factory=list)
    files_scanned: int = 0
    limitations: list[str] = field(default_factory=list)


def search(
    root: Path, needles: Sequence[Needle], *, max_files: int, excluded: Sequence[Path] = ()
) -> SearchOutcome:
    """The best `MAX_MATCHES` literal hits of `needles` under `root` (most specific first);
    `excluded` are the server's own places, never read even inside the workspace."""
    outcome = SearchOutcome()
    if not needles:
        return outcome
    rules = WalkRules(
        suffixes=TEXT_SUFFIXES,
        max_file_bytes=MAX_FILE_BYTES,
        oversize=Oversize.SKIP,
        max_files=clamp_max_files(max_files),
        excluded=tuple(excluded),
    )
    walk = WorkspaceWalk(root, rules)
    ordered = sorted(needles, key=lambda n: n.rank)
    hits: list[Match] = []
    with closing(walk.files()) as files:
        for file in files:
            hits += _scan(file.path, file.text, ordered)
            if len(hits) >= MAX_RAW_HITS:
                outcome.limitations.append(
                    f"workspace search stopped after {MAX_RAW_HITS} literal hits; later files "
                    "were not searched"
                )
                break
    hits.sort(key=lambda m: (m.needle.rank, m.file, m.line))
    outcome.matches = hits[:MAX_MATCHES]
    outcome.files_scanned = walk.report.files_read
    outcome.limitations += walk.limitations()
    if len(hits) > MAX_MATCHES:
        outcome.limitations.append(
            f"{len(hits)} literal hits; the {MAX_MATCHES} most specific are listed"
        )
    return outcome


def _scan(rel: str, text: str, needles: Sequence[Needle]) -> list[Match]:
    """One hit per matching line, for the most specific needle found on it."""
    present = [n for n in needles if n.text in text]
    if not present:
        return []
    hits: list[Match] = []
    for number, line in enumerate(text.split("\n"), start=1):
        for needle in present:
            at = line.find(needle.text)
            if at >= 0:
                data = rel.lower().endswith(DATA_SUFFIXES)
                shown = DATA_LINE if data else _trim(line, at, len(needle.text))
                hits.append(Match(rel, number, at + 1, shown, needle))
                break
    return hits


def _trim(line: str, at: int, width: int) -> str:
    """The line around the hit, at most `LINE_CHARS` characters, redacted."""
    line = line.rstrip("\r")
    if len(line.strip()) <= LINE_CHARS:
        return redact_text(line.strip())
    start = max(0, min(at - (LINE_CHARS - width) // 2, len(line) - LINE_CHARS))
    window = line[start : start + LINE_CHARS].strip()
    head = "…" if start > 0 else ""
    tail = "…" if start + LINE_CHARS < len(line) else ""
    return redact_text(head + window + tail)
