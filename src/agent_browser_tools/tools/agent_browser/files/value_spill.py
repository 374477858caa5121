"""Direct tool, right after observing: huge values of the answer go to spill files.

`results.large_values` decides; this stage saves each value (scrubbed of the conversation's
secrets, already redacted by `observe`) in the conversation's spill dir. Left whole: a
snapshot's answer (compaction needs the whole tree and spills it itself, and its refs are
recorded) and a call with `outputPath` (the caller asked for the data in a file).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_browser_tools.results.bounds import spill_bytes
from agent_browser_tools.results.large_values import LargeValues
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.taxonomy import CommandMatch
from agent_browser_tools.tools.agent_browser.call import DirectCall


def cut(call: DirectCall, obs: Observation) -> Observation:
    """`obs` with every over-limit string of its answer moved to a file (`largeValues`)."""
    plan, rt = call.plan, call.rt
    if call.output_path:
        return obs

    def save(text: str) -> str:
        data = rt.secrets.scrub(text).encode("utf-8")
        return str(spill_bytes(rt.spill_dir, "value", ".txt", data))

    values = LargeValues(save)
    if plan.is_batch:
        matches = plan.row_matches or ()
        steps = obs.extra.get("batchSteps")
        _cut_rows(values, steps if isinstance(steps, list) else [], matches, "batchSteps")
        _cut_rows(values, obs.data if isinstance(obs.data, list) else [], matches, "data")
    elif not _ref_map(plan.match):
        obs.data = values.cut(obs.data, "data")
    if values.rows:
        obs.extra["largeValues"] = values.rows
    return obs


def _cut_rows(
    values: LargeValues, rows: Sequence[Any], matches: Sequence[CommandMatch | None], name: str
) -> None:
    for index, row in enumerate(rows):
        match = matches[index] if index < len(matches) else None
        if isinstance(row, dict) and "result" in row and not _ref_map(match):
            row["result"] = values.cut(row["result"], f"{name}[{index}].result")


def _ref_map(match: CommandMatch | None) -> bool:
    return match is not None and match.spec.produces_refs
