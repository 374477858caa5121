"""Reading a saved spill back through the tool: names, windows, the end, and what is refused."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.results.bounds import bound_visible, read_call, spill_bytes
from agent_browser_tools.results.large_values import LargeValues
from agent_browser_tools.results.message_budget import fit_message
from agent_browser_tools.results.spill_reader import WINDOW_CHARS, answer, asks
from agent_browser_tools.results.tool_result import TextBlock, ToolResult

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
        ".",
        "./" + NAME,
        NAME + "/",
        "stdout-k2j_x9.out",  # the engine's raw overflow: unredacted, never named
        "stdout-0123456789ab.out",
        "image-0123456789ab.png",
        "snapshot-0123456789ab.txt.bak",
        " snapshot-0123456789ab.txt",
        "snapshot-0123456789ab.txt\n",
        "snapshot-０１２３４５.txt",  # full-width digits
        "%2e%2e%2fsnapshot-0123456789ab.txt",
        "snapshot-0123456789ab.txt;rm",
        "--offset",
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
    assert failed and "No spill named" in shown and "Run the command that made it again" in shown


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


def test_a_spill_removed_between_windows_says_it_is_gone_not_empty(tmp_path: Path) -> None:
    (tmp_path / NAME).write_text("x" * (WINDOW_CHARS + 10))
    failed, _, details = _read(tmp_path, NAME)
    assert not failed and details["nextActions"]
    (tmp_path / NAME).unlink()  # evicted (the operator's `state prune`)
    failed, shown, details = _read(tmp_path, NAME, "--offset", str(WINDOW_CHARS))
    assert failed and details["failureCategory"] == "validation-error"
    assert f"No spill named {NAME} in this conversation: it was removed" in shown


def test_a_directory_or_fifo_under_a_spill_name_is_refused(tmp_path: Path) -> None:
    (tmp_path / NAME).mkdir()
    failed, shown, _ = _read(tmp_path, NAME)
    assert failed and "No spill named" in shown
    fifo = "observation-0123456789ab.json"
    os.mkfifo(tmp_path / fifo)
    failed, shown, _ = _read(tmp_path, fifo)  # O_NONBLOCK-free open of a FIFO would hang
    assert failed and "No spill named" in shown


def test_the_offset_at_the_end_is_an_empty_last_window_and_one_past_is_refused(
    tmp_path: Path,
) -> None:
    (tmp_path / NAME).write_text("abc")
    failed, shown, details = _read(tmp_path, NAME, "--offset", "3")
    assert not failed and shown == f"Spill {NAME}: characters 3-3 of 3.\n\nEnd of the spill."
    assert "nextActions" not in details
    failed, shown, _ = _read(tmp_path, NAME, "--offset", "4")
    assert failed and "past the end" in shown


def test_global_flags_around_the_call_are_not_its_operands(tmp_path: Path) -> None:
    """A code cell sends `--session NAME` first; `--json` asks for JSON with the window."""
    (tmp_path / NAME).write_text("héllo")
    args = ["--session", "cell-1", "spill", NAME, "--json"]
    assert asks(args) and not asks(["open", "spill"]) and not asks([])
    result = answer(tmp_path, {"args": args}, args)
    assert not result.is_error, result.text
    shown = json.loads(result.text)
    assert shown["data"] == {"name": NAME, "offset": 0, "end": 5, "total": 5, "text": "héllo"}


def _follow(directory: Path, text: str) -> str:
    """Everything the first read call quoted in `text` leads to, window after window."""
    found = re.search(r"agent_browser (\{\"args\": \[[^\]]*\]\})", text)
    assert found, text[-600:]
    params: dict[str, Any] = json.loads(found.group(1))
    parts: list[str] = []
    while True:
        result = answer(directory, params, params["args"])
        assert not result.is_error, result.text
        data = result.details["data"]
        assert isinstance(data, dict)
        parts.append(str(data["text"]))
        actions = result.details.get("nextActions")
        if not actions:
            return "".join(parts)
        assert isinstance(actions, list)
        params = actions[0]["params"]


def test_every_kind_of_spill_names_a_call_that_reads_it_back_whole(tmp_path: Path) -> None:
    """Cut observation, huge value, message-budget text and details part: each result line
    names an exact call, and following it returns the file the wrapper wrote."""
    observation = {"data": "o" * 40_000}
    bounded = bound_visible("b" * 20_000, "tail", observation, tmp_path)
    assert bounded.observation_path is not None
    whole = Path(bounded.observation_path).read_text(encoding="utf-8")
    assert _follow(tmp_path, bounded.text) == whole

    huge = "v" * (1024 * 1024 + 5)
    values = LargeValues(lambda t: str(spill_bytes(tmp_path, "value", ".txt", t.encode())))
    shown = values.cut(huge, "data")
    assert _follow(tmp_path, shown) == huge

    def write(stem: str, suffix: str, data: bytes) -> str:
        return str(spill_bytes(tmp_path, stem, suffix, data))

    big = "line\n" * 300_000
    result = ToolResult(content=(TextBlock(text=big),), details={"refSnapshot": "r" * 400_000})
    fitted = fit_message(result, write, budget=256 * 1024)
    cut_marker = fitted.text.split("[... ", 1)[1]
    assert _follow(tmp_path, cut_marker) == big
    notice = fitted.text.rsplit("\n", 1)[1]
    assert "Read a saved part with agent_browser" in notice
    moved = {
        Path(m["path"]).name: Path(m["path"]) for m in fitted.details["messageBudget"]["moved"]
    }
    first = re.search(r'"spill", "([^"]+)"', notice.split("Read a saved part", 1)[1])
    assert first is not None and first.group(1) in moved
    assert _follow(tmp_path, notice.split("Read a saved part", 1)[1]) == moved[
        first.group(1)
    ].read_text(encoding="utf-8")


def test_secrets_are_scrubbed_over_the_whole_file_before_it_is_cut(tmp_path: Path) -> None:
    """A value registered after the spill was written, straddling a window edge, is still
    replaced: the scrub sees the whole text, not two halves."""
    text = "a" * (WINDOW_CHARS - 3) + "hunter2" + "b" * 10
    (tmp_path / NAME).write_text(text)

    def scrub(value: str) -> str:
        return value.replace("hunter2", "[secret]")

    args = ["spill", NAME]
    first = answer(tmp_path, {"args": args}, args, scrub)
    assert "hun" not in first.text
    params = first.details["nextActions"][0]["params"]
    second = answer(tmp_path, params, params["args"], scrub)
    assert "ter2" not in second.text and "2bbb" not in second.text
    whole = first.details["data"]["text"] + second.details["data"]["text"]
    assert whole == scrub(text)


@pytest.mark.parametrize("unit", ['"', "\x01", "\\", "\n"])
def test_a_json_window_of_escape_heavy_text_stays_under_the_visible_limit(
    tmp_path: Path, unit: str
) -> None:
    """Every character of these escapes to 2-6 in JSON: the window shrinks to fit, and the
    windows still follow each other to the whole text."""
    text = unit * 40_000
    (tmp_path / NAME).write_text(text, encoding="utf-8", newline="")
    params: dict[str, Any] = {"args": ["spill", NAME, "--json"]}
    parts: list[str] = []
    while True:
        result = answer(tmp_path, params, params["args"])
        assert not result.is_error and len(result.text) <= 16_000
        shown = json.loads(result.text)
        parts.append(shown["data"]["text"])
        if not shown.get("nextActions"):
            break
        params = {"args": [*shown["nextActions"][0]["params"]["args"], "--json"]}
    assert "".join(parts) == text
