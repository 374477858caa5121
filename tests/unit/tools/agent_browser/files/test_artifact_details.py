"""`artifact_details.artifact_actions` as the model reads them: the visible line alone names
the file and says what to do with it (pure)."""

from __future__ import annotations

from agent_browser_tools.results.action_lines import next_action_lines
from agent_browser_tools.tools.agent_browser.files.artifact_details import artifact_actions


def _lines(entries: list[dict[str, str]], saved: str | None) -> list[str]:
    actions = [a.to_dict() for a in artifact_actions(entries, saved)]
    return next_action_lines(actions, success=True)


def test_a_saved_file_line_carries_its_path_and_sends_nowhere_else() -> None:
    """Many hosts show a model only the text: the line must not point at a structured field."""
    lines = _lines([{"path": "/w/out.pdf", "state": "verified", "kind": "pdf"}], "/w/out.pdf")
    assert lines == [
        "Next actions:",
        "- use-saved-artifact: file /w/out.pdf - Saved and verified on disk at this path.",
    ]


def test_an_unverified_file_line_carries_its_path() -> None:
    entries = [{"path": "/w/a.png", "state": "missing", "kind": "image", "status": "absent"}]
    (head, line) = _lines(entries, None)
    assert head == "Next actions:"
    assert line.startswith("- verify-artifact-path: file /w/a.png - This image was not verified")
    assert "structured" not in line and "details." not in line.split(" - ", 1)[1]
