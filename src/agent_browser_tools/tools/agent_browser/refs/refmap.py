"""The refs the model sees name one element each, for the whole conversation.

Why: the engine keys a ref by DOM node and keeps it across snapshots, so after a list is
patched in place the same `@e3` names "Details A" in one snapshot and "Details C" in the
next; and it counts from `e1` again whenever it launches a browser. A ref from an older
snapshot could then pass for a ref of the latest one. So the wrapper shows its own ids: an
engine ref keeps its shown id from one snapshot to the next while it is the same element
(same node, role and name and, for look-alikes, anchors: `state.ref_identity`), which is
nearly always; otherwise, and after the engine launched a browser, it gets a new id above
every id shown so far. At dispatch the shown ids go back to engine ids.

Which ids are shown is decided in `shown_ids`; this module translates both ways.

Pure. Page text is never rewritten: only ref map keys, `ref=eN` in snapshot trees,
whole-string `@eN` echoes and the engine's `Unknown ref: eN` and `Element '@eN'` errors.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow, Envelope
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.script_guard import ScriptGuard
from agent_browser_tools.state.effects import refs_from_snapshot, remember_refs
from agent_browser_tools.state.models import Anchor, RefInfo
from agent_browser_tools.state.ref_identity import END, START
from agent_browser_tools.taxonomy import (
    FlagValue,
    batch_row_words,
    global_flag,
    join_batch_row,
    resolve_command,
    split_global_flags,
)
from agent_browser_tools.tools.agent_browser.refs.shown_ids import TREE_REF
from agent_browser_tools.tools.agent_browser.refs.shown_ids import Shown as Shown  # callers' name

_SPELLING = re.compile(r"^(@|ref=)?(e\d+)$")
_KEY = re.compile(r"^e(\d+)$")
_ECHO = re.compile(r"^@(e\d+)$")
_UNKNOWN = re.compile(r"(Unknown ref: @?|Element '@)(e\d+)")
"""Engine errors that name the ref they were given: `Unknown ref: e3`, `Element '@e3' is
covered by <div#overlay> ...`."""


def engine_id(shown: str, table: Mapping[str, RefInfo]) -> str:
    """The engine's id for a shown ref id (itself when the table does not know it)."""
    info = table.get(shown)
    return info.engine if info is not None and info.engine else shown


Checked = Mapping[str, bool]
"""Engine ref id -> whether the box shows checked, from the identity re-read."""


def _row_to_engine(
    row: Sequence[str], table: Mapping[str, RefInfo], checked: Checked | None = None
) -> list[str]:
    """One argv with its ref-slot tokens as engine ids (every other token untouched), and a
    `check`/`uncheck` whose box shows the other state sent as one `click`."""
    out = list(row)
    match = resolve_command(split_global_flags(out)[1]) if out else None
    done: set[int] = set()
    engines: list[str] = []
    for value in match.ref_values() if match is not None else ():
        hit = _SPELLING.match(value)
        if hit is None:
            continue
        engines.append(engine_id(hit.group(2), table))
        index = next((i for i, t in enumerate(out) if t == value and i not in done), None)
        if index is not None:
            out[index] = f"{hit.group(1) or ''}{engines[-1]}"
            done.add(index)
    wanted = match.spec.sets_checked if match is not None else None
    state = checked.get(engines[0]) if checked and len(engines) == 1 else None
    if wanted is not None and state is not None and state != wanted:
        out[_command_index(out)] = "click"
    return out


def _command_index(argv: Sequence[str]) -> int:
    """Where the command word sits, after global flags and their values."""
    index = 0
    while index < len(argv) and argv[index].startswith("-"):
        flag = global_flag(argv[index])
        takes = flag.value if flag is not None else FlagValue.NONE
        nxt = argv[index + 1] if index + 1 < len(argv) else None
        if takes is FlagValue.REQUIRED or (
            takes is FlagValue.OPTIONAL_BOOL and nxt in ("true", "false")
        ):
            index += 1
        index += 1
    return index


def rows_to_engine(
    rows: Sequence[Sequence[str]],
    table: Mapping[str, RefInfo],
    checked: Checked | None = None,
    guard: ScriptGuard | None = None,
) -> list[list[str]]:
    """Stdin batch rows (one segment) with their shown refs as engine ids and, with `guard`,
    their page scripts guarded (`planning.script_guard`).

    The re-read box states hold up to the first step that can change the page: a segment
    ends before the next ref step after one, so only steps after a change within the rows
    lose them."""
    out: list[list[str]] = []
    for row in rows:
        out.append(_guarded(_row_to_engine(row, table, checked), guard))
        match = resolve_command(split_global_flags(row)[1]) if row else None
        if match is not None and (match.spec.produces_refs or not match.spec.read_only):
            checked = None
    return out


def to_engine(
    plan: ExecutionPlan,
    table: Mapping[str, RefInfo],
    checked: Checked | None = None,
    guard: ScriptGuard | None = None,
) -> tuple[list[str], str | None]:
    """The argv and stdin to spawn, with shown refs translated to engine ids and, with
    `guard`, every page script guarded (direct, `eval --stdin`, argument and stdin rows)."""
    args, stdin = list(plan.effective_args), plan.stdin
    if not checked and not any(info.engine for info in table.values()) and guard is None:
        return args, stdin
    batch = plan.checked.batch
    if batch is not None and batch.source == "stdin" and stdin is not None:
        return args, json.dumps(rows_to_engine(batch.rows, table, checked, guard))
    if batch is not None:
        raws = set(batch.raw)
        # Argv batches are not re-read between steps: no box state is trusted there.
        fixed = [_batch_word(token, table, guard) if token in raws else token for token in args]
        return fixed, stdin
    engine = _row_to_engine(args, table, checked)
    return _guarded(engine, guard), guard.stdin_script(engine, stdin) if guard else stdin


def _batch_word(token: str, table: Mapping[str, RefInfo], guard: ScriptGuard | None) -> str:
    """One argument row as the engine should split it: the caller's string when nothing in it
    changes (its own quoting kept), else the changed words re-quoted."""
    words = batch_row_words(token)
    engine = _guarded(_row_to_engine(list(words), table), guard)
    return token if tuple(engine) == words else join_batch_row(engine)


def _guarded(row: list[str], guard: ScriptGuard | None) -> list[str]:
    guarded = guard.row(row) if guard is not None else None
    return row if guarded is None else list(guarded)


_BLOCK = re.compile(r"\[([^\[\]]*\bref=e\d+[^\[\]]*)\]")
_BLOCK_REF = re.compile(r"\bref=(e\d+)\b")
_BLOCK_CHECKED = re.compile(r"(?:^|,\s*)checked=(true|false)\b")


def checked_states(data: Any) -> dict[str, bool]:
    """Engine ref id -> checked, from each tree line's attribute block `[checked=true,
    ref=eN]` (the last bracket block holding a ref: a name cannot fake it) (pure)."""
    text = data.get("snapshot") if isinstance(data, Mapping) else None
    if not isinstance(text, str):
        return {}
    states: dict[str, bool] = {}
    for line in text.splitlines():
        blocks = _BLOCK.findall(line)
        if not blocks:
            continue
        ref, state = _BLOCK_REF.search(blocks[-1]), _BLOCK_CHECKED.search(blocks[-1])
        if ref is not None and state is not None:
            states[ref.group(1)] = state.group(1) == "true"
    return states


def data_to_model(data: Any, shown: Shown) -> Any:
    """Engine data with its refs as shown ids; snapshot ref maps get their ids first."""
    if isinstance(data, Mapping):
        refs = data.get("refs")
        if isinstance(refs, Mapping):
            # An ordinary snapshot keeps its tree in `snapshot`, a native delta answer in `tree`.
            text = data.get("snapshot")
            text = text if isinstance(text, str) else data.get("tree")
            tree = text if isinstance(text, str) else None
            infos = refs_from_snapshot(data, tree)
            shown.bind(infos, tree)
            if not shown.reverse() and (tree is None or tree.count("ref=e") == len(refs)):
                return _same_ids(data, shown, refs, tree, infos)
            return _shown_ids(data, shown, refs, tree, infos)
        out: dict[str, Any] = {}
        for key, value in data.items():
            if key == "refs" and isinstance(value, Mapping):
                out[key] = {_key(k, shown): data_to_model(v, shown) for k, v in value.items()}
            else:
                out[key] = data_to_model(value, shown)
        return out
    if isinstance(data, list):
        return [data_to_model(item, shown) for item in data]
    if isinstance(data, str):
        return text_to_model(data, shown)
    return data


def _same_ids(
    data: Mapping[str, Any],
    shown: Shown,
    refs: Mapping[str, Any],
    tree: str | None,
    table: dict[str, RefInfo],
) -> dict[str, Any]:
    """A snapshot whose every ref keeps its engine id (nearly always) and whose tree names
    each once: its ref map and tree stay as they are (the map is the engine's parsed answer,
    read from here on, never changed: redaction copies it), the rest is shown as usual, and
    the table already built is the shown table too (`refs_from_snapshot` returns it)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if value is refs or value is tree:
            out[key] = value
        else:
            out[key] = data_to_model(value, shown)
    remember_refs(out[next(k for k, v in data.items() if v is refs)], tree, table)
    return out


def _shown_ids(
    data: Mapping[str, Any],
    shown: Shown,
    refs: Mapping[str, Any],
    tree: str | None,
    table: Mapping[str, RefInfo],
) -> dict[str, Any]:
    """A snapshot shown under other ids: its ref map keyed by shown ids (each ref's record,
    role and name as the page wrote them, kept as it is), its tree's `ref=` translated, and
    the table built under engine ids translated to shown ids, anchors too: it is what
    building the table again from the shown answer gives (`refs_from_snapshot`), without
    reading thousands of refs twice."""
    assigned = shown.assigned  # every ref of the map is bound by now (`bind`)
    out: dict[str, Any] = {}
    for key, value in data.items():
        if value is refs:
            out[key] = {assigned.get(k) or _key(k, shown): v for k, v in refs.items()}
        elif tree is not None and value is tree:
            out[key] = TREE_REF.sub(
                lambda m: "ref=" + (assigned.get(m.group(1)) or shown.ref(m.group(1))), value
            )
        else:
            out[key] = data_to_model(value, shown)
    refs_key = next(k for k, v in data.items() if v is refs)
    tree_key = next((k for k, v in data.items() if tree is not None and v is tree), None)
    translated: dict[str, RefInfo] = {}
    for engine, info in table.items():
        if info.anchors is not None:
            moved = tuple(_shown_anchor(anchor, shown) for anchor in info.anchors)
            info = info._replace(anchors=(moved[0], moved[1]))
        translated[assigned.get(engine) or shown.ref(engine)] = info
    remember_refs(out[refs_key], out[tree_key] if tree_key is not None else None, translated)
    return out


def _shown_anchor(anchor: Anchor, shown: Shown) -> Anchor:
    """A twin's anchor under the shown id of its ref (a page end stays as it is)."""
    return anchor if anchor.ref in (START, END) else Anchor(shown.ref(anchor.ref), anchor.text)


def left_candidates(left: Mapping[str, RefInfo], infos: Mapping[str, RefInfo]) -> dict[str, str]:
    """Engine id -> shown id of a dropped ref (`left`) that the element reads exactly as,
    when it is the only one on each side that reads so (two alike are told apart by
    neither). Candidates only: the page must still prove each the same node (pure)."""
    before = Counter(_reading(info) for info in left.values())
    after = Counter(_reading(info) for info in infos.values())
    was = {_reading(info): shown for shown, info in left.items()}
    out: dict[str, str] = {}
    for engine, info in infos.items():
        reading = _reading(info)
        shown = was.get(reading)
        if shown is not None and before[reading] == 1 and after[reading] == 1:
            out[engine] = shown
    return out


def _reading(info: RefInfo) -> tuple[object, ...]:
    """How a ref reads: role, name (an empty one as none, as journaled) and, for a twin,
    its anchors' texts and place among its look-alikes."""
    anchors = tuple(anchor.text for anchor in info.anchors) if info.anchors else None
    return info.role, info.name or None, anchors, info.nth if anchors else None


def _key(key: Any, shown: Shown) -> Any:
    return shown.ref(str(key)) if _KEY.match(str(key)) else key


def text_to_model(text: str, shown: Shown) -> str:
    """`ref=eN` annotations and a whole-string `@eN` echo; other text stays as it is."""
    if "ref=" not in text and text[:1] != "@":
        return text
    echo = _ECHO.match(text)
    if echo is not None:
        return "@" + shown.ref(echo.group(1))
    return TREE_REF.sub(lambda m: "ref=" + shown.ref(m.group(1)), text)


def error_to_model(error: str | None, shown: Shown) -> str | None:
    """`Unknown ref: e3` and `Element '@e3' ...` name the id the model sent."""
    if error is None:
        return None
    return _UNKNOWN.sub(lambda m: m.group(1) + shown.ref(m.group(2)), error)


def envelope_to_model(envelope: Envelope, shown: Shown) -> Envelope:
    """The whole answer with shown ids (data, batch rows, errors, native text)."""
    rows = None
    if envelope.rows is not None:
        rows = tuple(
            BatchRow(
                command=tuple(text_to_model(t, shown) for t in row.command),
                success=row.success,
                result=data_to_model(row.result, shown),
                error=error_to_model(row.error, shown),
            )
            for row in envelope.rows
        )
    return Envelope(
        mode=envelope.mode,
        success=envelope.success,
        data=data_to_model(envelope.data, shown),
        error=error_to_model(envelope.error, shown),
        warning=envelope.warning,
        error_type=envelope.error_type,
        rows=rows,
        text=text_to_model(envelope.text, shown) if envelope.text is not None else None,
        failure=envelope.failure,
        parse_error=envelope.parse_error,
        stderr=envelope.stderr,
        extra=envelope.extra,
    )


def launched(envelope: Envelope) -> bool:
    """Whether this answer says the engine launched a browser (its ref counter restarted)."""
    results = [envelope.data, *(row.result for row in envelope.rows or ())]
    for data in results:
        life = data.get("lifecycle") if isinstance(data, Mapping) else None
        if isinstance(life, Mapping) and (
            life.get("launched") is True or life.get("relaunchedBrowser") is True
        ):
            return True
    return False
