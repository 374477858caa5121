"""Visible-text bounds: the tail (recovery argv) is never cut, and spills are named honestly."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent_browser_tools.results.bounds import VISIBLE_LIMIT, bound_json, bound_visible

TAIL = "Next actions:\n- retry: snapshot -i - Refresh refs."


def test_small_output_is_untouched_and_nothing_is_spilled(tmp_path: Path) -> None:
    bounded = bound_visible("body", TAIL, {"success": True}, tmp_path / "spill")
    assert bounded.text == f"body\n{TAIL}" and bounded.observation_path is None
    assert not (tmp_path / "spill").exists()


def test_oversized_body_is_cut_the_tail_kept_whole_and_the_spill_named(tmp_path: Path) -> None:
    observation = {"success": True, "data": "x" * 40_000}
    bounded = bound_visible("x" * 40_000, TAIL, observation, tmp_path / "spill")
    assert len(bounded.text) <= VISIBLE_LIMIT
    assert bounded.text.endswith(TAIL)
    path = bounded.observation_path
    assert path is not None
    read = f'read it with agent_browser {{"args": ["spill", "{Path(path).name}"]}}'
    assert f"The complete observation is saved as {Path(path).name}: {read}" in bounded.text
    assert path not in bounded.text, "the model reads by name; the path stays in details"
    assert json.loads(Path(path).read_text()) == observation
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_spill_failure_as_a_file_in_the_way_is_reported(tmp_path: Path) -> None:
    """A regular file where the spill directory should be (fails even as root)."""
    blocker = tmp_path / "spill"
    blocker.write_text("not a directory")
    bounded = bound_visible("x" * 40_000, TAIL, {"success": True}, blocker)
    assert bounded.observation_path is None and bounded.spill_error
    assert "The full observation could not be saved" in bounded.text
    assert "observationPath" not in bounded.text and bounded.text.endswith(TAIL)


def test_oversized_caller_json_stays_parseable_with_decision_fields(tmp_path: Path) -> None:
    observation = {
        "success": False,
        "resultCategory": "failure",
        "failureCategory": "timeout",
        "nextActions": [{"id": "retry", "params": {"args": ["get", "url"]}}],
        "data": {"rows": ["y" * 100] * 400},
    }
    bounded = bound_json(observation, tmp_path / "spill", compact_text="- button [ref=e1]")
    parsed = json.loads(bounded.text)
    assert len(bounded.text) <= VISIBLE_LIMIT
    assert parsed["failureCategory"] == "timeout" and parsed["nextActions"][0]["id"] == "retry"
    assert parsed["dataOmitted"] is True and parsed["observationPath"] == bounded.observation_path
    assert parsed["data"] == {"snapshot": "- button [ref=e1]", "compacted": True}
    name = Path(str(bounded.observation_path)).name
    assert parsed["spillReads"] == {"observationPath": {"args": ["spill", name]}}


def test_caller_json_names_the_read_of_a_snapshot_spill_even_when_it_fits(tmp_path: Path) -> None:
    """A `--json` caller sees no prose line: the JSON itself carries the exact read params."""
    path = str(tmp_path / "spill" / "snapshot-0123456789ab.txt")
    bounded = bound_json({"success": True, "fullOutputPath": path}, tmp_path / "spill")
    parsed = json.loads(bounded.text)
    assert bounded.observation_path is None and parsed["fullOutputPath"] == path
    reads = {"fullOutputPath": {"args": ["spill", "snapshot-0123456789ab.txt"]}}
    assert parsed["spillReads"] == reads
    plain = json.loads(bound_json({"success": True}, tmp_path / "spill").text)
    assert "spillReads" not in plain
