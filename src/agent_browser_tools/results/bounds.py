"""Keep model-visible text within budget without losing anything.

When a rendering exceeds `VISIBLE_LIMIT`, the complete redacted observation is written to a
private spill file and the visible body is cut; the tail (warnings, exact next actions, the
category line) is never cut, so recovery argv is never truncated. If the spill cannot be
written, the result says so instead of pretending the rest exists somewhere.

`spill_bytes` is the writer for parts moved out of an answer by the message budget
(`message_budget`) and for huge values (`large_values`): same private dir, same file rules.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_browser_tools.private_fs import ensure_private_dir, write_private_file

VISIBLE_LIMIT = 16_000


@dataclass(frozen=True)
class Bounded:
    text: str
    observation_path: str | None = None
    spill_error: str | None = None


SPILL_COMMAND = "spill"
"""The direct tool's word for reading a spill back (`results.spill_reader`)."""


def read_call(name: str, offset: int = 0) -> str:
    """The exact call that reads spill `name` from `offset`, as result lines write it: the
    state dir holding spills is never the model's to open, so the tool reads them."""
    words = [SPILL_COMMAND, name] if offset == 0 else [SPILL_COMMAND, name, "--offset", str(offset)]
    return "agent_browser " + json.dumps({"args": words})


SPILL_PATH_KEYS = ("fullOutputPath", "observationPath")
"""Observation keys that hold a spill's absolute path (in the state dir, not the model's)."""


def with_spill_reads(observation: dict[str, Any]) -> dict[str, Any]:
    """`observation` plus `spillReads`: for each spill path key, the exact params that read
    it through the tool. A `--json` caller sees only the JSON, so the prose line naming the
    call is not there for it; the path alone is a file it may not open."""
    reads = {
        key: {"args": [SPILL_COMMAND, Path(value).name]}
        for key in SPILL_PATH_KEYS
        if isinstance(value := observation.get(key), str)
    }
    return {**observation, "spillReads": reads} if reads else observation


def spill_observation(spill_dir: Path, observation: dict[str, Any]) -> Path:
    """Write the whole observation as JSON (0600) and return its path."""
    directory = ensure_private_dir(spill_dir)
    path = directory / f"observation-{uuid.uuid4().hex[:12]}.json"
    payload = json.dumps(observation, ensure_ascii=False, indent=2, default=str) + "\n"
    write_private_file(path, payload.encode("utf-8"))
    return path


def spill_bytes(spill_dir: Path, stem: str, suffix: str, data: bytes) -> Path:
    """Write `data` (0600) as `<stem>-<digest><suffix>` and return its path.

    Named by content, so the same part moved again (a large ref map, on every call after the
    snapshot that made it) is written once and named again."""
    directory = ensure_private_dir(spill_dir)
    path = directory / f"{stem}-{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    if not path.is_file() or path.stat().st_size != len(data):
        write_private_file(path, data)
    return path


def bound_visible(body: str, tail: str, observation: dict[str, Any], spill_dir: Path) -> Bounded:
    """Join body and tail within the limit, spilling the full observation when needed."""
    joined = "\n".join(part for part in (body, tail) if part)
    if len(joined) <= VISIBLE_LIMIT:
        return Bounded(joined)
    try:
        path = spill_observation(spill_dir, observation)
        notice = (  # the absolute path is in details.observationPath; the model reads by name
            f"[Output truncated to fit {VISIBLE_LIMIT} characters. The complete observation is "
            f"saved as {path.name}: read it with {read_call(path.name)}, or narrow the command.]"
        )
        spilled, error = str(path), None
    except OSError as exc:
        notice = (
            f"[Output truncated to fit {VISIBLE_LIMIT} characters. The full observation could "
            f"not be saved ({exc}); narrow the command to see the rest.]"
        )
        spilled, error = None, str(exc)
    room = VISIBLE_LIMIT - len(tail) - len(notice) - 2
    cut = body[: max(room, 0)]
    text = "\n".join(part for part in (cut, notice, tail) if part)
    return Bounded(text[:VISIBLE_LIMIT] if len(tail) > VISIBLE_LIMIT else text, spilled, error)


_BULKY_KEYS = ("data", "batchSteps", "batchFailure", "artifacts", "snapshotFilter")


def bound_json(
    observation: dict[str, Any], spill_dir: Path, *, compact_text: str | None = None
) -> Bounded:
    """Caller-requested JSON that stays parseable within the limit.

    An oversized observation is spilled whole; the visible JSON keeps every decision field
    (categories, error, next actions, warnings) and replaces bulky payloads with a compact
    form (`data.snapshot` for compacted snapshots) plus `observationPath`.
    """
    observation = with_spill_reads(observation)
    text = json.dumps(observation, ensure_ascii=False, default=str)
    if len(text) <= VISIBLE_LIMIT:
        return Bounded(text)
    try:
        path: str | None = str(spill_observation(spill_dir, observation))
        error = None
    except OSError as exc:
        path, error = None, str(exc)
    reduced = {k: v for k, v in observation.items() if k not in _BULKY_KEYS}
    verification = reduced.get("artifactVerification")
    if isinstance(verification, dict) and "artifacts" in verification:
        # The counts are decision fields; the per-file rows stay in the spill.
        reduced["artifactVerification"] = {
            k: v for k, v in verification.items() if k != "artifacts"
        }
    reduced["dataOmitted"] = True
    if path:
        reduced["observationPath"] = path
    else:
        reduced["spillError"] = error
    reduced = with_spill_reads(reduced)
    fixed = json.dumps(reduced, ensure_ascii=False, default=str)
    room = VISIBLE_LIMIT - len(fixed) - 64
    while compact_text is not None and room > 200:
        # Escaping (newlines, quotes) makes the JSON longer than the text: shrink until it fits.
        reduced["data"] = {"snapshot": compact_text[:room], "compacted": True}
        text = json.dumps(reduced, ensure_ascii=False, default=str)
        if len(text) <= VISIBLE_LIMIT:
            return Bounded(text, path, error)
        room = int(room * 0.9)
    reduced.pop("data", None)
    return Bounded(json.dumps(reduced, ensure_ascii=False, default=str), path, error)
