"""The stale-ref guard: refuse a page-scoped ref before the engine can misuse it (pure).

The engine re-resolves an old `@eN` by role and name, so after navigation or a rerender it can
silently act on a *different* element. A ref keeps its id while its element does (`refmap`),
so a ref from any earlier snapshot of the page is as good as one from the latest; the guard
blocks a command whose ref the page's snapshots retired (its element gone, or showing
something else: `element-gone`, `element-changed`), that no snapshot of this page showed, or
whose refs were invalidated (navigation, a new browser). A ref above every id the wrapper has
shown in this conversation (`ConversationState.ref_high`) was never issued at all: that is a
wrong argument (`unknown-ref`, refused as a validation error), not a ref gone stale.

Batches are scanned in order: a step that can swap the page sets a latch that blocks later
ref-using steps until a `snapshot` step, except same-snapshot form-control steps (ticking a
checkbox or choosing from a combobox does not re-render the form).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from agent_browser_tools import taxonomy
from agent_browser_tools.state.models import RefInfo, SessionPageState
from agent_browser_tools.state.ref_identity import same_element, same_name, where_now
from agent_browser_tools.taxonomy import CommandMatch

_REF = re.compile(r"^(?:@|ref=)?(e\d+)$")


StaleReason = Literal[
    "target-unknown",
    "refs-invalidated",
    "not-in-latest-snapshot",
    "batch-latch",
    "element-changed",
    "element-gone",
    "identity-unverified",
    "engine-unknown-ref",
    "engine-element-not-found",
    "browser-closed",
    "unknown-ref",
]
"""Why a ref was refused, as a stable code agents and tests can branch on (`staleRef.reason`)."""


@dataclass(frozen=True)
class StaleRef:
    """Why a call was blocked; `step` is the 1-based batch row, or None for a direct call."""

    refs: tuple[str, ...]
    reason: str
    step: int | None = None
    target_unknown: bool = False
    code: StaleReason = "not-in-latest-snapshot"


def normalize_url(url: str) -> str:
    """Trim and drop the fragment; keep the query (it selects different content)."""
    text = url.strip()
    try:
        parts = urlsplit(text)
    except ValueError:
        return text.split("#", 1)[0]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, ""))


def ref_ids(match: CommandMatch) -> tuple[str, ...]:
    """Ref ids (`eN`) used in the command's ref-resolving slots."""
    found = []
    for value in match.ref_values():
        hit = _REF.match(value)
        if hit:
            found.append(hit.group(1))
    return tuple(found)


def issued_high(ref_high: int, entry: SessionPageState) -> int:
    """The highest ref id shown in this conversation: the state's counter, and the session's
    own recorded ids in case a journal predates the counter."""
    snapshot = entry.ref_snapshot
    known = [*snapshot.refs, *snapshot.retired] if snapshot is not None else []
    numbers = [int(ref[1:]) for ref in known if ref[1:].isdigit()]
    return max([ref_high, *numbers])


def never_issued(ids: Sequence[str], high: int) -> tuple[StaleReason, str] | None:
    """`unknown-ref` for refs above every id shown in this conversation (`high`), else None."""
    unknown = [i for i in ids if int(i[1:]) > high]
    if not unknown:
        return None
    shown = ", ".join("@" + i for i in unknown)
    if high == 0:
        return "unknown-ref", (
            f"{shown} was never issued: no snapshot in this conversation has shown refs yet. "
            "Run `snapshot -i` first and use a ref from it."
        )
    return "unknown-ref", (
        f"{shown} was never issued by a snapshot in this conversation (the highest ref shown "
        f"so far is @e{high}); run `snapshot -i` and use a ref from it."
    )


def _check_against_state(
    ids: Sequence[str], entry: SessionPageState
) -> tuple[StaleReason, str] | None:
    shown = ", ".join("@" + i for i in ids)
    if entry.closed and entry.ref_invalidation is not None:
        return "browser-closed", f"{shown} cannot be used: {entry.ref_invalidation.summary}"
    if entry.target_unknown:
        return "target-unknown", (
            f"{shown} cannot be used: the session's page target is unknown "
            f"({entry.ref_invalidation.summary if entry.ref_invalidation else 'not observed'})."
        )
    snapshot = entry.ref_snapshot
    if snapshot is None:
        if entry.ref_invalidation is not None:
            return "refs-invalidated", f"{shown} is stale: {entry.ref_invalidation.summary}"
        return None
    missing = [i for i in ids if i not in snapshot.refs]
    retired = next((snapshot.retired[i] for i in missing if i in snapshot.retired), None)
    if retired is not None:
        ref = next(i for i in missing if i in snapshot.retired)
        was = describe_ref(retired.was)
        if retired.now is None:
            return "element-gone", f"@{ref} was {was}; it is no longer on the page."
        now = describe_ref(retired.now)
        return "element-changed", f"@{ref} was {was}; that element now shows {now}."
    if missing:
        return "not-in-latest-snapshot", (
            f"{', '.join('@' + i for i in missing)} is not a ref of this page's snapshots (it "
            "came from another page, or was never shown)."
        )
    # A URL that changed since the snapshot is not refused here: a pushState view swap keeps
    # the document and its elements. The identity re-read before dispatch decides: a new
    # document has new nodes, and the engine never gives a new node an old id.
    return None


def _latch_exempt(match: CommandMatch, ids: Sequence[str], refs: Mapping[str, RefInfo]) -> bool:
    roles = match.spec.latch_exempt_roles
    if not roles or not ids:
        return False
    return all((refs.get(i) or RefInfo()).role in roles for i in ids)


def guard_direct(
    match: CommandMatch | None, entry: SessionPageState, *, ref_high: int | None = None
) -> StaleRef | None:
    """Check one direct command. `ref_high` is the conversation's highest shown ref id
    (`ConversationState.ref_high`); None leaves the never-issued check out."""
    if match is None:
        return None
    # Reads too: a read of another element is a wrong answer, not a harmless one.
    ids = ref_ids(match)
    if not ids:
        return None
    unknown = None if ref_high is None else never_issued(ids, issued_high(ref_high, entry))
    found = unknown or _check_against_state(ids, entry)
    if found is None:
        return None
    code, reason = found
    return StaleRef(refs=ids, reason=reason, target_unknown=entry.target_unknown, code=code)


def guard_batch(
    rows: Sequence[Sequence[str]],
    entry: SessionPageState,
    *,
    ref_high: int | None = None,
    latch: bool = True,
) -> StaleRef | None:
    """Scan batch rows in order with the invalidation latch; first blocked row wins. A row
    before any in-batch snapshot whose ref was never issued (above `ref_high`) is refused as
    `unknown-ref`, ahead of the latch.

    `latch=False` when the caller re-reads refs where they run (a later step after a
    page-changing step is then verified at that point instead of refused here); after an
    in-batch `snapshot` step the latch applies again, since there is nothing to compare with.
    """
    latched: str | None = None
    fresh_snapshot = False
    refs: Mapping[str, RefInfo] = entry.ref_snapshot.refs if entry.ref_snapshot else {}
    high = None if ref_high is None else issued_high(ref_high, entry)
    for index, row in enumerate(rows, start=1):
        if not row:
            continue
        _globals, rest = taxonomy.split_global_flags(row)
        match = taxonomy.resolve_command(rest) if rest else None
        if match is None:
            continue
        if match.spec.produces_refs:
            # Refs after this step come from a snapshot nobody has seen yet: ids are recycled,
            # so the previous snapshot's roles say nothing about them and cannot exempt a
            # click from the latch (a recycled "checkbox" id may now be a navigating link).
            latched, fresh_snapshot, refs = None, True, {}
            continue
        ids = ref_ids(match)
        unknown = None
        if ids and high is not None and not fresh_snapshot:
            unknown = never_issued(ids, high)
        if unknown is not None:
            reason = f"step {index}: {unknown[1]}"
            return StaleRef(refs=ids, reason=reason, step=index, code=unknown[0])
        if ids and latched is not None:
            return _latch_refusal(index, ids, latched)
        if ids and not fresh_snapshot:
            found = _check_against_state(ids, entry)
            if found is not None:
                return StaleRef(
                    refs=ids,
                    reason=f"step {index}: {found[1]}",
                    step=index,
                    target_unknown=entry.target_unknown,
                    code=found[0],
                )
        # After an in-batch snapshot nobody can re-read against the model's refs: latch again.
        verifiable = not latch and not fresh_snapshot
        if not verifiable and match.sets_batch_latch and not _latch_exempt(match, ids, refs):
            latched = f"{index} (`{match.spec.name}`)"
    return None


def _latch_refusal(index: int, ids: tuple[str, ...], latched: str) -> StaleRef:
    reason = (
        f"step {index} uses {', '.join('@' + i for i in ids)} after step {latched} may have "
        "replaced the page; put a `snapshot -i` step before it or split the batch."
    )
    return StaleRef(refs=ids, reason=reason, step=index, code="batch-latch")


def describe_ref(info: RefInfo) -> str:
    """`button "Details C"`: how a ref reads in a refusal."""
    role = info.role or "element"
    return f'{role} "{info.name}"' if info.name else role


def identity_mismatch(
    ids: Sequence[str], recorded: Mapping[str, RefInfo], fresh: Mapping[str, RefInfo]
) -> StaleRef | None:
    """The first ref whose element is no longer the one the snapshot named, else None.

    `fresh` is the same session re-read just before dispatch, by recorded ref id. The engine
    keys refs by DOM node, so an id that is still present belongs to the same node; the node
    must still carry the recorded role and name, and a twin the same anchors (see
    `ref_identity`). A control's own value is not part of its identity and may change.
    """
    for ref in ids:
        was = recorded.get(ref)
        if was is None:
            continue  # the static guard already decided about refs it does not know
        now = fresh.get(ref)
        if now is None:
            reason = f"@{ref} was {describe_ref(was)}; it is no longer on the page."
            return StaleRef(refs=(ref,), reason=reason, code="element-gone")
        if now.role != was.role or not same_name(was.name, now.name):
            reason = f"@{ref} was {describe_ref(was)}; it is now {describe_ref(now)}."
            return StaleRef(refs=(ref,), reason=reason, code="element-changed")
        if not same_element(was, now, fresh.get):
            reason = (
                f"@{ref} is still {describe_ref(was)} but not in the same place: the snapshot "
                f"showed it between {was.context or 'no twin'}; the page now has "
                f"{where_now(now)}."
            )
            return StaleRef(refs=(ref,), reason=reason, code="element-changed")
    return None


def unverified(ids: Sequence[str]) -> StaleRef:
    """The identity re-read failed: refuse rather than act on an element nobody checked."""
    shown = ", ".join("@" + i for i in ids)
    reason = f"{shown} could not be checked against the page (the re-read snapshot failed)."
    return StaleRef(refs=tuple(ids), reason=reason, code="identity-unverified")


_TARGET_FREE_PATHS = frozenset({("get", "url"), ("tab", "list"), ("session",), ("session", "info")})


def allowed_on_unknown_target(match: CommandMatch) -> bool:
    """Commands that do not depend on which page is current, or that establish it."""
    spec = match.spec
    if spec.session is taxonomy.SessionNeed.SESSIONLESS or spec.path in _TARGET_FREE_PATHS:
        return True
    if spec.timeout_family is taxonomy.TimeoutFamily.DIALOG or spec.settles_detached_work:
        return True
    return spec.page_effect in (
        taxonomy.PageEffect.NAVIGATES,
        taxonomy.PageEffect.TARGET_SWITCH,
        taxonomy.PageEffect.CLOSE,
    )


def _establishes_target(match: CommandMatch) -> bool:
    return (
        match.spec.path == ("get", "url") or match.spec.page_effect is taxonomy.PageEffect.NAVIGATES
    )


def guard_unknown_target(
    matches: Sequence[CommandMatch | None], entry: SessionPageState
) -> int | None:
    """The 1-based step that would read or act on an unknown page target, else None.

    Until `get url` or an explicit navigation observes the page, inspection and actions could
    hit a tab the agent has never seen; tab/dialog/close recovery stays available.
    """
    if not entry.target_unknown:
        return None
    for index, match in enumerate(matches, start=1):
        if match is None:
            continue
        if _establishes_target(match):
            return None
        if not allowed_on_unknown_target(match):
            return index
    return None
