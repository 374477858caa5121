"""`list`: bounded discovery of Electron apps installed on this host (filesystem reads).

Linux: app folders up to two levels under the usual install roots (`/usr/lib`, `/usr/lib64`,
`/usr/local/lib`, `/opt`, `/usr/share`, `~/.local/share`, `/snap`) whose `resources/` holds a
packaged app, plus `.desktop` launchers whose `Exec` program passes the evidence check. macOS:
`.app` bundles in `/Applications` and `~/Applications` (that code path cannot be exercised on
this Linux CI). Windows: discovery is unsupported; give a verifiable `executablePath`.

Bounded because a host can hold very many folders: at most `MAX_DIRS` folders and
`MAX_DESKTOP_FILES` launchers are looked at per call, and at most `maxResults` apps returned.
Sensitivity annotations (password managers, chat, mail, wallets) are advisory hints, not
enforcement.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_browser_tools.tools.electron.evidence import (
    App,
    NotElectron,
    app_for_executable,
    app_for_folder,
    bundle_evidence,
    layout_evidence,
)

MAX_DIRS = 20_000
MAX_DESKTOP_FILES = 2_000
SENSITIVE_WORDS = (
    "1password",
    "bitwarden",
    "keepass",
    "lastpass",
    "dashlane",
    "wallet",
    "ledger",
    "exodus",
    "slack",
    "signal",
    "whatsapp",
    "telegram",
    "discord",
    "teams",
    "element",
    "mail",
    "outlook",
    "thunderbird",
    "bank",
    "authenticator",
    "vault",
)


@dataclass(frozen=True)
class Roots:
    """Where discovery looks (tests pass their own)."""

    folders: tuple[Path, ...]
    desktop_dirs: tuple[Path, ...]
    bundles: tuple[Path, ...] = ()


@dataclass
class Found:
    apps: list[App] = field(default_factory=list)
    truncated: bool = False
    scanned_dirs: int = 0


def host_roots(home: Path, platform: str = sys.platform) -> Roots:
    if platform == "darwin":
        return Roots((), (), (Path("/Applications"), home / "Applications"))
    folders = ("/usr/lib", "/usr/lib64", "/usr/local/lib", "/opt", "/usr/share", "/snap")
    desktop = (
        "/usr/share/applications",
        "/usr/local/share/applications",
        "/var/lib/snapd/desktop/applications",
        "/var/lib/flatpak/exports/share/applications",
    )
    return Roots(
        (*(Path(p) for p in folders), home / ".local" / "share"),
        (*(Path(p) for p in desktop), home / ".local" / "share" / "applications"),
    )


def launch_roots(roots: Roots) -> tuple[Path, ...]:
    """The install roots an app may be launched from (besides the file roots)."""
    return (*roots.folders, *roots.bundles)


def supported(platform: str = sys.platform) -> bool:
    return platform != "win32"


def sensitivity(app: App) -> str | None:
    text = f"{app.name} {app.app_id or ''} {app.root}".casefold()
    hits = [word for word in SENSITIVE_WORDS if word in text]
    return f"likely sensitive ({hits[0]})" if hits else None


def discover(roots: Roots, query: str | None, limit: int) -> Found:
    """Electron apps under `roots` matching `query` (case-insensitive substring), at most
    `limit` of them, each executable listed once."""
    found = Found()
    seen: set[str] = set()
    needle = (query or "").casefold()
    for app in _candidates(roots, found):
        key = str(app.executable)
        if key in seen:
            continue
        if needle and not any(needle in s.casefold() for s in app.subjects()):
            continue
        seen.add(key)
        if len(found.apps) >= limit:
            found.truncated = True
            break
        found.apps.append(app)
    return found


def _candidates(roots: Roots, found: Found) -> Iterator[App]:
    yield from _desktop_apps(roots.desktop_dirs)
    for bundle_root in roots.bundles:
        for entry in _dirs(bundle_root, found):
            if entry.suffix == ".app" and bundle_evidence(entry):
                yield from _try_folder(entry)
    for root in roots.folders:
        for first in _dirs(root, found):
            if layout_evidence(first):
                yield from _try_folder(first)
                continue
            for second in _dirs(first, found):
                if layout_evidence(second):
                    yield from _try_folder(second)


def _try_folder(folder: Path) -> Iterator[App]:
    try:
        yield app_for_folder(folder)
    except NotElectron:
        return


def _dirs(root: Path, found: Found) -> list[Path]:
    out = []
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                if found.scanned_dirs >= MAX_DIRS:
                    found.truncated = True
                    break
                if entry.is_dir(follow_symlinks=False):
                    found.scanned_dirs += 1
                    out.append(Path(entry.path))
    except OSError:
        return []
    return sorted(out)


def _desktop_apps(dirs: Sequence[Path]) -> Iterator[App]:
    count = 0
    for directory in dirs:
        try:
            files = sorted(p for p in directory.glob("*.desktop") if p.is_file())
        except OSError:
            continue
        for path in files:
            count += 1
            if count > MAX_DESKTOP_FILES:
                return
            app = _desktop_app(path)
            if app is not None:
                yield app


def desktop_entry(text: str) -> dict[str, str]:
    """The `[Desktop Entry]` keys of a desktop file (pure)."""
    entry: dict[str, str] = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
            continue
        if section == "[Desktop Entry]" and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            entry.setdefault(key.strip(), value.strip())
    return entry


def desktop_program(entry: dict[str, str]) -> str | None:
    """The program an entry's `TryExec`/`Exec` runs (field codes dropped), if any."""
    raw = entry.get("TryExec") or entry.get("Exec")
    if not raw:
        return None
    try:
        words = [w for w in shlex.split(raw) if not w.startswith("%")]
    except ValueError:
        return None
    if words[:1] == ["env"]:
        words = [w for w in words[1:] if "=" not in w]
    return words[0] if words else None


def _desktop_app(path: Path) -> App | None:
    try:
        entry = desktop_entry(path.read_text(encoding="utf-8", errors="replace")[:65_536])
    except OSError:
        return None
    program = desktop_program(entry)
    if program is None:
        return None
    resolved = program if os.path.isabs(program) else shutil.which(program)
    if resolved is None:
        return None
    try:
        app = app_for_executable(Path(resolved), entry.get("Name") or None)
    except NotElectron:
        return None
    return App(
        app.name,
        app.executable,
        app.root,
        (*app.evidence, f"desktop file {path.name}"),
        app_id=path.name.removesuffix(".desktop"),
    )
