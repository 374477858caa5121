"""The file roots applied to one call: every path and file URL it names, before dispatch.

Where a call names local files is a column of the taxonomy, read as the engine reads argv
(`file_slots`). This module takes those slots for the call and for each batch row (argument
strings split as the engine splits them, and stdin JSON rows), judges each value
(`file_access`, `file_urls`), and raises `PolicyBlocked` (`file-root`) with what to do
instead. `outputPath` is judged the same way.

Relative paths are made absolute against the execution dir in the argv the engine gets: the
engine's daemon resolves them against its own working dir, which is the dir of whoever
launched that browser, so a relative path judged here could otherwise land elsewhere.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from agent_browser_tools import taxonomy
from agent_browser_tools.input_limits import loads_json_text
from agent_browser_tools.planning.argv_rules import ArgvRejected, CheckedArgv
from agent_browser_tools.planning.file_access import FileRoots, PathRefused, judge_path
from agent_browser_tools.planning.file_config import (
    FILE_PAGES_KEY,
    FILE_PAGES_OPTION,
    FILE_ROOT_OPTION,
    FILE_ROOTS_ENV,
    ROOTS_KEY,
    UNRESTRICTED_OPTION,
)
from agent_browser_tools.planning.file_slots import PathSlot, row_slots
from agent_browser_tools.planning.file_urls import UnpinnedFileUrl, local_file_path, url_as_path
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.taxonomy import PathUse

RULE = "file-root"
OTHER_WORKSPACE_RULE = "other-workspace"
"""A path in another conversation's workspace on a shared server: no setting allows it."""
_PROBE = "./.abt-path-probe"


def confine(inp: AgentBrowserInput, checked: CheckedArgv, roots: FileRoots) -> AgentBrowserInput:
    """Judge every path and file URL of the call; raise `PolicyBlocked` for the first one the
    roots do not allow. Returns the input with relative paths made absolute (or `inp`)."""
    if inp.outputPath is not None:
        check_output_path(inp.outputPath, roots)
    args = _confine_row(tuple(inp.args), "", roots)
    if checked.inspection:
        return inp  # help/version run nothing, but their argv is judged all the same
    stdin = inp.stdin
    batch = checked.batch
    if batch is not None and batch.source == "stdin" and inp.stdin is not None:
        rows = [tuple(row) for row in json.loads(inp.stdin)]
        fixed = [
            _confine_row(row, f"batch row {n}: ", roots, True) for n, row in enumerate(rows, 1)
        ]
        if fixed != rows:
            stdin = json.dumps([list(row) for row in fixed])
    elif batch is not None:
        args = _confine_arg_rows(args, batch.raw, roots)
        for number, row in enumerate(_stdin_rows(inp.stdin), start=1):
            _confine_row(row, f"batch stdin row {number}: ", roots, True)  # judged, never sent
    if list(args) == list(inp.args) and stdin == inp.stdin:
        return inp
    return inp.model_copy(update={"args": list(args), "stdin": stdin})


def _stdin_rows(stdin: str | None) -> list[tuple[str, ...]]:
    """Stdin rows beside argument rows: the engine runs the argument rows, but a row that
    would be refused is refused either way."""
    try:
        value = loads_json_text(stdin) if stdin else []
    except ValueError:
        return []
    if not isinstance(value, list):
        return []
    return [
        tuple(row)
        for row in value
        if isinstance(row, list) and all(isinstance(token, str) for token in row)
    ]


def _confine_arg_rows(
    args: tuple[str, ...], raws: Sequence[str], roots: FileRoots
) -> tuple[str, ...]:
    """Judge each row string as the engine splits it; pin relative paths by rewriting it."""
    rewritten: dict[str, str] = {}
    for number, raw in enumerate(raws, start=1):
        where = f"batch row {number}: "
        words = taxonomy.batch_row_words(raw)
        fixed = _confine_row(words, where, roots, True)
        if fixed == words:
            continue
        rewritten[raw] = shlex.join(fixed)  # `batch_row_words` reads `shlex.join` back intact
    if not rewritten:
        return args
    out = tuple(rewritten.get(token, token) for token in args)
    if taxonomy.split_global_flags(out)[0] != taxonomy.split_global_flags(args)[0]:
        raise _unplaceable("", "a batch row", roots)
    return out


def _confine_row(
    tokens: tuple[str, ...], where: str, roots: FileRoots, batch_row: bool = False
) -> tuple[str, ...]:
    """Judge every slot of one row; return it with relative paths made absolute."""
    slots = row_slots(tokens, batch_row=batch_row)
    for slot in slots:
        if slot.use is None:
            _judge_url(slot, where, roots)
    paths = _path_slots(tokens, batch_row)
    absolute: dict[int, str] = {}
    for index, slot in enumerate(paths):
        fixed = _judge(slot, where, roots)
        if fixed is not None and fixed != slot.value:
            absolute[index] = fixed
    _judge_after_paths(slots, where, roots, batch_row)
    if not absolute:
        return tokens
    out = list(tokens)
    for index, value in absolute.items():
        position = _locate(tokens, paths, index, batch_row)
        if position is None:
            raise _unplaceable(where, paths[index].label, roots)
        out[position] = value
    expected = [absolute.get(i, slot.value) for i, slot in enumerate(paths)]
    if [slot.value for slot in _path_slots(out, batch_row)] != expected:
        raise _unplaceable(where, "a path", roots)
    return tuple(out)


def _judge_after_paths(
    slots: Sequence[PathSlot], where: str, roots: FileRoots, batch_row: bool
) -> None:
    """What is judged once every named path passed, so a refusal names that path first:
    derived spellings (`<path>.enc`), then files that must exist (a refusal by policy comes
    before "no such file")."""
    for slot in slots:
        if slot.derived:
            _judge(slot, where, roots)
    for slot in slots:
        if slot.must_exist and not slot.derived and not batch_row:
            require_file(slot, where, roots)  # a batch row may upload what an earlier one saved


def _path_slots(tokens: Sequence[str], batch_row: bool) -> list[PathSlot]:
    """The file slots an argv token holds (URLs aside: they are absolute and never
    rewritten; derived spellings are only judged)."""
    slots = row_slots(tokens, batch_row=batch_row)
    return [slot for slot in slots if slot.use is not None and not slot.derived]


def _locate(
    tokens: tuple[str, ...], paths: list[PathSlot], index: int, batch_row: bool
) -> int | None:
    """The argv position of path slot `index`: the token holding its value that, replaced by a
    probe, changes that slot and no other (the slot reader itself decides)."""
    value = paths[index].value
    positions = [i for i, token in enumerate(tokens) if token == value]
    if len(positions) == 1:
        return positions[0]
    for position in positions:
        probe = [*tokens[:position], _PROBE, *tokens[position + 1 :]]
        got = [slot.value for slot in _path_slots(probe, batch_row)]
        want = [_PROBE if i == index else slot.value for i, slot in enumerate(paths)]
        if got == want:
            return position
    return None


def _judge(slot: PathSlot, where: str, roots: FileRoots) -> str | None:
    """The absolute value to send for a relative path (None: keep the value as written)."""
    assert slot.use is not None
    refuse_url_as_path(slot, where)
    try:
        absolute = judge_path(slot.path, slot.use, roots)
        if slot.use is PathUse.READ_FILE and os.path.lexists(f"{absolute}.enc"):
            judge_path(f"{absolute}.enc", slot.use, roots)  # `state load` falls back to it
    except PathRefused as refused:
        raise blocked(where, slot, refused, roots) from None
    if Path(slot.path).is_absolute():
        return None
    if slot.use is PathUse.READ_FILE and not os.path.lexists(absolute):
        # A missing read source stays as written: `diff snapshot --baseline` takes text too.
        return None
    return slot.prefix + str(absolute)


def _judge_url(slot: PathSlot, where: str, roots: FileRoots) -> None:
    try:
        local = local_file_path(slot.value)
    except UnpinnedFileUrl as exc:
        raise PolicyBlocked(
            f"{where}{slot.label} {slot.value!r} is refused: {exc}. Open an http(s) URL, or a "
            f"file:///absolute/path URL inside the workspace roots ({roots.describe()}).",
            rule=RULE,
            subject=slot.value,
            allow_with=None,
        ) from None
    if local is None:
        return
    try:
        judged = judge_path(local, PathUse.READ_FILE, roots, listing=True)
    except PathRefused as refused:
        raise blocked(where, slot, refused, roots) from None
    if not roots.file_pages and shows_other_files(judged):
        raise PolicyBlocked(
            f"{where}{slot.label} {slot.value!r} is a local page that can show other local "
            "files (a markup page can frame or link any file, a folder listing links its "
            "parent), so file:// pages are off on this server. Serve it over http(s), or read "
            "its text with a file the page does not render; the operator allows file pages "
            f"with `serve {FILE_PAGES_OPTION}` ({FILE_PAGES_KEY}).",
            rule="file-page",
            subject=str(judged),
            allow_with=FILE_PAGES_OPTION,
        )


INERT_SUFFIXES = frozenset(
    {".txt", ".log", ".csv", ".tsv", ".json", ".md", ".png", ".jpg", ".jpeg", ".gif", ".webp",
     ".bmp", ".ico", ".avif", ".pdf", ".mp3", ".wav", ".ogg", ".mp4", ".webm"}
)  # fmt: skip
"""File types Chromium shows without markup that could load or link another local file."""


def shows_other_files(path: Path) -> bool:
    """Whether a `file://` view of `path` can show other local files: a folder listing (its
    parent link), or anything rendered as a document (HTML, SVG, XML, unknown types, which
    Chromium may sniff as HTML). Reads only the file's type, never its content."""
    if path.is_dir():
        return True
    return path.suffix.lower() not in INERT_SUFFIXES


def check_output_path(raw: str, roots: FileRoots) -> Path:
    """Judge an `outputPath` (a leading `@` is stripped, as the writers do); returns the
    absolute path to write; raises `PolicyBlocked`."""
    text = raw[1:] if raw.startswith("@") else raw
    slot = PathSlot("outputPath", text, PathUse.WRITE_FILE, "outputPath")
    refuse_url_as_path(slot, "")
    try:
        return judge_path(text, PathUse.WRITE_FILE, roots)
    except PathRefused as refused:
        raise blocked("", slot, refused, roots) from None


def require_file(slot: PathSlot, where: str, roots: FileRoots) -> None:
    """A missing file in a slot whose engine reports success without it (`upload`) is
    refused (`ArgvRejected`), so the model is not told a file went where none did."""
    path = roots.absolute(slot.path)
    if not os.path.lexists(path):
        raise ArgvRejected(
            f"{where}{slot.label} {slot.value!r} resolves to {path}, which does not exist "
            "(the engine would report it done all the same). Give the path of an existing "
            f"file; relative paths are read from {roots.cwd}."
        )


def refuse_url_as_path(slot: PathSlot, where: str) -> None:
    """A file path slot given a URL is refused (`ArgvRejected`) with the path to give instead:
    the engine would take it as a relative path and answer success (`file_urls.url_as_path`).
    """
    url = url_as_path(slot.path)
    if url is None:
        return
    head = f"{where}{slot.label} {slot.value!r} is a URL, but this takes a local file path"
    if url.local_path is not None:
        fix = f"give the path {slot.prefix}{url.local_path}, not {slot.value}."
    elif slot.use is PathUse.READ_FILE:
        fix = (
            "save the file into the workspace first (e.g. `download <ref> ./name`), then give "
            "its path."
        )
    else:
        fix = f"give one inside the workspace, e.g. `{slot.example} ./name`."
    raise ArgvRejected(f"{head}: {fix}")


def blocked(where: str, slot: PathSlot, refused: PathRefused, roots: FileRoots) -> PolicyBlocked:
    """The `policy-blocked` refusal for `slot`, saying what to do instead."""
    head = f"{where}{slot.label} {slot.value!r} resolves to {refused.path}"
    instead = _instead(slot, refused.path, roots)
    allow_with: str | None = None
    if refused.reason == "other-workspace":
        return _other_workspace(head, slot, refused, roots)
    if refused.reason == "outside":
        wanted = refused.path if slot.use is PathUse.WRITE_DIR else refused.path.parent
        allow_with = f"{FILE_ROOT_OPTION} {wanted}"
        why = (
            f", outside the workspace roots ({roots.describe()}). {instead} If the model should "
            f"reach it, ask the operator to add a root with `serve {allow_with}` (or "
            f"{ROOTS_KEY} / {FILE_ROOTS_ENV}, or {UNRESTRICTED_OPTION})."
        )
    elif refused.reason == "forbidden":
        why = (
            f", inside {refused.detail or 'a protected place'}: the server's own state and the "
            "engine's sessions, vault and configuration are never reachable from a tool call, "
            f"not even with unrestricted file access. {instead}"
        )
    elif refused.reason == "hard-link":
        why = (
            f", a file with {refused.detail} hard links: its other names may be anywhere, "
            "including outside the roots, so it is refused. Use a copy, not a link."
        )
    elif refused.reason == "reconfigures":
        why = (
            f": a file named {refused.path.name} reconfigures these tools or the engine at "
            "their next start, so no call may create or replace it. Choose another name."
        )
    elif refused.reason == "root-dir":
        why = (
            ", a workspace root itself: files a page names (downloads) would land beside the "
            f"project's configuration. Use a subdirectory, e.g. `{slot.example} ./downloads`."
        )
    else:
        why = f", which is not a usable path ({refused.detail}). {instead}"
    return PolicyBlocked(head + why, rule=RULE, subject=str(refused.path), allow_with=allow_with)


def _other_workspace(
    head: str, slot: PathSlot, refused: PathRefused, roots: FileRoots
) -> PolicyBlocked:
    """Several conversations share this server and each has its own workspace: the others
    (and the dir holding them) are never reachable, whatever the roots or unrestricted."""
    name = refused.path.name or "file"
    if slot.use is None or slot.use is PathUse.READ_FILE:
        instead = f"Use a file in your own workspace ({roots.cwd}), e.g. `./{name}`."
    else:
        instead = f"Save it in your own workspace with a relative path: `{slot.example} ./{name}`."
    why = (
        ", in another conversation's workspace on this shared server (or the folder that "
        f"holds them, {refused.detail}): each conversation reads and writes only its own "
        f"workspace, and no setting opens the others. {instead}"
    )
    return PolicyBlocked(
        head + why, rule=OTHER_WORKSPACE_RULE, subject=str(refused.path), allow_with=None
    )


def _instead(slot: PathSlot, path: Path, roots: FileRoots) -> str:
    name = path.name or "file"
    if slot.use is None:
        return (
            f"Open a page inside the workspace (e.g. {(roots.cwd / name).as_uri()}) or serve "
            "it over http(s)."
        )
    if slot.use is PathUse.WRITE_FILE:
        return f"Save it under the workspace: `{slot.example} ./{name}`."
    if slot.use is PathUse.WRITE_DIR:
        return f"Use a directory under the workspace: `{slot.example} ./{name}`."
    return f"Use a file under the workspace ({roots.cwd}) instead."


def _unplaceable(where: str, what: str, roots: FileRoots) -> PolicyBlocked:
    return PolicyBlocked(
        f"{where}the relative path of {what} could not be pinned to one argv token, so it "
        f"cannot be made absolute; write it as an absolute path under {roots.cwd}.",
        rule=RULE,
        subject=what,
        allow_with=None,
    )
