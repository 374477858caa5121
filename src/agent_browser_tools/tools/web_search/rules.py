"""Provider choice and the cross-field input rules (pure).

Everything here runs before a credential is resolved or a request is sent, so an input the
provider would reject (or, worse, silently ignore) costs no quota and no command execution.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_browser_tools.tools.web_search.config import PROVIDER_NAMES, WebSearchConfig
from agent_browser_tools.tools.web_search.schema import DEEP_TYPES, WebSearchInput

RESTRICTED_CATEGORIES = frozenset({"company", "people"})


class InputRejected(ValueError):
    """The input cannot be sent as asked; the message says what to change."""


@dataclass(frozen=True)
class SearchPlan:
    """What will be sent: the provider and, for Exa, the effective search type."""

    provider: str  # "exa" | "brave"
    search_type: str | None  # effective Exa type; None for Brave, which has no types


def choose_provider(requested: str, available: Sequence[str], preferred: str | None) -> str:
    """`auto` takes the preferred provider when it has a key, else Exa, else Brave."""
    if requested != "auto":
        if requested not in available:
            raise InputRejected(_missing_key_message(requested, available))
        return requested
    if preferred is not None and preferred in available:
        return preferred
    return "exa" if "exa" in available else "brave"


def _missing_key_message(provider: str, available: Sequence[str]) -> str:
    name = PROVIDER_NAMES[provider]
    message = (
        f'provider "{provider}" was requested but no {name} credential is configured '
        f"(web_search.{provider}_api_key or {provider.upper()}_API_KEY)"
    )
    others = [p for p in available if p != provider]
    if others:
        message += f'; use provider "{others[0]}" or "auto"'
    return message + "."


def plan_search(
    inp: WebSearchInput, config: WebSearchConfig, available: Sequence[str]
) -> SearchPlan:
    """Choose the provider and check every rule that depends on it or on config."""
    provider = choose_provider(inp.provider, available, config.preferred_provider)
    if provider == "brave":
        _check_brave(inp, available)
        return SearchPlan(provider="brave", search_type=None)
    search_type = inp.searchType or config.default_search_type or "auto"
    problems = _exa_problems(inp, search_type)
    if problems:
        raise InputRejected("; ".join(problems) + ". Nothing was sent to Exa.")
    return SearchPlan(provider="exa", search_type=search_type)


def _check_brave(inp: WebSearchInput, available: Sequence[str]) -> None:
    """Brave has no equivalent for Exa's filters; dropping them would answer another query."""
    exa_only = inp.exa_only_fields
    if not exa_only:
        return
    fix = (
        'pass provider "exa" to use them'
        if "exa" in available
        else "drop them; to restrict to one site put `site:example.com` in the query"
    )
    raise InputRejected(
        f"{', '.join(exa_only)} apply only to Exa and were not sent to Brave; {fix}."
    )


def _exa_problems(inp: WebSearchInput, search_type: str) -> list[str]:
    problems: list[str] = []
    if inp.additionalQueries is not None and search_type not in DEEP_TYPES:
        problems.append(
            "additionalQueries needs searchType deep-lite, deep or deep-reasoning "
            f'(the effective type is "{search_type}")'
        )
    if inp.category in RESTRICTED_CATEGORIES:
        rejected = [
            name
            for name, present in (
                ("freshness", inp.freshness is not None),
                ("excludeDomains", inp.excludeDomains is not None),
            )
            if present
        ]
        if rejected:
            problems.append(
                f'category "{inp.category}" does not support {" or ".join(rejected)}; '
                "remove them or choose another category"
            )
    return problems
