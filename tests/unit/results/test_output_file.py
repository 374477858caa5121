"""`outputPath` rules: resolution, serialization, atomic writes and artifact aliasing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_browser_tools.results.output_file import resolve_output_path, save


def test_relative_paths_resolve_against_the_execution_dir_and_lose_a_leading_at(
    tmp_path: Path,
) -> None:
    target = resolve_output_path("@logs/out.json", tmp_path)
    assert target.display == "logs/out.json"
    assert target.absolute == tmp_path / "logs" / "out.json"
    assert resolve_output_path("/abs/x.txt", tmp_path).absolute == Path("/abs/x.txt")


def test_an_empty_path_is_refused_with_an_example(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"logs/result\.json"):
        resolve_output_path("@ ", tmp_path)


def test_data_is_pretty_json_with_a_trailing_newline(tmp_path: Path) -> None:
    target = resolve_output_path("out/data.json", tmp_path)
    info = save(target, {"rows": [1, 2]}, "visible text", [], tmp_path)
    assert info["status"] == "saved" and info["source"] == "data"
    written = target.absolute.read_text()
    assert written.endswith("}\n") and json.loads(written) == {"rows": [1, 2]}
    assert '\n  "rows"' in written


def test_strings_are_written_as_is_and_no_data_means_the_visible_text(tmp_path: Path) -> None:
    as_is = resolve_output_path("a.txt", tmp_path)
    assert save(as_is, "line 1\nline 2", "ignored", [], tmp_path)["source"] == "data"
    assert as_is.absolute.read_text() == "line 1\nline 2"
    text = resolve_output_path("b.txt", tmp_path)
    assert save(text, None, "visible text", [], tmp_path)["source"] == "text"
    assert text.absolute.read_text() == "visible text"


def test_a_destination_aliasing_a_browser_artifact_is_refused_and_the_artifact_kept(
    tmp_path: Path,
) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"\x89PNG evidence")
    target = resolve_output_path("@./sub/../shot.png", tmp_path)
    info = save(target, {"path": str(shot)}, "", [str(shot)], tmp_path)
    assert info["status"] == "failed" and "same file as the browser artifact" in info["error"]
    assert shot.read_bytes() == b"\x89PNG evidence"


def test_a_failed_write_leaves_no_partial_file(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where a directory is needed")
    target = resolve_output_path("blocker/out.json", tmp_path)
    info = save(target, {"a": 1}, "", [], tmp_path)
    assert info["status"] == "failed" and "could not write" in info["error"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]
