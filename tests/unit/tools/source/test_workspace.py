"""The workspace search of `agent_browser_source` (pure filesystem, no engine): what it
matches and ranks, and the budgets it gives the shared walk (`.ts/.tsx/.js/.jsx`, the first
256 KiB of a file, `maxWorkspaceFiles`). How the walk stays inside the workspace (symlinks,
special files, skipped dirs, the server's own state) is tested in `test_workspace_files.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.tools.source.workspace import (
    MAX_FILE_BYTES,
    MAX_MATCHES,
    attribute_needle,
    class_needle,
    component_needles,
    scan,
)

BUTTON = 'import x from "y";\n\nexport function SaveButton() {\n  return <button id="save" />;\n}\n'


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def found(
    root: Path, name: str = "SaveButton", max_files: int | None = None
) -> list[tuple[str, int, str]]:
    result = scan(root.resolve(), component_needles(name), max_files=max_files)
    return [(m.file, m.line, m.needle.kind) for m in result.matches]


def test_definition_and_usage_with_relative_path_line_and_column(tmp_path: Path) -> None:
    write(tmp_path, "src/SaveButton.tsx", BUTTON)
    write(tmp_path, "src/Toolbar.jsx", "const Toolbar = () => (\n  <nav><SaveButton /></nav>\n);\n")
    result = scan(tmp_path.resolve(), component_needles("SaveButton"))
    got = [(m.file, m.line, m.column, m.needle.kind, m.needle.confidence) for m in result.matches]
    assert got == [
        ("src/SaveButton.tsx", 3, 8, "definition", "high"),
        ("src/Toolbar.jsx", 2, 8, "usage", "low"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "export const SaveButton = () => null;",
        "export class SaveButton extends React.Component {}",
        "let SaveButton: FC = () => null;",
        "export default function SaveButton() {}",
    ],
)
def test_definition_forms(tmp_path: Path, text: str) -> None:
    write(tmp_path, "a.ts", text)
    assert found(tmp_path) == [("a.ts", 1, "definition")]


def test_a_longer_name_is_not_a_match(tmp_path: Path) -> None:
    write(tmp_path, "a.tsx", "function SaveButtonGroup() { return <SaveButtons/>; }\n")
    assert found(tmp_path) == []


def test_only_ts_tsx_js_jsx_files_are_read(tmp_path: Path) -> None:
    for suffix in ("ts", "tsx", "js", "jsx", "mjs", "py", "md", "html", "json"):
        write(tmp_path, f"f.{suffix}", "function SaveButton() {}\n")
    assert sorted(f for f, _, _ in found(tmp_path)) == ["f.js", "f.jsx", "f.ts", "f.tsx"]


def test_the_file_budget_stops_the_walk(tmp_path: Path) -> None:
    for index in range(5):
        write(tmp_path, f"f{index}.ts", "function SaveButton() {}\n")
    result = scan(tmp_path.resolve(), component_needles("SaveButton"), max_files=3)
    assert result.files_read == 3 and result.file_limit_hit
    assert [m.file for m in result.matches] == ["f0.ts", "f1.ts", "f2.ts"]
    assert any("maxWorkspaceFiles" in note for note in result.limitations())


def test_at_most_ten_matches(tmp_path: Path) -> None:
    for index in range(15):
        write(tmp_path, f"f{index:02}.ts", "function SaveButton() {}\n")
    result = scan(tmp_path.resolve(), component_needles("SaveButton"))
    assert len(result.matches) == MAX_MATCHES == 10
    assert result.more_matches
    assert any("More than 10" in note for note in result.limitations())


def test_definitions_rank_above_usages_within_the_cap(tmp_path: Path) -> None:
    for index in range(12):
        write(tmp_path, f"a{index:02}.tsx", "<SaveButton />\n")
    write(tmp_path, "z.tsx", "function SaveButton() {}\n")
    result = scan(tmp_path.resolve(), component_needles("SaveButton"))
    assert result.matches[0].file == "z.tsx" and result.matches[0].needle.kind == "definition"


def test_bytes_read_per_file_are_bounded(tmp_path: Path) -> None:
    filler = "// " + "x" * 76 + "\n"
    late = filler * (MAX_FILE_BYTES // len(filler) + 10) + "function SaveButton() {}\n"
    write(tmp_path, "big.js", late)
    result = scan(tmp_path.resolve(), component_needles("SaveButton"))
    assert result.matches == [] and result.truncated_files == 1
    assert any("first 256 KiB" in note for note in result.limitations())


def test_excerpts_are_redacted(tmp_path: Path) -> None:
    token = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    write(
        tmp_path,
        "a.tsx",
        f'const SaveButton = () => fetch("/x", {{ headers: {{ auth: "Bearer {token}" }} }});\n',
    )
    (match,) = scan(tmp_path.resolve(), component_needles("SaveButton")).matches
    assert token not in match.excerpt and "SaveButton" in match.excerpt


@pytest.mark.parametrize(
    ("line", "hit"),
    [
        ('<button id="save">', True),
        ("<button id='save'>", True),
        ('<button id={"save"}>', True),
        ('<button data-id="save">', False),
        ('<button id="save-all">', False),
    ],
)
def test_attribute_literal(tmp_path: Path, line: str, hit: bool) -> None:
    write(tmp_path, "a.jsx", line + "\n")
    result = scan(tmp_path.resolve(), [attribute_needle("id", "save")])
    assert bool(result.matches) is hit


def test_class_literal(tmp_path: Path) -> None:
    write(tmp_path, "a.jsx", '<a className="btn primary" />\n<a className="btn-primary" />\n')
    result = scan(tmp_path.resolve(), [class_needle("primary")])
    assert [m.line for m in result.matches] == [1]


def test_no_needles_reads_nothing(tmp_path: Path) -> None:
    write(tmp_path, "a.ts", "function SaveButton() {}\n")
    result = scan(tmp_path.resolve(), [])
    assert result.files_read == 0 and result.matches == []
