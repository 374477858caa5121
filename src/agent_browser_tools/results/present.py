"""Render an `Observation` as the model-visible text (pure).

Prose is the default: the useful command output first, then warnings, page evidence and exact
next actions, and for failures the category line agents can branch on. Caller `--json` gets
the observation itself as parseable JSON. Native text mode keeps the engine's text verbatim.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.results import diagnostics, page_data
from agent_browser_tools.results.action_lines import (
    action_headline,
    next_action_lines,
    quoted_text,
)
from agent_browser_tools.results.answer_prose import answer_lines
from agent_browser_tools.results.categories import SuccessCategory, category_line
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.snapshot.delta import (
    native_snapshot,
    render_partial,
    snapshot_payload,
)
from agent_browser_tools.results.timeout_progress import progress_lines
from agent_browser_tools.results.visual_diff import diff_lines
from agent_browser_tools.taxonomy import (
    ArtifactKind,
    CommandMatch,
    ConfirmationRole,
    resolve_command,
)
from agent_browser_tools.taxonomy import command as command_spec

_HIDDEN_KEYS = frozenset({"lifecycle", "targetId", "webmcp"})
"""`webmcp` is a page-written catalog: shown only fenced (`untrusted_page_data` context)."""
_ARTIFACT_CATEGORIES = frozenset(
    {
        SuccessCategory.ARTIFACT_SAVED,
        SuccessCategory.ARTIFACT_PENDING,
        SuccessCategory.ARTIFACT_UNVERIFIED,
    }
)


def render_json(observation: Observation) -> str:
    return json.dumps(observation.to_dict(), ensure_ascii=False, default=str)


def _compact(data: Any) -> str:
    if isinstance(data, Mapping):
        data = {k: v for k, v in data.items() if k not in _HIDDEN_KEYS}
    return json.dumps(data, ensure_ascii=False, default=str)


_COMPACT_MARK = "[Compact snapshot:"


def _snapshot_header(data: Any, text: str | None = None) -> list[str]:
    """`Snapshot: N refs on URL` for a tree (a native `--delta` partial answer has none); a
    compact view's own first line gives the counts, so then only `Snapshot: URL`."""
    payload = snapshot_payload(data)
    if payload is None or not isinstance(data, Mapping):
        return []
    where = data.get("origin") or data.get("url") or "the current page"
    if text is not None and text.startswith(_COMPACT_MARK):
        return [f"Snapshot: {where}"]
    count = len(payload.refs) if payload.refs is not None else 0
    return [f"Snapshot: {count} refs on {where}"]


def _tab_lines(data: Mapping[str, Any]) -> list[str]:
    tabs = data.get("tabs")
    if not isinstance(tabs, list):
        return [_compact(data)]
    lines = [f"{len(tabs)} tab(s):"]
    for tab in tabs:
        if not isinstance(tab, Mapping):
            continue
        marker = "*" if tab.get("active") else " "
        ident = tab.get("tabId") or tab.get("id") or tab.get("index", "?")
        lines.append(
            f"{marker} [{ident}] {tab.get('title') or '(untitled)'} - {tab.get('url', '')}"
        )
    return lines


_NAVIGATION_COMMANDS = frozenset({("open",), ("goto",), ("navigate",), ("pushstate",)})


def _page_body(head: tuple[str, ...], data: Mapping[str, Any]) -> list[str] | None:
    """Snapshot, navigation and `get` output, or None when `data` has no such shape."""
    if head == ("snapshot",):
        if (payload := snapshot_payload(data)) is not None:
            return [*_snapshot_header(data, payload.text), payload.text]
        if (native := native_snapshot(data)) is not None:
            return render_partial(native)
        return None
    if head in _NAVIGATION_COMMANDS and "url" in data:
        return [f"Opened: {data.get('title') or '(untitled)'} - {data['url']}"]
    if head[:1] == ("get",) and len(head) == 2:
        for key in (head[1], "value", "text", "result"):
            if key in data and not isinstance(data[key], Mapping | list):
                return [str(data[key])]
    return None


def _tab_and_log_body(head: tuple[str, ...], data: Mapping[str, Any]) -> list[str] | None:
    """Tab lists and console/error/network logs, or None when `data` has no such shape."""
    if head == ("tab", "list") or (head[:1] == ("tab",) and "tabs" in data):
        return _tab_lines(data)
    if head[:2] == ("network", "requests"):
        return diagnostics.network_lines(data)
    if head[:1] == ("console",) and "messages" in data:
        return diagnostics.console_lines(data)
    if head[:1] == ("errors",) and "errors" in data:
        return diagnostics.error_lines(data)
    return None


def _approves(path: Sequence[str]) -> bool:
    """`confirm`: its answer nests the approved action's own."""
    spec = command_spec(path)
    return spec is not None and spec.confirmation is ConfirmationRole.APPROVE


def _confirmed_body(data: Mapping[str, Any]) -> list[str] | None:
    """`Approved `click`; it ran: Clicked #buy.`: the approved action's own answer, shaped
    as that command's (the engine nests it as `result.data`)."""
    action, inner = data.get("action"), data.get("result")
    if not isinstance(inner, Mapping):
        return None
    head = f"Approved `{action}`; it ran"
    own = inner.get("data")
    body = command_body((str(action),), own) if isinstance(own, Mapping) and action else []
    return [f"{head}: {body[0]}", *body[1:]] if body else [f"{head}."]


def command_body(path: Sequence[str], data: Any, match: CommandMatch | None = None) -> list[str]:
    """The command's own output, shaped for reading; `match` is the call as written, when
    known (a `find` names its locator from it)."""
    if not isinstance(data, Mapping):
        return [] if data is None else [_compact(data)]
    head = tuple(path)
    if head == ("diff", "screenshot") and (verdict := diff_lines(data)) is not None:
        return verdict
    for shaped in (_page_body, _tab_and_log_body):
        if (lines := shaped(head, data)) is not None:
            return lines
    if data.get("untrusted") is True:  # the engine marks page-written data (`webmcp list`)
        visible = {k: v for k, v in data.items() if k not in _HIDDEN_KEYS}
        return page_data.fenced("Page-provided data", [page_data.quoted(_compact(visible))])
    if "path" in data and isinstance(data["path"], str) and "state" not in data:
        # `state show` (a `state` key) shows its redacted summary below instead.
        if data.get("loaded") is True:
            return [f"Loaded saved browser state (cookies and site storage) from {data['path']}."]
        return [f"Saved: {data['path']}"]
    if _approves(head) and (confirmed := _confirmed_body(data)) is not None:
        return confirmed
    return answer_lines(head, data, match)


def artifact_lines(entries: Sequence[Any]) -> list[str]:
    """One line per artifact with its verified state (prose and JSON then agree)."""
    lines: list[str] = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        label = str(entry.get("kind", "file")).replace("-", " ")
        where, state = entry.get("path"), entry.get("state")
        if state == "verified":
            lines.append(f"Saved {label}: {where} ({entry.get('sizeBytes')} bytes, verified)")
        elif state == "pending":
            lines.append(f"Recording {label} to {where}: pending until `record stop`.")
        elif entry.get("kind") == ArtifactKind.DIFF_IMAGE.value:
            lines.append(f"Diff image reported; file not verified ({entry.get('status')}): {where}")
        else:
            why = entry.get("limitation") or entry.get("status")
            lines.append(f"Not verified {label} ({entry.get('status')}): {where} - {why}")
        if entry.get("tempPath"):
            lines.append(f"Reported path: {entry['tempPath']}")
    return lines


STEP_PREVIEW_CHARS = 300


def _clip(text: str) -> str:
    """A step's text cut to the preview size (the whole value stays in details)."""
    return text if len(text) <= STEP_PREVIEW_CHARS else text[:STEP_PREVIEW_CHARS] + "..."


def _step_preview(step: Mapping[str, Any]) -> str | None:
    """A short rendering of one successful step's result (full data stays in details): the
    effect line of a direct action when the step acted on a ref, else the command's answer."""
    page = step.get("page")
    moved = _moved_to(page) if isinstance(page, Mapping) else None
    if isinstance(effect := step.get("effect"), Mapping):
        return _clip(action_headline(effect, moved))
    command = [str(t) for t in step.get("command", [])]
    match = resolve_command(command)
    path = match.spec.path if match is not None else tuple(command[:1])
    body = command_body(path, step.get("result"), match)
    if moved is not None:
        title = f"{quoted_text(moved['title'])} - " if moved.get("title") else ""
        body = [*body, f"page {title}{moved['url']} (url changed)"]
    if not body:
        return None
    return _clip(" | ".join(line for line in body if line))


def _moved_to(page: Mapping[str, Any]) -> dict[str, Any] | None:
    """The navigation summary `action_headline` takes, when the step moved the page."""
    if page.get("navigated") is not True or not page.get("url"):
        return None
    return {"url": page["url"], "title": page.get("title"), "urlChanged": True}


def _effectful(step: Mapping[str, Any]) -> bool:
    """A step that did something a repeat would do again (not a read)."""
    match = resolve_command([str(t) for t in step.get("command", [])])
    return match is not None and not match.spec.read_only


def _numbers(steps: Sequence[Mapping[str, Any]]) -> str:
    """`1-4, 6`: step numbers with consecutive runs as ranges."""
    runs: list[list[int]] = []
    for number in (int(s.get("step", 0)) for s in steps):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def _batch_head(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    """What the model must know before the step lines: what took effect before a failure
    (so it does not repeat it), and the mutations nothing read back."""
    lines: list[str] = []
    moved = [s for s in steps if s.get("success") and _moved_to(s.get("page") or {})]
    failed = next((s for s in steps if not s.get("success")), None)
    if failed is not None:
        took = [
            s
            for s in steps
            if s.get("success") and s.get("step", 0) < failed.get("step", 0) and _effectful(s)
        ]
        if took:
            went = [s for s in moved if s in took]
            where = ""
            if went:
                page = went[-1]["page"]
                shown = quoted_text(page["title"]) if page.get("title") else page["url"]
                where = f"; step {went[-1].get('step')} moved the page to {shown}"
            lines.append(
                f"Took effect before step {failed.get('step')} failed: steps {_numbers(took)}"
                f"{where}. Do not repeat them."
            )
    mutations = [s for s in steps if s.get("success") and s.get("dispatchOnly")]
    if mutations:
        names = ", ".join(f"{s.get('step')}. {' '.join(map(str, s['command']))}" for s in mutations)
        last_move = moved[-1].get("step", 0) if moved else 0
        if all(s.get("step", 0) < last_move for s in mutations):
            lines.append(f"Sent before step {last_move} moved the page (not read back): {names}.")
        else:
            lines.append(
                f"Dispatched without an observed change: {names}. Verify the page (snapshot -i, "
                "get url/text) before relying on them; fixed waits are not postconditions."
            )
    return lines


def _batch_lines(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    """What took effect and what is unverified first, then each step."""
    lines = _batch_head(steps)
    failed = next((s for s in steps if not s.get("success")), None)
    if failed is not None:
        command = " ".join(str(t) for t in failed.get("command", []))
        lines.append(
            f"First failed step: {failed.get('step')}. {command} "
            f"[{failed.get('failureCategory')}]: {_clip(str(failed.get('error')))}"
        )
    for step in steps:
        mark = "ok  " if step.get("success") else "FAIL"
        command = " ".join(str(t) for t in step.get("command", []))
        if step.get("success"):
            detail = _step_preview(step)
        else:
            error = step.get("error")
            detail = _clip(str(error)) if error else None
        line = f"{mark} {step.get('step')}. {command}"
        if detail:
            line += f" -> {detail}"
        lines.append(line)
    return lines


def _success_body(
    observation: Observation, path: Sequence[str], match: CommandMatch | None
) -> list[str]:
    """A successful single command's output (batches and native text are handled first)."""
    if isinstance(text := observation.context.get("snapshot_text"), str):
        return [*_snapshot_header(observation.data, text), text]
    if isinstance(effect := observation.extra.get("actionEffect"), Mapping):
        return [action_headline(effect, observation.extra.get("navigationSummary"))]
    if isinstance(entries := observation.extra.get("artifacts"), list) and entries:
        # The artifact lines say what is really on disk; a bare "Saved:" would not.
        own = command_body(path, observation.data, match)
        return [line for line in own if not line.startswith("Saved: ")] + artifact_lines(entries)
    return command_body(path, observation.data, match)


def _prose_body(
    observation: Observation,
    path: Sequence[str],
    native_text: str | None,
    match: CommandMatch | None,
) -> list[str]:
    """The cuttable part: native text, batch steps, the error, or the command output."""
    if native_text is not None:
        return [native_text]
    steps = observation.extra.get("batchSteps")
    if isinstance(steps, list):
        return _batch_lines(steps)
    if not observation.success:
        # A missing artifact's own line says which file and what kind (`Diff image reported`).
        entries = observation.extra.get("artifacts")
        return [f"Error: {observation.error}", *artifact_lines(entries or [])]
    return _success_body(observation, path, match)


def _page_lines(observation: Observation) -> list[str]:
    """Where the call left the page, and how a read was carried out."""
    lines: list[str] = []
    nav = observation.extra.get("navigationSummary")
    if isinstance(nav, Mapping) and nav.get("url") and _page_moved(observation, nav):
        changed = " (URL changed)" if nav.get("urlChanged") else ""
        lines.append(f"Page: {nav.get('title') or '(untitled)'} - {nav['url']}{changed}")
    if isinstance(read := observation.extra.get("readExecution"), str):
        lines.append(read)
    fenced = observation.context.get("untrusted_page_data")
    if isinstance(fenced, list):
        lines += [str(line) for line in fenced]
    if isinstance(progress := observation.extra.get("timeoutPartialProgress"), Mapping):
        lines += progress_lines(progress)
    return lines


def _page_moved(observation: Observation, nav: Mapping[str, Any]) -> bool:
    """The `Page:` line says where the call left the page only when that is news: a new URL
    or title, or a failure (where am I now?). An action headline already names a new page."""
    if not observation.success:
        return True
    summary = observation.extra.get("pageChangeSummary")
    titled = isinstance(summary, Mapping) and "title" in summary
    if isinstance(observation.extra.get("actionEffect"), Mapping):
        return titled and not nav.get("urlChanged")
    return bool(nav.get("urlChanged")) or titled


def _category_lines(observation: Observation) -> list[str]:
    """The category line agents branch on: artifact verdicts on success, always on failure."""
    if observation.success and observation.success_category in _ARTIFACT_CATEGORIES:
        # Artifact verdicts are what evidence-taking agents branch on; say them in prose too.
        return [category_line(True, observation.success_category)]
    if not observation.success:
        return [category_line(False, observation.failure_category)]
    return []


def _prose_tail(observation: Observation, native_text: str | None) -> list[str]:
    """The never-cut part: page, summary, warnings, next actions, category line."""
    lines = _page_lines(observation)
    if observation.summary and native_text is None:
        lines.append(f"Summary: {observation.summary}")
    for warning in observation.warnings:
        lines.append(f"Warning: {warning}")
    actions = [action.to_dict() for action in observation.next_actions]
    lines += next_action_lines(actions, success=observation.success)
    return lines + _category_lines(observation)


def render_prose(
    observation: Observation,
    path: Sequence[str],
    *,
    native_text: str | None = None,
    match: CommandMatch | None = None,
) -> tuple[str, str]:
    """The default model-visible text for one call, as (body, tail).

    `match` is the call as written (a `find` names its locator from it). The body is the
    command output and may be cut to fit the visible budget; the tail holds
    warnings, page evidence, exact next actions and the category line, and is never cut.
    """
    body = _prose_body(observation, path, native_text, match)
    return "\n".join(body), "\n".join(_prose_tail(observation, native_text))
