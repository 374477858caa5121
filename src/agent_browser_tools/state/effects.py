"""What a finished command did to page state, derived from structured output (pure).

Only structured JSON observations establish a page target. Native text (`--json false`) is
never parsed for state: a page-changing command run in text mode leaves the target unknown.
A page change the wrapper did not observe never keeps old refs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_browser_tools import taxonomy
from agent_browser_tools.last_made import LastMade
from agent_browser_tools.state.models import (
    Effect,
    NamespaceClosed,
    Ownership,
    RefInfo,
    RefsInvalidated,
    RefsRecorded,
    SessionActivated,
    SessionClosed,
    TabSelected,
    TargetObserved,
    TargetUnknown,
)
from agent_browser_tools.state.ref_identity import with_anchors
from agent_browser_tools.state.snapshot_payload import snapshot_payload, without_delta_flags
from agent_browser_tools.taxonomy import CommandMatch, PageEffect

UNOBSERVED_SUMMARY = (
    "`{command}` may have changed the page but the result did not show where it landed; run "
    "`get url`, then `snapshot -i`."
)
NAVIGATION_SUMMARY = "`{command}` navigated; refs from before it are page-scoped and were dropped."
FAILED_NAVIGATION_SUMMARY = (
    "`{command}` failed, but it may already have replaced the page; refs from before it were "
    "dropped."
)
NO_ACTIVE_PAGE = "The session has no active page; take a fresh `snapshot -i` after opening one."


_URL_NOT_PAGE = frozenset({("network", "request")})
"""Commands whose `data.url` names something other than the page: `network request <id>`
answers with the request's URL, which must never become the session's page target."""


@dataclass(frozen=True)
class Probe:
    """Result of the post-action url/title probe (None fields when it failed)."""

    url: str | None
    title: str | None


_TREE_REF = re.compile(r"(?:\[|, )ref=(e[0-9]+)\b")
"""A ref in a tree line's attribute block (`[ref=e3]`, `[level=2, ref=e4]`). It starts with a
bracket or a comma, not a word boundary, which the scan of a dense page's half megabyte of
tree could not skip ahead to (7 ms, now under 4)."""


_BUILT: LastMade[dict[str, RefInfo]] = LastMade()


def refs_from_snapshot(data: Mapping[str, Any], text: str | None = None) -> dict[str, RefInfo]:
    """The ref map of a snapshot; with its tree `text`, twins get their anchors.

    A page can show thousands of refs and several stages of one answer need its table (the
    shown ids, the recorded effect): the table of the last ref map built is kept (keyed by
    the map and text objects themselves, held until the next) and each caller gets a copy."""
    refs = data.get("refs")
    if not isinstance(refs, Mapping):
        return {}
    built = _BUILT.get((refs, text))
    if built is not None:
        return dict(built)
    out = _ref_infos(refs)
    out = with_anchors(out, _TREE_REF.findall(text)) if text else out
    remember_refs(refs, text, out)
    return dict(out)


def remember_refs(refs: Mapping[str, Any], text: str | None, table: dict[str, RefInfo]) -> None:
    """Keep `table` as what `refs_from_snapshot` builds for this ref map and tree text (the
    shown-id copy of an answer whose table was built under engine ids)."""
    _BUILT.put((refs, text), table)


def snapshot_read_args(tokens: Sequence[str]) -> tuple[str, ...]:
    """The snapshot command with its scope flags and without delta flags: what re-reads the
    same refs for an identity check."""
    words = list(tokens)
    start = words.index("snapshot") if "snapshot" in words else 0
    return tuple(without_delta_flags(words[start:]))


def _ref_infos(refs: Mapping[Any, Any]) -> dict[str, RefInfo]:
    # Built without validation: the fields are checked here, and a page can have thousands.
    out: dict[str, RefInfo] = {}
    for ref_id, info in refs.items():
        if type(info) is dict or isinstance(info, Mapping):
            role = info.get("role")
            name = info.get("name")
            out[str(ref_id)] = RefInfo(
                role if type(role) is str else None, name if type(name) is str else None
            )
        else:
            out[str(ref_id)] = RefInfo()
    return out


def _string(data: Any, key: str) -> str | None:
    if isinstance(data, Mapping):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _command_label(match: CommandMatch | None, tokens: Sequence[str]) -> str:
    if match is not None:
        return " ".join(match.spec.path)
    return " ".join(tokens[:2])


def success_effects(
    match: CommandMatch | None,
    tokens: Sequence[str],
    data: Any,
    *,
    probe: Probe | None,
    ownership: Ownership | None,
    launch_flags: tuple[str, ...],
) -> list[Effect]:
    """Effects of one successful structured result (a direct call or one batch row)."""
    effects: list[Effect] = []
    label = _command_label(match, tokens)
    spec = match.spec if match is not None else None
    if spec is not None and spec.page_effect is PageEffect.CLOSE:
        if "--all" in tokens:
            return [NamespaceClosed()]
        return [SessionClosed()]
    if ownership is not None and spec is not None and spec.session is taxonomy.SessionNeed.BROWSER:
        effects.append(SessionActivated(ownership=ownership, launch_flags=launch_flags))
    if spec is not None and spec.path == ("snapshot",):
        url = _string(data, "origin") or _string(data, "url")
        if url:
            effects.append(TargetObserved(url=url, title=_string(data, "title")))
        payload = snapshot_payload(data)
        if payload is not None and payload.refs is not None:
            # A native `--delta` partial answer has no ref map: the direct tool reads complete
            # refs with one ordinary snapshot and records those (see tools/snapshot_flow).
            refs = refs_from_snapshot({"refs": payload.refs}, payload.text)
            read = snapshot_read_args(tokens)
            # Built without validation: the table is typed already and can hold thousands.
            recorded = RefsRecorded.model_construct(refs=refs, target_url=url, read_args=read)
            effects.append(recorded)
        return effects
    url = None if spec is not None and spec.path in _URL_NOT_PAGE else _string(data, "url")
    title = _string(data, "title")
    page_effect = spec.page_effect if spec is not None else PageEffect.NONE
    transitioned = page_effect in (
        PageEffect.NAVIGATES,
        PageEffect.HISTORY,
        PageEffect.TARGET_SWITCH,
    )
    if probe is not None and probe.url:
        url, title = probe.url, probe.title or (title if url == probe.url else None)
    switch = _tab_switch(spec, data, url, NAVIGATION_SUMMARY.format(command=label))
    if switch is not None:
        effects.append(switch)  # parks the tab's refs, restores the next tab's (`tab_refs`)
    observed = url and (transitioned or page_effect is PageEffect.NONE or probe is not None)
    if url and observed:
        tab = _string(data, "targetId") if page_effect is PageEffect.NAVIGATES else None
        keep = not transitioned or switch is not None
        effects.append(TargetObserved(url=url, title=title, keep_refs=keep, tab=tab))
        if transitioned and switch is None:
            effects.append(
                RefsInvalidated(
                    reason="page-transition", summary=NAVIGATION_SUMMARY.format(command=label)
                )
            )
    elif transitioned:
        effects.append(TargetUnknown(summary=UNOBSERVED_SUMMARY.format(command=label)))
    return effects


def _tab_switch(
    spec: taxonomy.CommandSpec | None, data: Any, url: str | None, summary: str
) -> TabSelected | None:
    """A `tab`/`window` command that moved the session: to the tab its result names, or,
    after `tab close` (whose result names the closed tab), to a tab it does not name."""
    if spec is None or not spec.moves_tab:
        return None
    named = _string(data, "targetId")
    closed = isinstance(data, Mapping) and data.get("closed") is True
    return TabSelected(
        target=None if closed else named,
        closed=named if closed else None,
        url=url,
        summary=summary,
    )


def failure_effects(
    match: CommandMatch | None,
    tokens: Sequence[str],
    error: str | None,
    *,
    timed_out: bool,
    probe: Probe | None,
) -> list[Effect]:
    """Effects of a failed result: conservative, because a failure may still have acted."""
    label = _command_label(match, tokens)
    spec = match.spec if match is not None else None
    if (
        spec is not None
        and spec.path == ("snapshot",)
        and error
        and "no active page" in error.lower()
    ):
        return [RefsInvalidated(reason="no-active-page", summary=NO_ACTIVE_PAGE)]
    may_change = spec is None or spec.page_effect is not PageEffect.NONE or not spec.read_only
    if probe is not None and probe.url and may_change:
        return [
            TargetObserved(url=probe.url, title=probe.title, keep_refs=False),
            RefsInvalidated(
                reason="page-transition",
                summary=f"`{label}` failed after it may have changed the page; refs were dropped.",
            ),
        ]
    if timed_out and may_change:
        return [TargetUnknown(summary=UNOBSERVED_SUMMARY.format(command=label))]
    if spec is not None and spec.page_effect in (PageEffect.HISTORY, PageEffect.TARGET_SWITCH):
        return [TargetUnknown(summary=UNOBSERVED_SUMMARY.format(command=label))]
    if spec is not None and spec.page_effect is PageEffect.NAVIGATES:
        # A failed navigation can still have committed a new document (a load timeout, or
        # Chromium's error page after a network failure); old refs would then re-resolve by
        # role/name against the new page, so they are dropped.
        return [
            RefsInvalidated(
                reason="page-transition", summary=FAILED_NAVIGATION_SUMMARY.format(command=label)
            )
        ]
    return []


def text_mode_effects(match: CommandMatch | None, tokens: Sequence[str]) -> list[Effect]:
    """Native text proves nothing about the page: page-changing commands make it unknown."""
    spec = match.spec if match is not None else None
    if spec is None or spec.page_effect is PageEffect.NONE:
        return []
    if spec.page_effect is PageEffect.CLOSE:
        return [NamespaceClosed()] if "--all" in tokens else [SessionClosed()]
    return [TargetUnknown(summary=UNOBSERVED_SUMMARY.format(command=_command_label(match, tokens)))]
