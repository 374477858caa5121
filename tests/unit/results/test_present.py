"""Per-command prose: what the model reads first for each kind of result (pure rendering)."""

from __future__ import annotations

from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.diagnostics import MAX_ROWS
from agent_browser_tools.results.next_actions import NextAction, inspect_after_mutation
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.present import command_body, render_prose


def _text(obs: Observation, path: tuple[str, ...]) -> str:
    body, tail = render_prose(obs, path)
    return f"{body}\n{tail}"


def test_navigation_shows_a_title_and_url_line() -> None:
    data = {"url": "https://a.test/next", "title": "Next page"}
    assert command_body(("open",), data) == ["Opened: Next page - https://a.test/next"]
    assert command_body(("open",), {"url": "https://a.test/"}) == [
        "Opened: (untitled) - https://a.test/"
    ]


def test_an_action_that_moved_the_page_names_the_new_page_in_the_tail() -> None:
    obs = Observation(success=True, success_category=SuccessCategory.COMPLETED, data={"ok": 1})
    obs.extra["navigationSummary"] = {"url": "https://a.test/b", "title": "B", "urlChanged": True}
    _, tail = render_prose(obs, ("click",))
    assert tail.splitlines()[0] == "Page: B - https://a.test/b (URL changed)"


def test_tab_list_is_one_line_per_tab_with_the_active_one_marked() -> None:
    data = {
        "tabs": [
            {"tabId": "t1", "title": "Home", "url": "https://a.test/", "active": False},
            {"tabId": "t2", "title": "", "url": "https://b.test/", "active": True},
        ]
    }
    assert command_body(("tab", "list"), data) == [
        "2 tab(s):",
        "  [t1] Home - https://a.test/",
        "* [t2] (untitled) - https://b.test/",
    ]


def test_saved_files_are_named_by_path() -> None:
    assert command_body(("pdf",), {"path": "/tmp/x.pdf"}) == ["Saved: /tmp/x.pdf"]


def _step(n: int, command: list[str], ok: bool, **more: object) -> dict[str, object]:
    return {"step": n, "command": command, "success": ok, **more}


def test_batch_promotes_dispatch_only_mutations_and_puts_the_failed_step_first() -> None:
    steps = [
        _step(1, ["open", "https://a.test/"], True, result={"url": "https://a.test/"}),
        _step(2, ["click", "@e3"], True, dispatchOnly=True, result={"clicked": "@e3"}),
        _step(3, ["fill", "@e9", "x"], False, error="Element not found", failureCategory="x"),
    ]
    obs = Observation(success=False, failure_category=FailureCategory.SELECTOR_NOT_FOUND)
    obs.extra["batchSteps"] = steps
    lines = _text(obs, ("batch",)).splitlines()
    assert lines[0] == "Took effect before step 3 failed: steps 1-2. Do not repeat them."
    assert lines[1].startswith("Dispatched without an observed change: 2. click @e3.")
    assert lines[2] == "First failed step: 3. fill @e9 x [x]: Element not found"
    assert lines[3] == "ok   1. open https://a.test/ -> Opened: (untitled) - https://a.test/"
    assert lines[5] == "FAIL 3. fill @e9 x -> Element not found"


def test_a_failure_after_a_page_move_says_what_took_effect_and_where_the_page_went() -> None:
    """The form was sent: the model must not send it again. Reads do not count as effects,
    and fills before the move are named as not read back, not as unobserved changes."""
    moved = {"navigated": True, "url": "https://a.test/done", "title": "Order received"}
    submit = {"verb": "clicked", "role": "button", "name": "Place order", "ref": "@e3"}
    steps = [
        _step(1, ["fill", "@e1", "Ada"], True, dispatchOnly=True, result={"filled": "@e1"}),
        _step(2, ["get", "url"], True, result={"url": "https://a.test/"}),
        _step(3, ["check", "@e2"], True, dispatchOnly=True, result={"clicked": "@e2"}),
        _step(4, ["click", "@e3"], True, page=moved, effect=submit, result={"clicked": "@e3"}),
        _step(5, ["click", "@e4"], False, error="gone", failureCategory="stale-ref"),
    ]
    obs = Observation(success=False, failure_category=FailureCategory.STALE_REF)
    obs.extra["batchSteps"] = steps
    lines = _text(obs, ("batch",)).splitlines()
    assert lines[0] == (
        "Took effect before step 5 failed: steps 1, 3-4; step 4 moved the page to "
        '"Order received". Do not repeat them.'
    )
    assert lines[1] == (
        "Sent before step 4 moved the page (not read back): 1. fill @e1 Ada, 3. check @e2."
    )
    assert lines[6] == (
        'ok   4. click @e3 -> Clicked button "Place order" (@e3) -> page "Order received" - '
        "https://a.test/done (url changed)"
    )


def test_a_step_without_an_effect_line_still_says_where_it_moved_the_page() -> None:
    moved = {"navigated": True, "url": "https://a.test/next", "title": ""}
    obs = Observation(success=True)
    obs.extra["batchSteps"] = [_step(1, ["press", "Enter"], True, page=moved, result={})]
    assert _text(obs, ("batch",)).splitlines()[0] == (
        "ok   1. press Enter -> page https://a.test/next (url changed)"
    )


def test_a_batch_without_dispatch_only_steps_or_failures_has_no_promoted_lines() -> None:
    obs = Observation(success=True)
    obs.extra["batchSteps"] = [_step(1, ["get", "url"], True, result={"url": "https://a.test/"})]
    assert _text(obs, ("batch",)).splitlines()[0] == "ok   1. get url -> https://a.test/"


def test_failures_end_with_the_category_line_after_exact_next_actions() -> None:
    obs = Observation(
        success=False,
        failure_category=FailureCategory.STALE_REF,
        error="@e3 is stale",
        next_actions=[NextAction("refresh", "Get refs.", {"args": ["snapshot", "-i"]})],
        warnings=["careful"],
    )
    body, tail = render_prose(obs, ("click",))
    assert body == "Error: @e3 is stale"
    assert tail.splitlines() == [
        "Warning: careful",
        "Next actions:",
        "- refresh: snapshot -i - Get refs.",
        "Result category: failure; failureCategory: stale-ref.",
    ]


def test_artifact_prose_states_what_is_on_disk_not_just_the_engine_claim() -> None:
    obs = Observation(
        success=True,
        success_category=SuccessCategory.ARTIFACT_UNVERIFIED,
        data={"path": "/tmp/take.webm"},
    )
    obs.extra["artifacts"] = [
        {"kind": "video", "path": "/tmp/take.webm", "state": "pending", "status": "pending"},
        {
            "kind": "pdf",
            "path": "/tmp/old.pdf",
            "state": "unverified",
            "status": "stale",
            "limitation": "The file was not written during this command.",
        },
        {"kind": "image", "path": "/tmp/a.png", "state": "verified", "sizeBytes": 12},
    ]
    body, tail = render_prose(obs, ("record", "start"))
    assert tail == "Result category: success; successCategory: artifact-unverified."
    assert "Saved: /tmp/take.webm" not in body
    assert body.splitlines() == [
        "Recording video to /tmp/take.webm: pending until `record stop`.",
        "Not verified pdf (stale): /tmp/old.pdf - The file was not written during this command.",
        "Saved image: /tmp/a.png (12 bytes, verified)",
    ]


def test_a_huge_step_error_is_clipped_in_prose() -> None:
    obs = Observation(success=False, failure_category=FailureCategory.UPSTREAM_ERROR)
    obs.extra["batchSteps"] = [_step(1, ["eval", "x"], False, error="E" * 5_000)]
    body, _ = render_prose(obs, ("batch",))
    assert len(body) < 1_000 and body.count("...") == 2


def test_console_and_page_errors_are_counted_and_kept_to_the_latest_rows() -> None:
    messages = [{"type": "log", "text": f"m{i}"} for i in range(MAX_ROWS + 5)]
    lines = command_body(("console",), {"messages": messages})
    assert lines[0] == f"{MAX_ROWS + 5} console message(s)"
    assert lines[1] == "[log] m5" and lines[-1] == f"[log] m{MAX_ROWS + 4}"
    errors = [{"text": "TypeError: x is undefined\n    at f (a.js:1)", "line": 7}]
    assert command_body(("errors",), {"errors": errors}) == [
        "1 page error(s)",
        "- TypeError: x is undefined (line 7)",
    ]


def test_diff_images_say_saved_or_reported_and_a_temp_report_is_named() -> None:
    obs = Observation(success=True, success_category=SuccessCategory.ARTIFACT_UNVERIFIED)
    obs.extra["artifacts"] = [
        {"kind": "diff-image", "path": "/w/d.png", "state": "verified", "sizeBytes": 9},
        {"kind": "diff-image", "path": "/w/e.png", "state": "missing", "status": "missing"},
        {
            "kind": "image",
            "path": "/w/shot.png",
            "state": "verified",
            "sizeBytes": 5,
            "tempPath": "/tmp/engine/screenshot-1.png",
        },
    ]
    body, _ = render_prose(obs, ("diff", "screenshot"))
    assert body.splitlines() == [
        "Saved diff image: /w/d.png (9 bytes, verified)",
        "Diff image reported; file not verified (missing): /w/e.png",
        "Saved image: /w/shot.png (5 bytes, verified)",
        "Reported path: /tmp/engine/screenshot-1.png",
    ]


def test_an_artifact_path_action_names_the_file_instead_of_a_call() -> None:
    action = NextAction(id="use-saved-artifact", reason="Use it.", params={}, artifact_path="/w/r")
    assert action.to_dict() == {
        "tool": "agent_browser",
        "id": "use-saved-artifact",
        "reason": "Use it.",
        "artifactPath": "/w/r",
    }
    obs = Observation(success=True, success_category=SuccessCategory.ARTIFACT_SAVED)
    obs.next_actions.append(action)
    _, tail = render_prose(obs, ("pdf",))
    assert "- use-saved-artifact: file /w/r - Use it." in tail.splitlines()


def test_a_verified_fill_is_one_line_naming_the_field_and_its_value() -> None:
    """No raw JSON, no "unverified" warning, no page line; the routine refresh stays one line."""
    obs = Observation(success=True, data={"filled": "@e4"})
    obs.extra["actionEffect"] = {
        "verb": "filled",
        "ref": "@e4",
        "role": "textbox",
        "name": "Email",
        "value": "ada@example.com",
        "verified": True,
    }
    obs.extra["navigationSummary"] = {"url": "http://x.test/", "title": "X", "urlChanged": False}
    obs.next_actions.append(inspect_after_mutation([]))
    body, tail = render_prose(obs, ("fill",))
    assert body == 'Filled textbox "Email" (@e4) = "ada@example.com"'
    assert tail == "Refs may have changed: snapshot -i"


def test_the_page_line_appears_only_when_the_page_moved() -> None:
    obs = Observation(success=True, data={"pressed": "Enter"})
    nav = {"url": "http://x.test/a", "title": "A", "urlChanged": False}
    obs.extra["navigationSummary"] = nav
    assert "Page:" not in render_prose(obs, ("press",))[1]
    obs.extra["navigationSummary"] = {**nav, "urlChanged": True}
    assert render_prose(obs, ("press",))[1] == "Page: A - http://x.test/a (URL changed)"
