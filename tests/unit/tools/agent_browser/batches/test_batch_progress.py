"""What a stopped batch reports (pure but for the disk checks): argument-row segments, the page
the finished steps reached, declared artifact files, redacted rows, and the visible block."""

from __future__ import annotations

import json
from pathlib import Path

from agent_browser_tools.engine.envelope import BatchRow, EngineFailure, Envelope, OutputMode
from agent_browser_tools.planning.policy import DEFAULT_MAX_TIMEOUT_MS
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.present import render_prose
from agent_browser_tools.results.timeout_progress import progress_lines
from agent_browser_tools.tools.agent_browser.batches import (
    batch_args,
    batch_progress,
    timeout_recovery,
)
from agent_browser_tools.tools.agent_browser.batches.segments import split
from tests.support.plans import FORM, managed, page, plan

ENTRY = page(FORM, refs_from=FORM)
STATE = managed(ENTRY)
NOWHERE = Path("/nonexistent")


def test_argument_rows_are_found_in_argv_even_after_a_global_named_batch() -> None:
    args = ["--session", "batch", "batch", "--bail", "get url", "wait 2000"]
    assert batch_args.row_positions(args, 2) == (4, 5)
    assert batch_args.keep_rows(args, (4, 5), 1, 2) == [*args[:4], "wait 2000"]
    assert batch_args.row_positions(["batch", "get url"], 2) is None, "counts must agree"


def test_an_argument_row_batch_runs_its_slow_step_alone_without_ref_rereads() -> None:
    """Argument rows keep the static latch; only the slow-step split applies to them."""
    call = plan(["batch", "--bail", "click @e13", "wait 2000", "fill @e3 x"], STATE)
    parts = split(call, ENTRY)
    assert parts is not None
    assert [(p.start, p.verify) for p in parts] == [(0, ()), (1, ()), (2, ())]


def test_progress_names_the_page_title_and_checks_declared_artifacts(tmp_path: Path) -> None:
    rows = (
        ("open", "https://a.test/"),
        ("get", "title"),
        ("screenshot", "shot.png"),
        ("wait", "2000"),
        ("pdf", "page.pdf"),
    )
    (tmp_path / "shot.png").write_bytes(b"\x89PNG....")
    answered = (
        BatchRow(rows[0], True, {"url": "https://a.test/", "title": "A"}, None),
        BatchRow(rows[1], True, {"title": "A, renamed"}, None),
        BatchRow(rows[2], True, {"path": str(tmp_path / "shot.png")}, None),
    )
    call = plan(["batch"], STATE, rows=rows)
    progress = batch_progress.build(call, rows, answered, (3, 1), tmp_path)
    assert progress["pageReached"] == "https://a.test/"
    assert progress["pageTitle"] == "A, renamed" and progress["pageReachedAtStep"] == 1
    assert progress["artifactChecks"] == [
        {"step": 3, "path": "shot.png", "status": "done", "exists": True, "sizeBytes": 8},
        {"step": 5, "path": "page.pdf", "status": "not-run", "exists": False},
    ]
    lines = progress_lines(progress)
    assert lines[0] == "Timeout partial progress: 3 of 5 steps done; the watchdog stopped step 4."
    assert "  4. wait 2000: timed-out" in lines
    assert "  Page reached (reported by step 1): A, renamed - https://a.test/" in lines
    assert "  Artifact of step 5 (not-run): page.pdf absent" in lines


def test_the_block_is_visible_in_the_never_cut_tail() -> None:
    rows = (("get", "title"), ("wait", "2000"))
    call = plan(["batch"], STATE, rows=rows)
    obs = Observation(success=False, failure_category=FailureCategory.TIMEOUT, error="stopped")
    obs.extra["timeoutPartialProgress"] = batch_progress.build(call, rows, (), (0, 1), NOWHERE)
    _, tail = render_prose(obs, ("batch",))
    assert "Timeout partial progress: 0 of 2 steps done" in tail


def _stopped(call_args: list[str], rows: tuple[tuple[str, ...], ...], at: int) -> Observation:
    call = plan(call_args, STATE, rows=None if call_args[1:] else rows)
    done = tuple(BatchRow(row, True, {}, None) for row in rows[:at])
    obs = Observation(success=False, failure_category=FailureCategory.TIMEOUT, error="stopped")
    obs.extra["timeoutPartialProgress"] = batch_progress.build(call, rows, done, (at, 1), NOWHERE)
    timeout_recovery.add(call, obs, [], False, DEFAULT_MAX_TIMEOUT_MS)
    return obs


def test_an_argument_row_batch_is_retried_with_the_callers_own_row_strings() -> None:
    rows = (("open", FORM), ("wait", "3000"), ("get", "url"))
    obs = _stopped(["batch", f"open {FORM}", "wait  3000", "get url"], rows, 1)
    (retry,) = [a for a in obs.next_actions if a.id == "retry-remaining-batch-steps"]
    assert retry.params["args"] == ["batch", "wait  3000", "get url"]
    assert "stdin" not in retry.params and retry.params["timeoutMs"] > 3000


def test_rows_redaction_would_change_are_neither_shown_nor_retried() -> None:
    """A retry payload would have to echo the cookie value; the record shows it redacted."""
    rows = (("get", "title"), ("wait", "3000"), ("cookies", "set", "sid", "s3cr3t"))
    obs = _stopped(["batch"], rows, 1)
    assert all(a.id != "retry-remaining-batch-steps" for a in obs.next_actions)
    assert any("not echoed" in w for w in obs.warnings)
    progress = obs.extra["timeoutPartialProgress"]
    assert "s3cr3t" not in json.dumps(progress)
    assert progress["remainingRows"][-1] == ["cookies", "set", "sid", "[REDACTED]"]


def test_a_session_info_timeout_offers_only_the_same_read_again() -> None:
    """Even on an unknown page target: the daemon read says nothing about the page."""
    call = plan(["session", "info"], STATE, timeout_ms=2000)
    obs = Observation(success=False, failure_category=FailureCategory.TIMEOUT, error="stopped")
    timeout_recovery.add(call, obs, [], True, DEFAULT_MAX_TIMEOUT_MS)
    assert [a.id for a in obs.next_actions] == ["retry-session-info"]
    assert obs.next_actions[0].params == {"args": ["session", "info"], "timeoutMs": 4000}


def test_a_batch_stopped_as_one_call_knows_only_its_artifact_files(tmp_path: Path) -> None:
    """No slow step, no segments: every step is `unknown`, the files say how far it got, and
    a click among the stopped steps means no retry."""
    rows = [["screenshot", "a.png"], ["click", "@e13"], ["screenshot", "b.png"]]
    (tmp_path / "a.png").write_bytes(b"png")
    call = plan(["batch"], STATE, rows=rows)
    stopped = Envelope(
        mode=OutputMode.JSON, success=False, error="timed out", failure=EngineFailure.TIMEOUT
    )
    progress = batch_progress.whole(call, stopped, tmp_path).extra["timeoutPartialProgress"]
    assert [s["status"] for s in progress["steps"]] == ["unknown"] * 3
    assert [c["exists"] for c in progress["artifactChecks"]] == [True, False]
    obs = Observation(success=False, failure_category=FailureCategory.TIMEOUT, error="stopped")
    obs.extra["timeoutPartialProgress"] = progress
    timeout_recovery.add(call, obs, [], False, DEFAULT_MAX_TIMEOUT_MS)
    assert all(a.id != "retry-remaining-batch-steps" for a in obs.next_actions)
    assert any(w.startswith("Steps 1-3 may have acted") for w in obs.warnings)
    answered = Envelope(mode=OutputMode.JSON, success=True, rows=())
    assert batch_progress.whole(call, answered, tmp_path) is answered


def test_the_page_reached_is_redacted_like_every_other_page_line() -> None:
    """Step rows are engine output from the page's world: a token in the URL the page
    redirected to, or a credential-like title, must not reach details or text raw."""
    token = "ya29.a0AfB_secretsecretsecret"
    reached = batch_progress.page_reached(
        [
            BatchRow(
                ("open", "https://b.test/"),
                True,
                {"url": f"https://b.test/cb?access_token={token}", "title": f"Bearer {token}"},
                None,
            )
        ]
    )
    assert token not in json.dumps(reached)
    assert reached["pageReached"].startswith("https://b.test/cb?access_token=")
    assert token not in "\n".join(progress_lines({**reached, "steps": []}))
