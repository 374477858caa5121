"""`agent_browser_web_search`: live web search through Exa or Brave, as a companion tool.

The tool is declared in `spec.py` and runs in `run.py`; this package root holds only what the
catalog needs to decide whether to list it, so listing tools loads no HTTP client.
"""

from __future__ import annotations

import logging

from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.web_search.config import (
    WebSearchConfigError,
    describe_sources,
    load_config,
)
from agent_browser_tools.tools.web_search.names import NAME

__all__ = ["describe_sources", "web_search_available"]

log = logging.getLogger(__name__)


def web_search_available(settings: Settings) -> bool:
    """True when config does not disable the tool and some Exa/Brave source is usable.

    Nothing is resolved here: a `!command` source counts as available without running.
    """
    try:
        config = load_config(settings)
    except WebSearchConfigError as exc:
        log.warning("%s not registered: %s", NAME, exc)
        return False
    return config.enabled and bool(config.available_providers(settings.env))
