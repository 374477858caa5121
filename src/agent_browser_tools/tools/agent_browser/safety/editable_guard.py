"""`fill`/`type` on a ref whose snapshot role takes no text is refused before dispatch (pure).

Why: the engine answers `fill @e3 Ada` on a button or a link with success and changes nothing
(or types into whatever has focus), so the model believes a field holds a value it never got.
The ref's role comes from the model's own latest snapshot, the same record the stale-ref guard
uses; roles that can hold text (textbox, searchbox, combobox, spinbutton, generic
contenteditable regions, ...) and unknown roles pass, so only a certain mistake is refused.
"""

from __future__ import annotations

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import SessionPageState
from agent_browser_tools.state.stale_refs import ref_ids
from agent_browser_tools.taxonomy import CommandMatch

TAKES_NO_TEXT = frozenset(
    {
        "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
        "menuitemradio", "option", "heading", "img", "image", "listitem", "row", "cell",
        "columnheader", "rowheader", "separator", "progressbar", "meter", "treeitem",
    }
)  # fmt: skip
"""Roles that never accept typed text; a `slider` is left out on purpose (it takes a value)."""


def _typed_ref(match: CommandMatch) -> str | None:
    """The ref a command types text into, when operand 0 is a ref and text is typed."""
    field = match.spec.field_value
    if field is None or field.text is None or field.target != 0 or field.locator:
        return None
    ids = ref_ids(match)
    return ids[0] if ids else None


def refusal(plan: ExecutionPlan, entry: SessionPageState) -> Observation | None:
    """The `validation-error` for typing into a ref the snapshot shows as a non-text role."""
    if entry.ref_snapshot is None:
        return None
    matches = plan.row_matches if plan.row_matches is not None else (plan.match,)
    for step, match in enumerate(matches, start=1):
        ref = _typed_ref(match) if match is not None else None
        info = entry.ref_snapshot.refs.get(ref) if ref is not None else None
        if ref is None or match is None or info is None or info.role not in TAKES_NO_TEXT:
            continue
        where = f"Batch step {step}: " if plan.is_batch else ""
        name = f' "{info.name}"' if info.name else ""
        obs = Observation(
            success=False,
            failure_category=FailureCategory.VALIDATION_ERROR,
            error=(
                f"{where}`{match.spec.name}` types text, but @{ref} is {info.role}{name}, which "
                f"takes no text; nothing was sent. Use `click @{ref}` to press it, or fill the "
                "text field next to it (its ref is in `snapshot -i`)."
            ),
        )
        prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
        obs.next_actions.append(na.refresh_interactive_refs(prefix))
        obs.extra["notEditable"] = {"ref": "@" + ref, "role": info.role, "step": step}
        return obs
    return None
