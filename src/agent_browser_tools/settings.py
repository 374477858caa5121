"""Process-wide settings: `AGENT_BROWSER_TOOLS_*` knobs, config files and the state dir.

Settings are read once from an environment mapping (pure: tests pass their own dict) and the
config-file layers. Config layering mirrors the reference system: global
(`~/.config/agent-browser-tools/config.toml`) -> project (`.agent-browser-tools.toml` in the
execution dir, only when trusted) -> override (`AGENT_BROWSER_TOOLS_CONFIG`). Later layers win.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ENV_PREFIX = "AGENT_BROWSER_TOOLS_"

DEFAULT_PROCESS_TIMEOUT_MS = 35_000
"""Watchdog for one engine process: the engine's own action timeout (25 s) plus headroom."""

ENGINE_ACTION_TIMEOUT_CAP_MS = 25_000
"""Upper bound for `AGENT_BROWSER_DEFAULT_TIMEOUT`, so engine actions end before our watchdog."""

DEFAULT_DIALOG_PROCESS_TIMEOUT_MS = 5_000
DEFAULT_DIALOG_TRIGGER_PROCESS_TIMEOUT_MS = 8_000
DEFAULT_IDLE_TIMEOUT_MS = 900_000
"""Idle shutdown of managed browser daemons; the same value is passed on every spawn of a managed
session because the engine treats a changed idle timeout as a different launch. Sessions the
caller names keep the caller's `AGENT_BROWSER_IDLE_TIMEOUT_MS` when it is set, else get this one
too (a leak guard: nothing else stops them)."""

DEFAULT_SESSION_CLOSE_TIMEOUT_MS = 35_000
DEFAULT_INLINE_IMAGE_MAX_BYTES = 5 * 1024 * 1024
DEFAULT_SETTLE_MS = 2_000
"""How long an action that started a navigation waits for the new page to load and go quiet
(`[tools] settle_ms` / `AGENT_BROWSER_TOOLS_SETTLE_MS`; 0 turns it off): see
`tools/agent_browser/page/nav_settle.py`."""
STDOUT_MEMORY_LIMIT_BYTES = 512 * 1024
"""Engine stdout beyond this goes to a private temp file instead of memory."""
IMAGE_RESPONSES_ENV = ENV_PREFIX + "IMAGE_RESPONSES"
IMAGE_RESPONSES_KEY = "[tools] image_responses"
IMAGE_RESPONSE_MODES = ("include", "omit")
"""Whether results carry screenshots as inline image content: `include` (the contract's
default) or `omit` (the text still names the saved file and its verification), like
playwright-mcp's `--image-responses`. An operator setting (`serve --image-responses`, the
config key, the env variable) and never a tool input: the images are what the operator's
client and model pay for."""


class SettingsError(ValueError):
    """A knob or config file holds a value we cannot use; the message says how to fix it."""


@dataclass(frozen=True)
class ConfigLayer:
    """One config file that was found and loaded."""

    scope: str  # "global" | "project" | "override"
    path: Path
    data: Mapping[str, Any]


@dataclass(frozen=True)
class Settings:
    """Everything configurable, resolved once per process."""

    env: Mapping[str, str]
    state_dir: Path
    engine_bin: str | None = None
    process_timeout_ms: int = DEFAULT_PROCESS_TIMEOUT_MS
    dialog_process_timeout_ms: int = DEFAULT_DIALOG_PROCESS_TIMEOUT_MS
    dialog_trigger_process_timeout_ms: int = DEFAULT_DIALOG_TRIGGER_PROCESS_TIMEOUT_MS
    idle_timeout_ms: int = DEFAULT_IDLE_TIMEOUT_MS
    session_close_timeout_ms: int = DEFAULT_SESSION_CLOSE_TIMEOUT_MS
    inline_image_max_bytes: int = DEFAULT_INLINE_IMAGE_MAX_BYTES
    settle_ms: int = DEFAULT_SETTLE_MS
    socket_dir: Path | None = None
    execution_dir: Path | None = None
    """Where relative paths (`outputPath`, artifact paths) resolve; None: the process cwd."""
    layers: tuple[ConfigLayer, ...] = field(default_factory=tuple)

    @property
    def merged_config(self) -> dict[str, Any]:
        """All loaded layers merged, later layers winning."""
        merged: dict[str, Any] = {}
        for layer in self.layers:
            _deep_merge(merged, layer.data)
        return merged

    def with_layer(self, scope: str, data: Mapping[str, Any]) -> Settings:
        """These settings with one more config layer on top (`serve` flags beat config files).

        Only sections read lazily through `merged_config` (`[browser]`, `[policy]`, `[files]`,
        ...) see the new layer; fields resolved at load time keep their values.
        """
        layer = ConfigLayer(scope=scope, path=Path(f"<{scope}>"), data=data)
        return replace(self, layers=(*self.layers, layer))

    @classmethod
    def load(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        cwd: Path | None = None,
        trust_project: bool | None = None,
    ) -> Settings:
        """Resolve settings from `env` (default: `os.environ`) and the config layers.

        The project layer is read only when trusted: `trust_project` (a host decision, e.g.
        `serve --no-project-config`), else `AGENT_BROWSER_TOOLS_PROJECT_CONFIG` ("0" skips it),
        and never when the file is not owned by the current user or is writable by others,
        because a checked-out repository must not be able to reconfigure the tools silently.
        """
        environ = dict(os.environ if env is None else env)
        if trust_project is None:
            trust_project = environ.get(ENV_PREFIX + "PROJECT_CONFIG", "1") != "0"
        layers = _load_layers(environ, cwd or Path.cwd(), trust_project)
        merged: dict[str, Any] = {}
        for layer in layers:
            _deep_merge(merged, layer.data)
        engine_cfg = merged.get("engine", {}) if isinstance(merged.get("engine"), dict) else {}
        bin_value = environ.get(ENV_PREFIX + "BIN") or engine_cfg.get("bin")
        socket_value = environ.get(ENV_PREFIX + "SOCKET_DIR") or engine_cfg.get("socket_dir")
        tools_cfg = merged.get("tools", {}) if isinstance(merged.get("tools"), dict) else {}
        cwd_value = environ.get(ENV_PREFIX + "CWD") or tools_cfg.get("cwd")
        settle_value = environ.get(ENV_PREFIX + "SETTLE_MS") or tools_cfg.get("settle_ms")
        settle_env = {} if settle_value is None else {ENV_PREFIX + "SETTLE_MS": str(settle_value)}
        return cls(
            env=environ,
            state_dir=_state_dir(environ),
            engine_bin=str(bin_value) if bin_value else None,
            process_timeout_ms=_int_knob(environ, "PROCESS_TIMEOUT_MS", DEFAULT_PROCESS_TIMEOUT_MS),
            dialog_process_timeout_ms=_int_knob(
                environ, "DIALOG_PROCESS_TIMEOUT_MS", DEFAULT_DIALOG_PROCESS_TIMEOUT_MS
            ),
            dialog_trigger_process_timeout_ms=_int_knob(
                environ,
                "DIALOG_TRIGGER_PROCESS_TIMEOUT_MS",
                DEFAULT_DIALOG_TRIGGER_PROCESS_TIMEOUT_MS,
            ),
            idle_timeout_ms=_int_knob(
                environ, "IDLE_TIMEOUT_MS", DEFAULT_IDLE_TIMEOUT_MS, zero=True
            ),
            session_close_timeout_ms=_int_knob(
                environ, "IMPLICIT_SESSION_CLOSE_TIMEOUT_MS", DEFAULT_SESSION_CLOSE_TIMEOUT_MS
            ),
            inline_image_max_bytes=_int_knob(
                environ, "INLINE_IMAGE_MAX_BYTES", DEFAULT_INLINE_IMAGE_MAX_BYTES
            ),
            settle_ms=_int_knob(settle_env, "SETTLE_MS", DEFAULT_SETTLE_MS, zero=True),
            socket_dir=Path(str(socket_value)).expanduser() if socket_value else None,
            execution_dir=Path(str(cwd_value)).expanduser() if cwd_value else None,
            layers=tuple(layers),
        )


def image_responses(settings: Settings) -> str:
    """`include` or `omit`. The env variable wins over `[tools] image_responses` (where the
    `serve` flag lands as a config layer), as for the other operator settings."""
    raw: Any = settings.env.get(IMAGE_RESPONSES_ENV)
    source = IMAGE_RESPONSES_ENV
    if raw is None or not raw.strip():
        section = settings.merged_config.get("tools", {})
        if not isinstance(section, Mapping):
            raise SettingsError("config [tools] must be a table; fix or remove it.")
        raw, source = section.get("image_responses"), f"config {IMAGE_RESPONSES_KEY}"
    if raw is None:
        return IMAGE_RESPONSE_MODES[0]
    if not isinstance(raw, str) or raw.strip().lower() not in IMAGE_RESPONSE_MODES:
        raise SettingsError(
            f"{source} = {raw!r} must be include (screenshots inline, the default) or omit "
            "(results name the saved file, no image); fix or unset it."
        )
    return raw.strip().lower()


def inline_image_limit(settings: Settings) -> int:
    """The largest screenshot a result carries inline; -1 (none at all) when images are
    omitted."""
    if image_responses(settings) == "omit":
        return -1
    return settings.inline_image_max_bytes


def _int_knob(env: Mapping[str, str], name: str, default: int, *, zero: bool = False) -> int:
    raw = env.get(ENV_PREFIX + name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise SettingsError(
            f"{ENV_PREFIX}{name}={raw!r} is not an integer number of milliseconds/bytes; "
            f"unset it or use e.g. {default}."
        ) from None
    if value < 0 or (value == 0 and not zero):
        raise SettingsError(
            f"{ENV_PREFIX}{name}={raw!r} must be a positive integer; "
            f"unset it or use e.g. {default}."
        )
    return value


def _state_dir(env: Mapping[str, str]) -> Path:
    explicit = env.get(ENV_PREFIX + "STATE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = env.get("XDG_STATE_HOME") or str(
        Path(env.get("HOME", "~")).expanduser() / ".local/state"
    )
    return Path(base).expanduser() / "agent-browser-tools"


def config_paths(env: Mapping[str, str], cwd: Path) -> list[tuple[str, Path]]:
    """Candidate config files in layering order (lowest priority first)."""
    home = Path(env.get("HOME", "~")).expanduser()
    config_home = Path(env.get("XDG_CONFIG_HOME") or home / ".config").expanduser()
    paths = [
        ("global", config_home / "agent-browser-tools" / "config.toml"),
        ("project", cwd / ".agent-browser-tools.toml"),
    ]
    override = env.get(ENV_PREFIX + "CONFIG")
    if override:
        paths.append(("override", Path(override).expanduser()))
    return paths


def _load_layers(env: Mapping[str, str], cwd: Path, trust_project: bool) -> list[ConfigLayer]:
    layers: list[ConfigLayer] = []
    for scope, path in config_paths(env, cwd):
        if scope == "project" and not (trust_project and _owned_and_private(path)):
            continue
        if not path.is_file():
            if scope == "override":
                raise SettingsError(
                    f"{ENV_PREFIX}CONFIG names {path}, which does not exist; "
                    "create it or unset the variable."
                )
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise SettingsError(
                f"cannot read config file {path}: {exc}; fix or remove it."
            ) from exc
        layers.append(ConfigLayer(scope=scope, path=path, data=data))
    return layers


def _owned_and_private(path: Path) -> bool:
    """True when `path` is missing or owned by us and not writable by group/others."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return True
    return info.st_uid == os.getuid() and not info.st_mode & 0o022


def _deep_merge(target: dict[str, Any], source: Mapping[str, Any]) -> None:
    for key, value in source.items():
        existing = target.get(key)
        if isinstance(existing, dict) and isinstance(value, Mapping):
            _deep_merge(existing, value)
        elif isinstance(value, Mapping):
            target[key] = {}
            _deep_merge(target[key], value)
        else:
            target[key] = value
