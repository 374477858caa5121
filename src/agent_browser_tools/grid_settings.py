"""The operator's Selenium Grid (`[browser] grid_url`): checked, and shown redacted.

In grid mode every browser session of a conversation is one WebDriver session the grid hands
out, and the engine attaches to that session's DevTools endpoint (`se:cdp`). It is the
operator's choice alone (config, `serve --grid-url`, `AGENT_BROWSER_TOOLS_GRID_URL`; the
model has no say), and it excludes every other way of getting a browser: a local launch's
settings, one shared remote browser (`cdp_url`), a provider, and operator-shared sessions
(a browser everyone uses has no one conversation to end it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from agent_browser_tools.remote_endpoint import endpoint_secrets, redact_endpoint
from agent_browser_tools.settings import Settings, SettingsError

GRID_URL_ENV = "AGENT_BROWSER_TOOLS_GRID_URL"
GRID_KEYS = ("grid_url", "grid_capabilities", "grid_wait_s", "grid_max_per_conversation")
DEFAULT_WAIT_S = 30.0
DEFAULT_MAX_PER_CONVERSATION = 4
MAX_WAIT_S = 600.0
EXCLUDED = ("cdp_url", "provider", "isolated", "profile", "executable_path", "extension")
"""`[browser]` keys that choose or shape a browser the grid mode does not use."""

DEFAULT_CAPABILITIES: Mapping[str, Any] = {"browserName": "chrome", "pageLoadStrategy": "none"}
"""`none`: the tools never navigate over WebDriver, and their liveness check must not wait
for a page the engine is loading."""


@dataclass(frozen=True)
class GridConfig:
    """Where new browsers come from, what they are asked to be, and how long to wait."""

    url: str
    """The WebDriver endpoint (`http(s)://host:port[/path]`), credentials included."""
    capabilities: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_CAPABILITIES))
    wait_s: float = DEFAULT_WAIT_S
    """How long a call waits for a free slot before it fails as grid-full."""
    max_per_conversation: int = DEFAULT_MAX_PER_CONVERSATION
    """How many grid browsers one conversation may hold at once (one per session name)."""

    @property
    def shown(self) -> str:
        """The URL with its credentials masked, for messages and `doctor`."""
        return redact_endpoint(self.url)

    @property
    def secrets(self) -> list[str]:
        return endpoint_secrets(self.url)


def grid_config(settings: Settings, shared_sessions: Iterable[str] = ()) -> GridConfig | None:
    """The operator's grid, or None; raises `SettingsError` naming the fix for a bad value."""
    section = settings.merged_config.get("browser", {})
    section = section if isinstance(section, Mapping) else {}
    from_env = settings.env.get(GRID_URL_ENV, "").strip()
    raw = from_env or section.get("grid_url")
    if raw is None:
        stray = [key for key in GRID_KEYS[1:] if key in section]
        if stray:
            raise SettingsError(
                f"[browser] {' and '.join(stray)} only apply with [browser] grid_url "
                f"(--grid-url, {GRID_URL_ENV}); set it or drop them."
            )
        return None
    where = GRID_URL_ENV if from_env else "[browser] grid_url (--grid-url)"
    url = check_grid_url(raw, where)
    clash = [key for key in EXCLUDED if section.get(key) not in (None, False)]
    if clash:
        raise SettingsError(
            f"[browser] grid_url and {' and '.join(clash)} exclude each other: with a grid "
            "every browser is a grid session (shape it with [browser] grid_capabilities). "
            "Drop one of them."
        )
    if any(True for _ in shared_sessions):
        raise SettingsError(
            "[browser] grid_url and shared sessions ([isolation] shared_sessions, "
            "--shared-session) exclude each other: a grid browser belongs to one conversation. "
            "Drop one of them."
        )
    return GridConfig(
        url=url,
        capabilities=_capabilities(section.get("grid_capabilities")),
        wait_s=_wait(section.get("grid_wait_s")),
        max_per_conversation=_limit(section.get("grid_max_per_conversation")),
    )


def check_grid_url(value: object, where: str) -> str:
    """`value` as a WebDriver endpoint URL, or `SettingsError` saying what is accepted."""
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(f"{where} must be an http or https URL, not {value!r}.")
    text = value.strip().rstrip("/")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise SettingsError(f"{where} is not a valid URL: {redact_endpoint(text)!r}.") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise SettingsError(
            f"{where} must be the grid's http or https URL with a host (as "
            f"http://grid.example:4444), not {redact_endpoint(text)!r}."
        )
    if parts.query or parts.fragment:
        raise SettingsError(
            f"{where} must not carry a query or fragment (WebDriver paths are appended to it): "
            f"{redact_endpoint(text)!r}."
        )
    return text


def _capabilities(value: object) -> Mapping[str, Any]:
    where = "[browser] grid_capabilities"
    if value is None:
        return dict(DEFAULT_CAPABILITIES)
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise SettingsError(
            f'{where} must be a table of W3C capabilities (as browserName = "chrome" and '
            f'[browser.grid_capabilities."goog:chromeOptions"]), not {value!r}.'
        )
    if any(key.startswith("abt:") for key in value):
        raise SettingsError(
            f"{where} must not set abt:* capabilities: the tools tag their sessions with them."
        )
    return {**DEFAULT_CAPABILITIES, **value}


def _wait(value: object) -> float:
    if value is None:
        return DEFAULT_WAIT_S
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SettingsError(f"[browser] grid_wait_s must be a number of seconds, not {value!r}.")
    if not 0 < value <= MAX_WAIT_S:
        raise SettingsError(
            f"[browser] grid_wait_s must be between 0 and {MAX_WAIT_S:.0f} seconds, not {value!r}."
        )
    return float(value)


def _limit(value: object) -> int:
    if value is None:
        return DEFAULT_MAX_PER_CONVERSATION
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SettingsError(
            f"[browser] grid_max_per_conversation must be a whole number of at least 1, "
            f"not {value!r}."
        )
    return value
