"""`agent_browser_web_search`: live web search through Exa or Brave, as a companion tool.

Flow (the registry has validated the input): load `[web_search]` config -> enabled? -> plan
(provider choice and every pre-request rule, pure) -> resolve the credential (a `!command`
runs only here) -> build the request (pure) -> send (serialized) -> normalize, slice,
de-duplicate (pure) -> present.
Hosts register the tool only when `web_search_available(settings)` is true; `run` re-checks
because config can disable it and a credential can vanish between registration and a call.
"""

from __future__ import annotations

from datetime import UTC, datetime

from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.web_search.config import (
    CredentialError,
    WebSearchConfig,
    WebSearchConfigError,
    load_config,
    resolve_credential,
)
from agent_browser_tools.tools.web_search.providers import (
    ProviderRequest,
    ResponseShapeError,
    build_brave_request,
    build_exa_request,
    normalize_brave,
    normalize_exa,
    select_window,
)
from agent_browser_tools.tools.web_search.render import (
    SearchOutcome,
    failure_result,
    success_result,
)
from agent_browser_tools.tools.web_search.rules import InputRejected, SearchPlan, plan_search
from agent_browser_tools.tools.web_search.schema import WebSearchInput

_SEND_FAILURES = {
    "timeout": FailureCategory.TIMEOUT,
    "rate-limited": FailureCategory.UPSTREAM_ERROR,
    "http": FailureCategory.UPSTREAM_ERROR,
    "transport": FailureCategory.UPSTREAM_ERROR,
    "shape": FailureCategory.UPSTREAM_ERROR,
}


async def run(rt: Runtime, inp: WebSearchInput) -> ToolResult:
    """Execute one search and return its `ToolResult` (never raises for provider trouble)."""
    prepared = _prepare(rt.settings, inp)
    if isinstance(prepared, ToolResult):
        return prepared
    config, plan = prepared
    return await _execute(rt, inp, config, plan)


def _prepare(
    settings: Settings, inp: WebSearchInput
) -> ToolResult | tuple[WebSearchConfig, SearchPlan]:
    """Every check that needs no credential and no network."""
    invalid = FailureCategory.VALIDATION_ERROR
    try:
        config = load_config(settings)
    except WebSearchConfigError as exc:
        return failure_result(invalid, f"web search config error: {exc}", query=inp.query)
    if not config.enabled:
        where = f" in the {config.enabled_origin} config" if config.enabled_origin else ""
        message = f"web search is disabled by web_search.enabled = false{where}."
        return failure_result(FailureCategory.POLICY_BLOCKED, message, query=inp.query)
    available = config.available_providers(settings.env)
    if not available:
        message = (
            "no Exa or Brave credential is configured: set web_search.exa_api_key or "
            "web_search.brave_api_key in the config, or EXA_API_KEY / BRAVE_API_KEY."
        )
        return failure_result(invalid, message, query=inp.query)
    try:
        plan = plan_search(inp, config, available)
    except InputRejected as exc:
        return failure_result(invalid, str(exc), query=inp.query)
    return config, plan


async def _execute(
    rt: Runtime, inp: WebSearchInput, config: WebSearchConfig, plan: SearchPlan
) -> ToolResult:
    """Resolve the key, send, and present; every failure is scrubbed of the key."""
    # httpx is imported only when a search runs: listing tools should not pay for it.
    from agent_browser_tools.tools.web_search.client import SearchFailed, send

    source = config.source_for(plan.provider, rt.settings.env)
    context = {"provider": plan.provider, "query": inp.query}
    if source is None:  # the environment changed after planning
        message = f"the {plan.provider} credential is no longer available."
        return failure_result(FailureCategory.VALIDATION_ERROR, message, **context)
    key = ""
    try:
        key = await resolve_credential(source, rt.settings.env, cwd=rt.execution_dir)
        request = _build(inp, plan, key, config)
        body = await send(request)
        normalized = normalize_exa(body) if plan.provider == "exa" else normalize_brave(body)
    except CredentialError as exc:
        category = FailureCategory.TIMEOUT if exc.timed_out else FailureCategory.VALIDATION_ERROR
        return failure_result(category, f"credential error: {exc}", [key], **context)
    except SearchFailed as exc:
        extra = {**context, "httpStatus": exc.status}
        return failure_result(_SEND_FAILURES[exc.kind], str(exc), [key], **extra)
    except ResponseShapeError as exc:
        return failure_result(FailureCategory.UPSTREAM_ERROR, str(exc), [key], **context)
    rows, removed = select_window(normalized.rows, inp.count, inp.offset)
    outcome = SearchOutcome(
        provider=plan.provider,
        inp=inp,
        search_type=plan.search_type,
        rows=rows,
        duplicates_removed=removed,
        returned_query=normalized.returned_query,
        request_id=normalized.request_id,
        fetched_at=datetime.now(UTC),
    )
    return success_result(outcome, [key])


def _build(
    inp: WebSearchInput, plan: SearchPlan, key: str, config: WebSearchConfig
) -> ProviderRequest:
    base_url = config.base_urls[plan.provider]
    if plan.provider == "exa":
        assert plan.search_type is not None
        return build_exa_request(
            inp, plan.search_type, key=key, base_url=base_url, now=datetime.now(UTC)
        )
    return build_brave_request(inp, key=key, base_url=base_url)
