"""The bounded workspace URL-literal search: what it finds, what it skips, where it stops."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_browser_tools.tools.network_source import workspace
from agent_browser_tools.tools.network_source.workspace import (
    DATA_LINE,
    MAX_MATCHES,
    Needle,
    search,
)

LITERAL = "/api/v1/orders/missing"
NEEDLES = [Needle(LITERAL, 0, 0), Needle("/orders/missing", 1, 0)]


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _files(root: Path, needles: list[Needle] = NEEDLES, max_files: int = 2_000) -> list[str]:
    return [m.file for m in search(root, needles, max_files=max_files).matches]


def test_a_literal_is_found_with_its_relative_file_line_and_column(tmp_path: Path) -> None:
    _write(tmp_path, "src/api.ts", f'// orders\nexport const load = () => fetch("{LITERAL}");\n')
    (match,) = search(tmp_path, NEEDLES, max_files=10).matches
    assert (match.file, match.line, match.column) == ("src/api.ts", 2, 34)
    assert match.text == f'export const load = () => fetch("{LITERAL}");'
    assert match.needle.text == LITERAL  # the most specific needle wins on a line


@pytest.mark.parametrize(
    "skipped",
    [
        "node_modules/lib/index.js",
        ".git/hooks/x.js",
        "dist/app.js",
        "build/app.js",
        ".venv/lib/x.py",
        ".next/server/page.js",
        "coverage/lcov.js",
        "src/app.min.js",
        "src/app.js.map",
        ".env",
        "src/.secret.ts",
        "src/notes.txt",
    ],
)
def test_dependency_build_hidden_and_non_source_files_are_not_searched(
    tmp_path: Path, skipped: str
) -> None:
    _write(tmp_path, skipped, f'fetch("{LITERAL}")\n')
    assert _files(tmp_path) == []


def test_symlinks_never_lead_outside_the_workspace(tmp_path: Path) -> None:
    """Escape attempts: a linked directory and a linked file that point outside the root."""
    outside = tmp_path / "outside"
    _write(outside, "leak.ts", f'fetch("{LITERAL}") // secret outside\n')
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(outside, root / "linked-dir")
    os.symlink(outside / "leak.ts", root / "linked.ts")
    outcome = search(root, NEEDLES, max_files=10)
    assert outcome.matches == []
    assert any("2 symlink(s) not followed" in note for note in outcome.limitations)


def test_the_root_itself_must_be_a_readable_directory(tmp_path: Path) -> None:
    outcome = search(tmp_path / "gone", NEEDLES, max_files=10)
    assert outcome.matches == [] and "could not be read" in outcome.limitations[0]


def test_the_file_budget_stops_the_search_and_says_so(tmp_path: Path) -> None:
    for index in range(5):
        _write(tmp_path, f"src/f{index}.ts", f'fetch("{LITERAL}")\n')
    outcome = search(tmp_path, NEEDLES, max_files=2)
    assert outcome.files_scanned == 2
    assert [m.file for m in outcome.matches] == ["src/f0.ts", "src/f1.ts"]
    assert any("maxWorkspaceFiles=2" in note for note in outcome.limitations)


def test_large_and_binary_files_are_skipped(tmp_path: Path) -> None:
    big = "x" * (workspace.MAX_FILE_BYTES + 1)
    _write(tmp_path, "src/big.ts", f'fetch("{LITERAL}")\n{big}')
    (tmp_path / "src" / "bin.js").write_bytes(b"\x00\x01" + LITERAL.encode())
    outcome = search(tmp_path, NEEDLES, max_files=10)
    assert outcome.matches == []
    assert any("over 512 KiB skipped" in note for note in outcome.limitations)


def test_at_most_ten_matches_and_the_most_specific_first(tmp_path: Path) -> None:
    lines = [f'fetch(base + "/orders/missing") // {i}' for i in range(12)]
    _write(tmp_path, "a/loose.ts", "\n".join(lines))
    _write(tmp_path, "z/exact.ts", f'fetch("{LITERAL}")\n')
    outcome = search(tmp_path, NEEDLES, max_files=10)
    assert len(outcome.matches) == MAX_MATCHES
    assert outcome.matches[0].file == "z/exact.ts"
    assert any("13 literal hits" in note for note in outcome.limitations)


def test_returned_lines_are_trimmed_and_redacted(tmp_path: Path) -> None:
    secret = "Bearer abcdefghijklmnop123456"
    pad = "y" * 400
    _write(
        tmp_path, "src/api.ts", f'{pad} fetch("{LITERAL}", {{headers: {{a: "{secret}"}}}}) {pad}'
    )
    (match,) = search(tmp_path, NEEDLES, max_files=10).matches
    assert len(match.text) <= workspace.LINE_CHARS + 2
    assert LITERAL in match.text and match.text.startswith("…") and match.text.endswith("…")
    assert "abcdefghijklmnop123456" not in match.text and "Bearer [REDACTED]" in match.text


def test_no_needles_reads_nothing(tmp_path: Path) -> None:
    _write(tmp_path, "src/api.ts", f'fetch("{LITERAL}")\n')
    outcome = search(tmp_path, [], max_files=10)
    assert outcome.matches == [] and outcome.files_scanned == 0


def test_a_hit_in_a_data_file_gives_its_place_but_never_the_line(tmp_path: Path) -> None:
    """A saved browser state names the API's path next to cookie values redaction misses."""
    (tmp_path / "state.json").write_text(
        '{"cookies": [{"name": "sid", "value": "s3cr3t-cookie-value", "path": "/api/v1/orders"}]}'
    )
    outcome = search(tmp_path, [Needle("/api/v1/orders", 0, 0)], max_files=100)
    (match,) = outcome.matches
    assert (match.file, match.line) == ("state.json", 1)
    assert "s3cr3t" not in match.text and match.text == DATA_LINE
