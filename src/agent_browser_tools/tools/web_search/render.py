"""Search results as a `ToolResult` (pure): compact numbered prose plus contract details.

The model reads one line per field (title, URL, date and source, one description line) so a
five-result answer stays a few hundred tokens; full highlights stay in `details`. A last
redaction pass replaces the resolved key anywhere in text or details, so even a provider that
echoed it back could not put it in front of the model or into a transcript.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.observation import Observation, failure
from agent_browser_tools.results.tool_result import TextBlock, ToolResult
from agent_browser_tools.tools.web_search.config import PROVIDER_NAMES
from agent_browser_tools.tools.web_search.providers import iso_ms
from agent_browser_tools.tools.web_search.schema import WebSearchInput
from agent_browser_tools.tools.web_search.scrubbing import scrub

LINE_LIMIT = 240


@dataclass(frozen=True)
class SearchOutcome:
    """Everything a successful search reports."""

    provider: str
    inp: WebSearchInput
    search_type: str | None
    rows: list[dict[str, Any]]
    duplicates_removed: int
    returned_query: str | None
    request_id: str | None
    fetched_at: datetime


def _found() -> Observation:
    return Observation(success=True, success_category=SuccessCategory.COMPLETED)


def result_details(outcome: SearchOutcome) -> dict[str, Any]:
    """The contract's result-details object plus the category fields."""
    details = _found().to_dict()
    details.update(
        provider=outcome.provider,
        query=outcome.inp.query,
        returnedQuery=outcome.returned_query or outcome.inp.query,
        count=outcome.inp.count,
        offset=outcome.inp.offset,
    )
    if outcome.provider == "exa":
        details["searchType"] = outcome.search_type
        if outcome.request_id:
            details["requestId"] = outcome.request_id
    if outcome.duplicates_removed:
        details["duplicatesRemoved"] = outcome.duplicates_removed
    details["fetchedAt"] = iso_ms(outcome.fetched_at)
    details["results"] = outcome.rows
    return details


def _one_line(text: str, limit: int = LINE_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _row_lines(number: int, row: dict[str, Any]) -> list[str]:
    lines = [f"{number}. {_one_line(str(row.get('title', '')))}", f"   {row['url']}"]
    meta = [str(row["pageDate"])[:10]] if row.get("pageDate") else []
    if row.get("source"):
        meta.append(_one_line(str(row["source"]), 80))
    if meta:
        lines.append("   " + " · ".join(meta))
    if row.get("description"):
        lines.append("   " + _one_line(str(row["description"])))
    return lines


def result_text(outcome: SearchOutcome) -> str:
    name = PROVIDER_NAMES[outcome.provider]
    kind = f" ({outcome.search_type})" if outcome.search_type else ""
    where = f", skipping {outcome.inp.offset}" if outcome.inp.offset else ""
    rows = outcome.rows
    found = f"{len(rows)} result{'s' if len(rows) != 1 else ''}" if rows else "no results"
    lines = [f'{name} search{kind} for "{_one_line(outcome.inp.query, 120)}": {found}{where}.']
    for number, row in enumerate(rows, start=1 + outcome.inp.offset):
        lines += _row_lines(number, row)
    if outcome.duplicates_removed:
        plural = "s" if outcome.duplicates_removed != 1 else ""
        lines.append(f"{outcome.duplicates_removed} duplicate URL{plural} removed (not replaced).")
    return "\n".join(lines)


def success_result(outcome: SearchOutcome, secrets: Sequence[str]) -> ToolResult:
    shown = result_text(outcome)
    found = response.from_observation(_found(), text=shown, details=result_details(outcome))
    return redacted(found, secrets)


def failure_result(
    category: FailureCategory, message: str, secrets: Sequence[str] = (), **extra: Any
) -> ToolResult:
    """A failed search: `Error: ...` plus the category line agents branch on."""
    observation = failure(category, message, **{k: v for k, v in extra.items() if v is not None})
    return redacted(response.from_observation(observation), secrets)


def _redact_value(value: Any, secrets: Sequence[str]) -> Any:
    if isinstance(value, str):
        return scrub(value, *secrets)
    if isinstance(value, dict):
        return {scrub(str(k), *secrets): _redact_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_value(item, secrets) for item in value]
    return value


def redacted(result: ToolResult, secrets: Sequence[str]) -> ToolResult:
    """`result` with every secret replaced in the text blocks and the details."""
    live = [secret for secret in secrets if secret]
    if not live:
        return result
    content = tuple(
        TextBlock(text=scrub(block.text, *live)) if isinstance(block, TextBlock) else block
        for block in result.content
    )
    details = _redact_value(result.details, live)
    return replace(result, content=content, details=details)
