"""The playbook covers every guideline topic of the contract's shared guidelines.

Why a test: the guidance is prose in one module (`playbook.py`), so a rewrite for brevity can
silently drop a rule the contract requires agents to be told. Each topic names the phrases
that must survive; the words are the ones an agent would search the guidance for.
"""

from __future__ import annotations

import pytest

from agent_browser_tools import playbook

GUIDELINE_TOPICS: dict[str, tuple[str, ...]] = {
    "choose direct, batch or code": ("batch --bail", "agent_browser_code"),
    "refs are page-scoped; re-snapshot": ("snapshot -i", "stale-ref"),
    "dense pages: search/filter": ("--search", "--search-exact", "--filter"),
    "launch-scoped flags on the first call or fresh": ("sessionmode", '"fresh"'),
    "eval --stdin through the stdin field, return values": ("eval --stdin", "`stdin` field"),
    "function snippet returning {} (evalStdinHint)": ("evalstdinhint",),
    "outputPath for durable data, not artifact paths": ("outputpath",),
    "broad get text selectors (selectorTextVisibility)": (
        "selectortextvisibility",
        "inspect-visible-text-candidates",
    ),
    "find locators over guessed CSS": ("find locators",),
    "no Playwright selector dialects": ("playwright",),
    "keyboard type vs inserttext": ("keyboard type", "keyboard inserttext"),
    "nested scroll: scrollintoview": ("scrollintoview",),
    "condition waits; fixed waits last resort": ("wait --fn", "last resort"),
    "avoid --help": ("--help",),
    "localhost and file:// caveats": ("localhost", "file://"),
    "profiles and doctor on profile failure": ("profile", "doctor"),
    "--pin-tab for shared Chrome": ("--pin-tab",),
    "WebMCP workflow": ("webmcp list", "webmcp invoke"),
    "recording needs ffmpeg": ("ffmpeg",),
    "pair long-running starts with stops": ("stop", "stream enable", "operator's"),
    "network requests: actionable vs benign, route diagnostics": (
        "actionable",
        "benign",
        "networkroutediagnostics",
    ),
    "artifact verification before PASS/FAIL": ("artifactverification",),
    "confirmations use exact ids": ("confirm id",),
    "wrong page or tab recovery": ("tab list",),
    "timeouts: verify the page before retrying": ("verify-page-target-after-timeout",),
    "forms, dialogs, downloads": ("select @en", "dialog", "download"),
    "stop boundaries": ("purchases",),
    "no CAPTCHA bypass": ("captcha",),
}


@pytest.mark.parametrize("topic", sorted(GUIDELINE_TOPICS))
def test_the_full_guidance_covers_the_topic(topic: str) -> None:
    text = playbook.FULL_GUIDANCE.lower()
    missing = [phrase for phrase in GUIDELINE_TOPICS[topic] if phrase.lower() not in text]
    assert not missing, f"{topic}: {missing}"


def test_web_search_guidance_keeps_its_rules() -> None:
    """Prefer the search API over Google forms, no CAPTCHA bypass, one query and at most one
    follow-up; the always-on instructions point at the search tool too."""
    text = playbook.WEB_SEARCH
    for phrase in ("Google", "CAPTCHA", "one focused query", "at most one follow-up"):
        assert phrase in text, phrase
    assert "agent_browser_web_search" in playbook.INSTRUCTIONS
    assert "public search engines" in playbook.INSTRUCTIONS
