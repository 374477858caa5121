"""Refs the model sees are unique per session, even when the engine starts counting again.

Why: the engine numbers refs with a counter that restarts at `e1` whenever it launches a
browser (after `close`, a fresh session, a crash). A ref from before the restart would then
name some other element of the new page, and no guard could tell the two `@e3`s apart. So
the wrapper shows every engine id shifted by the session's `ref_base` (the highest id the
session had shown when the engine restarted): `@e3` of the new browser reads as `@e103`, and
an old `@e3` can never pass as a current ref. With `ref_base == 0` (no restart yet, the
common case) every function here is the identity.

Pure. `to_engine` rewrites the refs a call sends; `to_model` rewrites the refs an answer
carries: ref maps, `ref=eN` in snapshot trees, `@eN` echoes, `Unknown ref: eN` errors.
Page text is never touched.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow, Envelope
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.taxonomy import resolve_command, split_global_flags

_SPELLING = re.compile(r"^(@|ref=)?e(\d+)$")
_KEY = re.compile(r"^e(\d+)$")
_TREE_REF = re.compile(r"\bref=e(\d+)\b")
_ECHO = re.compile(r"^@e(\d+)$")
_UNKNOWN = re.compile(r"(Unknown ref: @?)e(\d+)")


def _shift(token: str, delta: int) -> str | None:
    """`@e5` shifted by `delta`, keeping its spelling; None when the result is not an id."""
    hit = _SPELLING.match(token)
    if hit is None:
        return None
    number = int(hit.group(2)) + delta
    return f"{hit.group(1) or ''}e{number}" if number > 0 else None


def _row_to_engine(row: Sequence[str], base: int) -> list[str]:
    """One argv with its ref-slot tokens moved to engine ids (others untouched)."""
    out = list(row)
    match = resolve_command(split_global_flags(out)[1]) if out else None
    for value in match.ref_values() if match is not None else ():
        shifted = _shift(value, -base)
        spelled = _SPELLING.match(value)
        if shifted is None and spelled is not None:
            shifted = f"{spelled.group(1) or ''}e0"  # from before the restart: no element
        if shifted is not None and value in out:
            out[out.index(value)] = shifted
    return out


def to_engine(plan: ExecutionPlan, base: int) -> tuple[list[str], str | None]:
    """The argv and stdin to spawn, with presented refs translated to engine ids."""
    args, stdin = list(plan.effective_args), plan.stdin
    if base == 0:
        return args, stdin
    batch = plan.checked.batch
    if batch is not None and batch.source == "stdin" and stdin is not None:
        return args, json.dumps([_row_to_engine(row, base) for row in batch.rows])
    if batch is not None:
        raws = set(batch.raw)
        fixed = [shlex.join(_row_to_engine(shlex.split(t), base)) if t in raws else t for t in args]
        return fixed, stdin
    return _row_to_engine(args, base), stdin


def rows_to_engine(rows: Sequence[Sequence[str]], base: int) -> list[list[str]]:
    """Batch rows (a segment) with presented refs translated to engine ids."""
    return [_row_to_engine(row, base) if base else list(row) for row in rows]


def data_to_model(data: Any, base: int) -> Any:
    """Engine data with its refs shown as presented ids (page text untouched)."""
    if base == 0:
        return data
    if isinstance(data, Mapping):
        out: dict[str, Any] = {}
        for key, value in data.items():
            if key == "refs" and isinstance(value, Mapping):
                out[key] = {_key(k, base): data_to_model(v, base) for k, v in value.items()}
            else:
                out[key] = data_to_model(value, base)
        return out
    if isinstance(data, list):
        return [data_to_model(item, base) for item in data]
    if isinstance(data, str):
        return _text_to_model(data, base)
    return data


def _key(key: Any, base: int) -> Any:
    hit = _KEY.match(str(key))
    return f"e{int(hit.group(1)) + base}" if hit else key


def _text_to_model(text: str, base: int) -> str:
    """`ref=eN` annotations and whole-string `@eN` echoes; other text stays as it is."""
    echo = _ECHO.match(text)
    if echo is not None:
        return f"@e{int(echo.group(1)) + base}"
    return _TREE_REF.sub(lambda m: f"ref=e{int(m.group(1)) + base}", text)


def error_to_model(error: str | None, base: int) -> str | None:
    """`Unknown ref: e3` names the id the model sent."""
    if error is None or base == 0:
        return error
    return _UNKNOWN.sub(lambda m: f"{m.group(1)}e{int(m.group(2)) + base}", error)


def envelope_to_model(envelope: Envelope, base: int) -> Envelope:
    """The whole answer with presented ids (rows, data, errors)."""
    if base == 0:
        return envelope
    rows = None
    if envelope.rows is not None:
        rows = tuple(
            BatchRow(
                command=tuple(data_to_model(list(row.command), base)),
                success=row.success,
                result=data_to_model(row.result, base),
                error=error_to_model(row.error, base),
            )
            for row in envelope.rows
        )
    return Envelope(
        mode=envelope.mode,
        success=envelope.success,
        data=data_to_model(envelope.data, base),
        error=error_to_model(envelope.error, base),
        warning=envelope.warning,
        error_type=envelope.error_type,
        rows=rows,
        text=_text_to_model(envelope.text, base) if envelope.text is not None else None,
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


def base_after(envelope: Envelope, base: int, high: int) -> int:
    """The base for this answer: after a (re)launch, above every id shown so far."""
    return max(base, high) if launched(envelope) else base
