"""Reading a saved spill back through the tool: names, windows, the end, and what is refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_browser_tools.results.bounds import read_call
from agent_browser_tools.results.spill_reader import WINDOW_CHARS, answer

NAME = "snapshot-0123456789ab.txt"


def _read(directory: Path, *args: str) -> tuple[bool, str, dict[str, object]]:
    result = answer(directory, {"args": ["spill", *args]}, ["spill", *args])
    return result.is_error, result.text, result.details


def test_windows_follow_each_other_to_the_end_and_reassemble_the_file(tmp_path: Path) -> None:
    text = "".join(f"- row {n} é\n" for n in range(4_000))  # ~50k characters, not ASCII only
    (tmp_path / NAME).write_text(text, encoding="utf-8")
    parts, offset = [], 0
    while True:
        failed, shown, details = _read(tmp_path, NAME, "--offset", str(offset))
        assert not failed and len(shown) < 16_000
        head, rest = shown.split("\n", 1)
        body, tail = rest.rsplit("\n", 1)
        parts.append(body)
        data = details["data"]
        assert isinstance(data, dict) and head.startswith(f"Spill {NAME}: characters {offset}-")
        assert data["text"] == body, "a code cell gets the window as data"
        if data["end"] == len(text):
            assert tail == "End of the spill." and "nextActions" not in details
            break
        assert tail == f"More: {read_call(NAME, int(data['end']))}"
        actions = details["nextActions"]
        assert isinstance(actions, list) and len(actions) == 1
        assert actions[0]["params"] == {"args": ["spill", NAME, "--offset", str(data["end"])]}
        offset = int(data["end"])
        assert offset - int(data["offset"]) == WINDOW_CHARS
    assert "".join(parts) == text


@pytest.mark.parametrize(
    "name",
    [
        "../spill/" + NAME,
        "/etc/passwd",
        NAME + "/..",
        "snapshot-0123456789ab.txt\x00",
        "snapshot-XYZ.txt",
        "journal.sqlite",
        "",
        "..",
    ],
)
def test_a_path_or_a_name_the_wrapper_never_writes_is_refused(tmp_path: Path, name: str) -> None:
    failed, shown, details = _read(tmp_path, name)
    assert failed and details["failureCategory"] == "validation-error"
    assert "not a path" in shown


def test_a_symlink_in_the_spill_dir_is_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "outside.txt"
    secret.write_text("the state dir's secret")
    spills = tmp_path / "spill"
    spills.mkdir()
    os.symlink(secret, spills / NAME)
    failed, shown, _ = _read(spills, NAME)
    assert failed and "No spill named" in shown and "secret" not in shown


def test_a_missing_spill_says_why_and_what_to_do(tmp_path: Path) -> None:
    failed, shown, _ = _read(tmp_path, NAME)
    assert failed and "No spill named" in shown and "run the command again" in shown


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((NAME, "--offset", "-1"), "character count"),
        ((NAME, "--offset", "ten"), "character count"),
        ((NAME, "--offset", "999999"), "past the end"),
        ((NAME, "--from", "3"), "reads a saved output by name"),
        ((), "reads a saved output by name"),
    ],
)
def test_bad_offsets_and_shapes_name_the_usage(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    (tmp_path / NAME).write_text("short")
    failed, shown, _ = _read(tmp_path, *args)
    assert failed and says in shown
