"""The wrapper's own page scripts in one helper batch run as one `eval` (pure).

Why: the engine pays about two milliseconds for every row of a batch, page script or not
(measured on engine 0.39.4: six `eval 1` rows take 13 ms more than one). A ref click's
helper batches carry four to six rows, most of them the wrapper's own scripts side by side
(the identity check, the click probe, the navigation watcher; the settle outcome, the probe's
counts, the dialog read). Consecutive script rows are sent as one script that runs each part
in turn and answers all their values; the answer is split back into one row per part, so
every reader sees the rows it asked for.

Each part keeps its own outcome: a part that throws fails alone (its error says why; a value
`JSON.stringify` rejects, or a page that replaced `JSON.stringify`, fails them all), and in
a fail-fast (`--bail`) batch the rows after it count as not run, as the engine would have
stopped there (the engine does run the plain rows after the merged script: the wrapper's
helper batches only read). Only the wrapper's own synchronous scripts go through here.

A value the page hands over may hold a lone surrogate (`document.title = "\ud800"`): the
merged answer carries it as a JSON escape, where the engine's own answer would have replaced
it, so each part's strings get U+FFFD for it (no journal or MCP message can carry one).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.input_limits import loads_json_text

_MERGED = """(() => {
const parts = [%s], out = [];
for (const part of parts) {
  try { const value = part(); out.push({v: value === undefined ? null : value}); }
  catch (e) { out.push({e: String((e && e.message) || e)}); if (%s) break; }
}
return JSON.stringify(out);
})()"""

Groups = list[tuple[int, int]]
"""For each row sent, the range of the caller's rows it stands for."""


def _script(row: Sequence[str]) -> str | None:
    return row[1] if len(row) == 2 and row[0] == "eval" else None


def merge(rows: Sequence[Sequence[str]], *, bail: bool) -> tuple[list[list[str]], Groups]:
    """The rows to send (runs of two or more script rows as one) and what each stands for."""
    sent: list[list[str]] = []
    groups: Groups = []
    index = 0
    while index < len(rows):
        end = index
        while end < len(rows) and _script(rows[end]) is not None:
            end += 1
        if end - index >= 2:
            parts = ",\n".join(f"() => ({_script(row)})" for row in rows[index:end])
            sent.append(["eval", _MERGED % (parts, "true" if bail else "false")])
            groups.append((index, end))
            index = end
            continue
        sent.append(list(rows[index]))
        groups.append((index, index + 1))
        index += 1
    return sent, groups


def expand(
    rows: Sequence[Sequence[str]], groups: Groups, answered: Sequence[BatchRow], *, bail: bool
) -> tuple[BatchRow, ...]:
    """The engine's answer as one row per caller's row (`rows`, as given to `merge`)."""
    out: list[BatchRow] = []
    for (start, end), row in zip(groups, answered, strict=False):
        if end - start == 1:
            out.append(row)
            if bail and not row.success:
                break
            continue
        parts = _parts(row, end - start, bail=bail)
        for offset, part in enumerate(parts):
            out.append(_part_row(rows[start + offset], row, part))
        if bail and (len(parts) < end - start or not out[-1].success):
            break
    return tuple(out)


def _parts(row: BatchRow, count: int, *, bail: bool) -> list[Mapping[str, Any]]:
    """Each part's `{v}` or `{e}`; the merged row's own failure fails every part. Fail-fast,
    a short answer is where the scripts stopped; otherwise a missing part fails its row."""
    if not row.success:
        return [{"e": row.error or "the merged page script failed"}] * count
    raw = row.result.get("result") if isinstance(row.result, Mapping) else None
    try:
        answer = loads_json_text(raw) if isinstance(raw, str) else None
    except ValueError:
        answer = None
    if not isinstance(answer, list) or not all(isinstance(a, Mapping) for a in answer):
        return [{"e": "the merged page script answered nothing readable"}] * count
    answer = [well_formed(part) for part in answer]
    if bail:
        return answer[:count]
    missing = [{"e": "the merged page script answered no part for this row"}]
    return answer[:count] + missing * (count - len(answer))  # a short answer shifts no row


def _part_row(row: Sequence[str], merged: BatchRow, part: Mapping[str, Any]) -> BatchRow:
    if "v" not in part:
        return BatchRow(command=tuple(row), success=False, result=None, error=str(part.get("e")))
    base = merged.result if isinstance(merged.result, Mapping) else {}
    return BatchRow(
        command=tuple(row), success=True, result={**base, "result": part["v"]}, error=None
    )


_LONE = re.compile("[\ud800-\udfff]")


def well_formed(value: Any) -> Any:
    """`value` with every lone surrogate in its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value) if _LONE.search(value) else value
    if isinstance(value, Mapping):
        return {well_formed(k): well_formed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [well_formed(item) for item in value]
    return value
