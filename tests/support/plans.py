"""Pure execution plans and session states for the direct tool's stage tests.

Plans are built by the production planner (`build_plan`) against a hand-written state, so a
stage test needs no runtime, journal or engine. The page facts mirror the captures in
`tests/fixtures/envelopes/` (the fixture site's form and clean pages, ports normalised).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.plan import ExecutionPlan, build_plan
from agent_browser_tools.planning.sessions import managed_base_name
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.models import (
    ConversationState,
    Ownership,
    PageTarget,
    RefInfo,
    RefSnapshot,
    SessionPageState,
)

ROOT = "root"
MANAGED = managed_base_name(ROOT)
SETTINGS = Settings(env={}, state_dir=Path("/nonexistent-state"))

FORM = "http://127.0.0.1:PORT/form.html"
CLEAN = "http://127.0.0.1:PORT/clean.html"

#: A few refs exactly as `snapshot_interactive.json` reports them for the form page.
FORM_REFS = {
    "e3": RefInfo(role="textbox", name="Full name"),
    "e9": RefInfo(role="checkbox", name="Subscribe"),
    "e13": RefInfo(role="button", name="Submit"),
}


def plan(
    args: Sequence[str],
    state: ConversationState | None = None,
    *,
    rows: Sequence[Sequence[str]] | None = None,
    stdin: str | None = None,
    timeout_ms: int | None = None,
) -> ExecutionPlan:
    """The plan for `args`; `rows` are sent as a `batch` JSON stdin; `timeout_ms` is the
    caller's `timeoutMs`."""
    if rows is not None:
        stdin = json.dumps([list(row) for row in rows])
    inp = AgentBrowserInput(args=list(args), stdin=stdin, timeoutMs=timeout_ms)
    return build_plan(
        inp, state or ConversationState(), SETTINGS, root_id=ROOT, native_default=None
    )


def page(
    url: str | None = FORM,
    *,
    refs_from: str | None = FORM,
    target_unknown: bool = False,
    ownership: Ownership = "managed",
) -> SessionPageState:
    """One session entry: on `url`, with `FORM_REFS` from a snapshot of `refs_from`."""
    snapshot = RefSnapshot(refs=FORM_REFS, target_url=refs_from) if refs_from else None
    return SessionPageState(
        ownership=ownership,
        active=True,
        target=PageTarget(url=url) if url else None,
        target_unknown=target_unknown,
        ref_snapshot=snapshot,
    )


def managed(entry: SessionPageState) -> ConversationState:
    """A conversation whose implicit managed session has `entry`."""
    return ConversationState(managed_session=MANAGED, sessions={MANAGED: entry})


def named(session: str, entry: SessionPageState) -> ConversationState:
    """A conversation with one caller-selected session `session` (no namespace)."""
    return ConversationState(sessions={session: entry})
