"""How the operator decides how browsers launch: one table, three spellings.

Each `LaunchOption` is a `serve` flag, a `[browser]` config key and the engine environment
variable it becomes. The engine reads these variables whenever it starts a browser, so every
spawn (the model's call, probes, follow-ups, closes) carries the same launch settings and a
running browser is never relaunched because one spawn forgot a flag. The model cannot set any
of them: the matching global flags are operator-only in the taxonomy (`ModelAccess`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agent_browser_tools.grid_settings import GRID_KEYS, grid_config
from agent_browser_tools.remote_endpoint import check_cdp_url
from agent_browser_tools.settings import Settings, SettingsError

Kind = Literal["bool", "text", "list", "endpoint"]

VIEWPORT = re.compile(r"^(\d{2,5})[x,](\d{2,5})$")

ISOLATION_CLEARED = (
    "AGENT_BROWSER_PROFILE",
    "AGENT_BROWSER_STATE",
    "AGENT_BROWSER_RESTORE",
    "AGENT_BROWSER_SESSION_NAME",
    "AGENT_BROWSER_AUTO_CONNECT",
    "AGENT_BROWSER_CDP",
)
"""Inherited variables that would reuse saved browser state; `isolated` drops them."""


@dataclass(frozen=True)
class LaunchOption:
    """One operator launch setting."""

    key: str
    """`[browser]` config key; the serve flag is `--` + the key with dashes."""
    env: str
    """Engine environment variable it sets."""
    kind: Kind
    help: str
    list_separator: str = ","

    @property
    def flag(self) -> str:
        return "--" + self.key.replace("_", "-")


LAUNCH_OPTIONS: tuple[LaunchOption, ...] = (
    LaunchOption("headed", "AGENT_BROWSER_HEADED", "bool", "show the browser window"),
    LaunchOption(
        "executable_path", "AGENT_BROWSER_EXECUTABLE_PATH", "text", "browser executable to run"
    ),
    LaunchOption("profile", "AGENT_BROWSER_PROFILE", "text", "Chrome profile name or directory"),
    LaunchOption("user_agent", "AGENT_BROWSER_USER_AGENT", "text", "default User-Agent"),
    LaunchOption("proxy", "AGENT_BROWSER_PROXY", "text", "proxy server URL"),
    LaunchOption("proxy_bypass", "AGENT_BROWSER_PROXY_BYPASS", "text", "hosts that skip the proxy"),
    LaunchOption(
        "allowed_domains",
        "AGENT_BROWSER_ALLOWED_DOMAINS",
        "list",
        "only these domains are reachable (comma-separated or repeated)",
    ),
    LaunchOption(
        "ignore_https_errors",
        "AGENT_BROWSER_IGNORE_HTTPS_ERRORS",
        "bool",
        "accept invalid HTTPS certificates",
    ),
    LaunchOption(
        "init_script", "AGENT_BROWSER_INIT_SCRIPTS", "list", "page init script file (repeatable)"
    ),
    LaunchOption(
        "browser_arg",
        "AGENT_BROWSER_ARGS",
        "list",
        "extra Chromium switch (repeatable)",
        list_separator="\n",
    ),
    LaunchOption("extension", "AGENT_BROWSER_EXTENSIONS", "list", "browser extension (repeatable)"),
    LaunchOption(
        "cdp_url",
        "AGENT_BROWSER_CDP",
        "endpoint",
        "use the remote browser at this CDP port or http/https/ws/wss URL instead of launching "
        "one; each conversation works in its own tabs there",
    ),
    LaunchOption(
        "provider",
        "AGENT_BROWSER_PROVIDER",
        "text",
        "engine browser provider (browserbase, browserless, kernel, ...; its credentials come "
        "from the provider's environment variables)",
    ),
)
"""The operator's launch settings; `viewport` and `isolated` are derived below."""

VIEWPORT_HELP = "browser window size WIDTHxHEIGHT (Chromium --window-size)"
GRID_HELP = (
    "Selenium Grid 4 URL: every conversation's browsers are grid sessions (or env "
    "AGENT_BROWSER_TOOLS_GRID_URL; [browser] grid_capabilities, grid_wait_s in config)"
)
ISOLATED_HELP = "fresh temporary profile every launch; refuses profile/state reuse"


def browser_section(settings: Settings) -> Mapping[str, Any]:
    section = settings.merged_config.get("browser", {})
    if not isinstance(section, Mapping):
        raise SettingsError("config [browser] must be a table; fix or remove it.")
    known = {option.key for option in LAUNCH_OPTIONS} | {"viewport", "isolated", *GRID_KEYS}
    unknown = sorted(set(section) - known)
    if unknown:
        raise SettingsError(
            f"config [browser] has unknown key(s) {', '.join(unknown)}; known keys: "
            f"{', '.join(sorted(known))}."
        )
    return section


def operator_launch_env(settings: Settings) -> dict[str, str]:
    """Engine variables for the operator's `[browser]` settings (empty when none are set).

    Raises `SettingsError` for values that cannot be used, naming the key and the fix.
    """
    section = browser_section(settings)
    env: dict[str, str] = {}
    for option in LAUNCH_OPTIONS:
        if option.key in section:
            value = _render(option, section[option.key])
            if value is not None:
                env[option.env] = value
    viewport = section.get("viewport")
    if viewport is not None:
        size = _viewport(viewport)
        args = [a for a in env.get("AGENT_BROWSER_ARGS", "").split("\n") if a]
        env["AGENT_BROWSER_ARGS"] = "\n".join([*args, f"--window-size={size[0]},{size[1]}"])
    if section.get("isolated") is True and "profile" in section:
        raise SettingsError(
            "[browser] isolated and profile exclude each other: an isolated browser starts "
            "from a fresh temporary profile. Drop one of them."
        )
    if grid_config(settings) is not None:
        # Every browser is a grid session the engine attaches to (`grid_browsers`); a spawn
        # that would launch one here fails instead of starting a local Chromium.
        env[EXECUTABLE_ENV] = NO_LOCAL_BROWSER
        return env
    _inherited_endpoint(settings, section, env)
    _check_remote(section, env)
    return env


def _inherited_endpoint(
    settings: Settings, section: Mapping[str, Any], env: dict[str, str]
) -> None:
    """The operator's own `AGENT_BROWSER_CDP` in the server's environment means the same as
    `cdp_url` (checked, and each session pinned to its own tab), unless `cdp_url` or
    `isolated` says otherwise (`isolated` drops it)."""
    inherited = settings.env.get(CDP_ENV, "").strip()
    if not inherited or "cdp_url" in section or section.get("isolated") is True:
        return
    if "provider" in section:
        raise SettingsError(
            f"[browser] provider and {CDP_ENV} (in the server's environment) exclude each "
            "other: unset one of them."
        )
    env[CDP_ENV] = check_cdp_url(inherited, f"{CDP_ENV} in the server's environment")
    env[PIN_TAB_ENV] = "true"


REMOTE_KEYS = ("cdp_url", "provider")
EXECUTABLE_ENV = "AGENT_BROWSER_EXECUTABLE_PATH"
NO_LOCAL_BROWSER = "/nonexistent/grid-mode-launches-no-local-browser"
LOCAL_ONLY = ("isolated", "profile", "executable_path", "extension")
PIN_TAB_ENV = "AGENT_BROWSER_PIN_TAB"
CDP_ENV = "AGENT_BROWSER_CDP"


def _check_remote(section: Mapping[str, Any], env: dict[str, str]) -> None:
    """A remote browser is not launched here, so the local-launch settings cannot apply; and a
    session on a shared remote browser is pinned to its own tab, so it fails (`tab_gone`)
    rather than falling back onto another conversation's tab when its tab is closed."""
    remote = [key for key in REMOTE_KEYS if key in section]
    if not remote:
        return
    local = [key for key in LOCAL_ONLY if section.get(key) not in (None, False)]
    if len(remote) > 1 or local:
        raise SettingsError(
            f"[browser] {' and '.join(remote + local)} exclude each other: a remote browser "
            "(cdp_url or provider) is not launched here. Drop one of them."
        )
    if "cdp_url" in section:
        env[PIN_TAB_ENV] = "true"


def remote_cdp(settings: Settings) -> str | None:
    """The remote CDP browser the operator pointed every conversation at, if any (a bad
    `[browser]` section says none here: the first spawn reports it)."""
    try:
        return operator_launch_env(settings).get(CDP_ENV)
    except SettingsError:
        return None


def cleared_by_isolation(settings: Settings) -> tuple[str, ...]:
    """Inherited engine variables to drop because the operator asked for isolated browsers
    (grid browsers are fresh ones too: an inherited endpoint or profile must not apply)."""
    isolated = browser_section(settings).get("isolated") is True
    return ISOLATION_CLEARED if isolated or grid_config(settings) is not None else ()


def _render(option: LaunchOption, value: Any) -> str | None:
    where = f"[browser] {option.key} ({option.flag})"
    if option.kind == "bool":
        if not isinstance(value, bool):
            raise SettingsError(f"{where} must be true or false, not {value!r}.")
        return "true" if value else None
    if option.kind == "endpoint":
        return check_cdp_url(value)
    if option.kind == "text":
        if not isinstance(value, str) or not value.strip():
            raise SettingsError(f"{where} must be a non-empty string, not {value!r}.")
        return value
    items = _items(value, where)
    return option.list_separator.join(items) if items else None


def _items(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, Sequence) and all(isinstance(item, str) for item in value):
        return [item for item in value if item]
    raise SettingsError(f"{where} must be a string or a list of strings, not {value!r}.")


def _viewport(value: Any) -> tuple[int, int]:
    match = VIEWPORT.match(str(value).strip().lower())
    if match is None:
        raise SettingsError(
            f"[browser] viewport (--viewport) must look like 1280x720, not {value!r}."
        )
    return int(match.group(1)), int(match.group(2))
