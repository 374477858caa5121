r"""`[web_search]` config and credential sources (Exa, Brave).

Config comes from the layers `Settings` already loaded (global -> project -> override; the
project layer is present only when trusted, so a `!command` found there is trusted by
construction). Registration only needs to know that a usable source *exists*; values are
resolved when the tool runs, so a `!command` (for example a password-manager read) never runs
just because the server started, and nothing here ever prints or logs a key value.

Credential source syntax. Examples are TOML literal strings ('...'), so what is shown is the
value exactly; each value is one whole source, with no partial interpolation:

- `'plain-value'`: the key itself.
- `'$NAME'` or `'${NAME}'`: the environment variable NAME (unset or empty = no source).
- `'!cmd arg ...'`: run `cmd` (argv via shlex, never a shell) at tool time; stdout, stripped,
  is the key. Bounded by `COMMAND_TIMEOUT_S`.
- Escapes, for keys that really start with `$`, `!` or a backslash: one leading backslash makes
  the rest literal (`'\$abc'` is the key `$abc`, `'\!abc'` is `!abc`, `'\\abc'` is `\abc`), and
  a leading `$$` stands for one literal `$` (`'$$abc'` is `$abc`).
- Any other value starting with `$` is rejected as a config error, because it is almost
  certainly a mistyped variable reference that would otherwise be sent as the key.

When no config source is usable, `EXA_API_KEY` / `BRAVE_API_KEY` are the fallbacks.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.web_search.names import SEARCH_TYPES

SECTION = "web_search"
PROVIDERS: tuple[str, ...] = ("exa", "brave")
PROVIDER_NAMES = {"exa": "Exa", "brave": "Brave"}
ENV_FALLBACKS = {"exa": "EXA_API_KEY", "brave": "BRAVE_API_KEY"}
DEFAULT_BASE_URLS = {"exa": "https://api.exa.ai", "brave": "https://api.search.brave.com/res/v1"}
COMMAND_TIMEOUT_S = 20.0
"""A password-manager read may wait for an unlock; longer than that is a hung command."""

KNOWN_KEYS = frozenset(
    {
        "enabled",
        "preferred_provider",
        "default_search_type",
        "exa_api_key",
        "brave_api_key",
        "exa_base_url",
        "brave_base_url",
    }
)
_VAR = re.compile(r"^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$")

SourceKind = Literal["plain", "env", "command"]


class WebSearchConfigError(ValueError):
    """`[web_search]` holds a value we cannot use; the message names the field, never a key."""


class CredentialError(RuntimeError):
    """A credential source could not produce a key at tool time."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


@dataclass(frozen=True)
class CredentialSource:
    """Where one provider's key comes from. Values are kept out of `repr`."""

    provider: str
    kind: SourceKind
    origin: str  # config scope ("global" | "project" | "override") or "environment"
    setting: str  # "web_search.exa_api_key" or "EXA_API_KEY"
    literal: str = field(default="", repr=False)
    var: str = ""
    argv: tuple[str, ...] = field(default=(), repr=False)

    def usable(self, env: Mapping[str, str]) -> bool:
        """True when the source can plausibly yield a key without running anything."""
        if self.kind == "plain":
            return bool(self.literal)
        if self.kind == "env":
            return bool(env.get(self.var, "").strip())
        return bool(self.argv)

    def describe(self) -> str:
        """A status line without the value (safe for doctor/status output)."""
        where = "environment" if self.origin == "environment" else f"{self.origin} config"
        kinds = {"plain": "plaintext", "env": f"${self.var}", "command": "command"}
        return f"{kinds[self.kind]} from {where} ({self.setting})"


@dataclass(frozen=True)
class WebSearchConfig:
    """The merged `[web_search]` section, validated."""

    enabled: bool = True
    enabled_origin: str | None = None
    preferred_provider: str | None = None
    default_search_type: str | None = None
    configured: Mapping[str, CredentialSource] = field(default_factory=dict)
    base_urls: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_BASE_URLS))

    def source_for(self, provider: str, env: Mapping[str, str]) -> CredentialSource | None:
        """The configured source if usable, else the environment fallback if set."""
        source = self.configured.get(provider)
        if source is not None and source.usable(env):
            return source
        var = ENV_FALLBACKS[provider]
        if env.get(var, "").strip():
            return CredentialSource(provider, "env", "environment", var, var=var)
        return None

    def available_providers(self, env: Mapping[str, str]) -> list[str]:
        return [p for p in PROVIDERS if self.source_for(p, env) is not None]


def parse_source(raw: str, *, provider: str, origin: str, setting: str) -> CredentialSource:
    """Classify one configured credential string (see the module docstring for the syntax)."""
    value = raw.strip()
    if value.startswith("\\"):
        return CredentialSource(provider, "plain", origin, setting, literal=value[1:])
    if value.startswith("$$"):
        return CredentialSource(provider, "plain", origin, setting, literal=value[1:])
    if value.startswith("!"):
        try:
            argv = tuple(shlex.split(value[1:]))
        except ValueError:
            raise WebSearchConfigError(
                f"{setting} in the {origin} config is a command source with unbalanced quotes; "
                "fix the quoting."
            ) from None
        if not argv:
            raise WebSearchConfigError(f"{setting} in the {origin} config is an empty command.")
        return CredentialSource(provider, "command", origin, setting, argv=argv)
    if value.startswith("$"):
        match = _VAR.match(value)
        if match is None:
            raise WebSearchConfigError(
                f"{setting} in the {origin} config starts with `$` but is not `$NAME` or "
                "`${NAME}`; write a literal leading `$` as `$$` or `\\$`."
            )
        return CredentialSource(
            provider, "env", origin, setting, var=match.group(1) or match.group(2)
        )
    return CredentialSource(provider, "plain", origin, setting, literal=value)


def load_config(settings: Settings) -> WebSearchConfig:
    """Validate the merged `[web_search]` section and find each provider's winning source."""
    section = settings.merged_config.get(SECTION, {})
    if not isinstance(section, Mapping):
        raise WebSearchConfigError(f"`{SECTION}` must be a table.")
    unknown = sorted(set(section) - KNOWN_KEYS)
    if unknown:
        known = ", ".join(sorted(KNOWN_KEYS))
        raise WebSearchConfigError(
            f"unknown {SECTION} keys {', '.join(unknown)}; known keys: {known}."
        )
    enabled = section.get("enabled", True)
    if not isinstance(enabled, bool):
        raise WebSearchConfigError(f"{SECTION}.enabled must be true or false.")
    return WebSearchConfig(
        enabled=enabled,
        enabled_origin=_winning_scope(settings, "enabled"),
        preferred_provider=_choice(section, "preferred_provider", PROVIDERS),
        default_search_type=_choice(section, "default_search_type", SEARCH_TYPES),
        configured=_configured_sources(settings),
        base_urls={p: _base_url(section, p) for p in PROVIDERS},
    )


def _choice(section: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> str | None:
    value = section.get(key)
    if value is None:
        return None
    if value not in allowed:
        raise WebSearchConfigError(f"{SECTION}.{key} must be one of {', '.join(allowed)}.")
    return str(value)


def _base_url(section: Mapping[str, Any], provider: str) -> str:
    key = f"{provider}_base_url"
    value = section.get(key, DEFAULT_BASE_URLS[provider])
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        raise WebSearchConfigError(f"{SECTION}.{key} must be an http(s) URL.")
    return value.rstrip("/")


def _winning_scope(settings: Settings, key: str) -> str | None:
    """The highest-priority loaded layer that sets `[web_search].key` (merge order)."""
    for layer in reversed(settings.layers):
        section = layer.data.get(SECTION)
        if isinstance(section, Mapping) and key in section:
            return layer.scope
    return None


def _configured_sources(settings: Settings) -> dict[str, CredentialSource]:
    """Per provider, the source from the highest layer that sets its key (as the merge does)."""
    sources: dict[str, CredentialSource] = {}
    for provider in PROVIDERS:
        key = f"{provider}_api_key"
        for layer in reversed(settings.layers):
            section = layer.data.get(SECTION)
            if not isinstance(section, Mapping) or key not in section:
                continue
            raw = section[key]
            if not isinstance(raw, str):
                raise WebSearchConfigError(
                    f"{SECTION}.{key} in the {layer.scope} config must be a string."
                )
            sources[provider] = parse_source(
                raw, provider=provider, origin=layer.scope, setting=f"{SECTION}.{key}"
            )
            break
    return sources


def describe_sources(settings: Settings) -> dict[str, Any]:
    """Status for doctor-style output: which sources exist, never their values."""
    try:
        config = load_config(settings)
    except WebSearchConfigError as exc:
        return {"available": False, "configError": str(exc)}
    providers = {}
    for provider in PROVIDERS:
        source = config.source_for(provider, settings.env)
        providers[provider] = source.describe() if source is not None else None
    available = config.enabled and any(providers.values())
    return {"available": available, "enabled": config.enabled, "providers": providers}


async def resolve_credential(
    source: CredentialSource,
    env: Mapping[str, str],
    *,
    cwd: Path | None = None,
    timeout_s: float = COMMAND_TIMEOUT_S,
) -> str:
    """The key value, computed now (commands run here and only here)."""
    if source.kind == "plain":
        value = source.literal
    elif source.kind == "env":
        value = env.get(source.var, "").strip()
    else:
        value = await _run_command(source, env, cwd, timeout_s)
    if not value:
        raise CredentialError(f"the {source.describe()} resolved to an empty value.")
    return value


async def _run_command(
    source: CredentialSource, env: Mapping[str, str], cwd: Path | None, timeout_s: float
) -> str:
    program = os.path.basename(source.argv[0])
    try:
        proc = await asyncio.create_subprocess_exec(
            *source.argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
        )
    except OSError as exc:
        raise CredentialError(
            f"the {source.describe()} could not start `{program}`: {exc.strerror or 'error'}."
        ) from None
    try:
        stdout, _ = await asyncio.wait_for(proc.communicate(), timeout_s)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise CredentialError(
            f"the {source.describe()} (`{program}`) did not finish within {timeout_s:g} s.",
            timed_out=True,
        ) from None
    if proc.returncode != 0:
        raise CredentialError(
            f"the {source.describe()} (`{program}`) exited with status {proc.returncode}."
        )
    return stdout.decode("utf-8", errors="replace").strip()
