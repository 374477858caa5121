"""Finding the engine binary and reading its version once per process.

Order: explicit `AGENT_BROWSER_TOOLS_BIN` (or `engine.bin` in config) -> the binary shipped by
the `agent-browser-cli` wheel -> `agent-browser` on PATH. The wheel is preferred over PATH so
that the version we pinned is the one that runs unless the user says otherwise.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from agent_browser_tools.engine.environment import offline
from agent_browser_tools.engine.runner import run_engine_quick
from agent_browser_tools.engine.target import (
    ENGINE_WHEEL,
    MIN_ENGINE_VERSION,
    TARGET_ENGINE_VERSION,
    parse_version,
    version_text,
)
from agent_browser_tools.settings import Settings


class EngineNotFound(RuntimeError):
    """No usable engine binary; the message names what was tried and the fix."""


class EngineTooOld(RuntimeError):
    """The engine found is older than `MIN_ENGINE_VERSION`; the message names path and fix."""


@dataclass(frozen=True)
class EngineBinary:
    """A located engine and where it came from (`explicit`, `wheel` or `path`)."""

    path: str
    source: str
    version: tuple[int, int, int] | None = None

    @property
    def version_label(self) -> str:
        return version_text(self.version) if self.version else "unknown"


def wheel_binary() -> str | None:
    """Path of the binary inside the installed `agent-browser-cli` wheel, if present."""
    try:
        import agent_browser  # type: ignore[import-untyped]
    except ImportError:
        return None
    path = str(agent_browser.get_cli_binary_path())
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def locate_engine(settings: Settings) -> EngineBinary:
    """Return the engine to run, without executing it. Raises `EngineNotFound`."""
    if settings.engine_bin:
        explicit = os.path.expanduser(settings.engine_bin)
        resolved = explicit if os.sep in explicit else shutil.which(explicit)
        if not resolved or not os.path.isfile(resolved):
            raise EngineNotFound(
                f"AGENT_BROWSER_TOOLS_BIN (or engine.bin) names {settings.engine_bin!r}, "
                "which does not exist. Fix the path, or unset it to use the bundled engine "
                f"from `pip install {ENGINE_WHEEL}=={TARGET_ENGINE_VERSION}`."
            )
        if not os.access(resolved, os.X_OK):
            raise EngineNotFound(
                f"{resolved} is not executable. Run `chmod +x {resolved}` or point "
                "AGENT_BROWSER_TOOLS_BIN at the agent-browser binary."
            )
        return EngineBinary(path=resolved, source="explicit")
    bundled = wheel_binary()
    if bundled:
        return EngineBinary(path=bundled, source="wheel")
    on_path = shutil.which("agent-browser", path=settings.env.get("PATH"))
    if on_path:
        return EngineBinary(path=on_path, source="path")
    raise EngineNotFound(
        "No agent-browser engine found (tried AGENT_BROWSER_TOOLS_BIN, the "
        f"{ENGINE_WHEEL} wheel, and PATH). Install it with "
        f"`pip install {ENGINE_WHEEL}=={TARGET_ENGINE_VERSION}`."
    )


def read_engine_version(binary: EngineBinary, timeout_s: float = 15.0) -> EngineBinary:
    """Run `<engine> --version` and return `binary` with its parsed version.

    Raises `EngineTooOld` below `MIN_ENGINE_VERSION`, `EngineNotFound` when it will not run.
    """
    proc = run_engine_quick([binary.path, "--version"], timeout_s=timeout_s, env=offline())
    if proc.error is not None:
        raise EngineNotFound(
            f"{binary.path} ({binary.source}) could not run `--version`: {proc.error}. Reinstall "
            f"with `pip install --force-reinstall {ENGINE_WHEEL}=={TARGET_ENGINE_VERSION}`."
        )
    version = parse_version(proc.stdout or proc.stderr)
    if version is None:
        printed = (proc.stdout or proc.stderr)[:200]
        raise EngineNotFound(
            f"{binary.path} ({binary.source}) printed no version ({printed!r}); "
            "is it really agent-browser? Point AGENT_BROWSER_TOOLS_BIN at the right binary."
        )
    minimum = parse_version(MIN_ENGINE_VERSION)
    assert minimum is not None
    if version < minimum:
        raise EngineTooOld(
            f"{binary.path} ({binary.source}) is agent-browser {version_text(version)}, older than "
            f"the supported minimum {MIN_ENGINE_VERSION}. Upgrade it, or unset "
            f"AGENT_BROWSER_TOOLS_BIN to use the bundled {TARGET_ENGINE_VERSION} "
            f"(`pip install {ENGINE_WHEEL}=={TARGET_ENGINE_VERSION}`)."
        )
    return EngineBinary(path=binary.path, source=binary.source, version=version)


_CACHE: dict[tuple[str | None, str | None], EngineBinary] = {}


def resolve_engine(settings: Settings) -> EngineBinary:
    """Locate the engine and read its version, once per process per configuration."""
    key = (settings.engine_bin, settings.env.get("PATH"))
    cached = _CACHE.get(key)
    if cached is None:
        cached = read_engine_version(locate_engine(settings))
        _CACHE[key] = cached
    return cached


def clear_engine_cache() -> None:
    """Forget resolved engines (tests that swap binaries call this)."""
    _CACHE.clear()


def browser_candidates(env: dict[str, str] | None = None) -> list[Path]:
    """Browsers the engine can launch on this machine, most specific first.

    Mirrors where the engine looks: `AGENT_BROWSER_EXECUTABLE_PATH`, then system Chrome and
    Chromium installs. Used by `doctor` only; the engine does its own discovery.
    """
    environ = os.environ if env is None else env
    found: list[Path] = []
    explicit = environ.get("AGENT_BROWSER_EXECUTABLE_PATH")
    if explicit:
        found.append(Path(explicit))
    for name in ("google-chrome", "google-chrome-stable", "chromium", "chromium-browser", "chrome"):
        hit = shutil.which(name, path=environ.get("PATH"))
        if hit:
            found.append(Path(hit))
    return found
