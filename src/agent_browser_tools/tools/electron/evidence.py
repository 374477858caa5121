"""Is this executable an Electron app? Evidence from the files around it (filesystem reads).

Why evidence and not trust: a launch runs a host program, so the model must not be able to
name `/bin/sh`, a plain Chromium (which would ignore the app and show any page with the
operator's browser powers) or a script it got onto disk. An executable counts as Electron when

- its folder (or, for a `bin/` launcher script, the folder above) holds the packaged app:
  `resources/app.asar`, `resources/app/package.json` with a `main` entry, or Electron's own
  `resources/default_app.asar`;
- on macOS, its bundle carries `Contents/Frameworks/Electron Framework.framework`;
- or the binary itself carries Electron's runtime marker (`ELECTRON_RUN_AS_NODE`), read in
  bounded chunks, only for native executables (ELF / Mach-O).

Debian's Chromium has none of these (checked: no `resources/app*`, no marker), nor has
`/bin/sh`. The file must also be a regular file the user may execute: a download or a saved
artifact is never executable, so a page cannot plant an "app".
"""

from __future__ import annotations

import json
import os
import plistlib
import stat
from dataclasses import dataclass
from pathlib import Path

MARKER = b"ELECTRON_RUN_AS_NODE"
NATIVE_MAGIC = (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe")
SCAN_LIMIT_BYTES = 256 * 1024 * 1024
CHUNK_BYTES = 8 * 1024 * 1024
HELPER_NAMES = frozenset({"chrome-sandbox", "chrome_crashpad_handler", "crashpad_handler"})
HELPER_SUFFIXES = (".so", ".dylib", ".pak", ".bin", ".dat", ".json", ".txt", ".html")


class NotElectron(Exception):
    """No Electron evidence (or no executable): the message says what was looked for."""


@dataclass(frozen=True)
class App:
    """An Electron app the wrapper may launch."""

    name: str
    executable: Path
    root: Path
    """The app folder (or `.app` bundle)."""
    evidence: tuple[str, ...]
    app_id: str | None = None
    """macOS bundle id, or the desktop-file id on Linux."""

    def subjects(self) -> tuple[str, ...]:
        """What the caller's allow/deny substrings are matched against."""
        return tuple(s for s in (self.name, self.app_id, str(self.executable), str(self.root)) if s)

    def to_dict(self) -> dict[str, object]:
        row: dict[str, object] = {
            "name": self.name,
            "appPath": str(self.root),
            "executablePath": str(self.executable),
            "evidence": list(self.evidence),
        }
        if self.app_id:
            row["bundleId"] = self.app_id
        return row


def _package_main(package: Path) -> bool:
    try:
        data = json.loads(_head(package))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("main"), str) and bool(data["main"])


def layout_evidence(folder: Path) -> tuple[str, ...]:
    """The packaged-app files in `folder/resources` (empty: none)."""
    resources = folder / "resources"
    found = []
    if (resources / "app.asar").is_file():
        found.append("resources/app.asar")
    if _package_main(resources / "app" / "package.json"):
        found.append("resources/app/package.json main")
    if (resources / "default_app.asar").is_file():
        found.append("resources/default_app.asar")
    return tuple(found)


def bundle_evidence(bundle: Path) -> tuple[str, ...]:
    found = []
    if (bundle / "Contents" / "Frameworks" / "Electron Framework.framework").is_dir():
        found.append("Contents/Frameworks/Electron Framework.framework")
    if (bundle / "Contents" / "Resources" / "app.asar").is_file():
        found.append("Contents/Resources/app.asar")
    return tuple(found)


def binary_marker(path: Path) -> bool:
    """The native executable carries Electron's runtime marker (bounded read)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
            if head not in NATIVE_MAGIC:
                return False
            handle.seek(0)
            tail = b""
            read = 0
            while read < SCAN_LIMIT_BYTES:
                chunk = handle.read(CHUNK_BYTES)
                if not chunk:
                    return False
                if MARKER in tail + chunk:
                    return True
                tail = chunk[-len(MARKER) :]
                read += len(chunk)
    except OSError:
        return False
    return False


def check_executable(path: Path) -> None:
    """Raise `NotElectron` unless `path` is a regular file this user may execute."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise NotElectron(f"{path} cannot be read ({exc.strerror or exc}).") from None
    if not stat.S_ISREG(info.st_mode) or not os.access(path, os.X_OK):
        raise NotElectron(f"{path} is not an executable file.")


def _bundle_of(executable: Path) -> Path | None:
    for parent in executable.parents:
        if parent.suffix == ".app":
            return parent
    return None


def electron_evidence(executable: Path) -> tuple[str, ...]:
    """Every piece of Electron evidence for `executable` (empty: not Electron)."""
    found = list(layout_evidence(executable.parent))
    bundle = _bundle_of(executable)
    if bundle is not None:
        found += bundle_evidence(bundle)
    if not found and binary_marker(executable):
        found.append(f"binary marker {MARKER.decode()}")
    return tuple(found)


def app_for_executable(executable: Path, name: str | None = None) -> App:
    """The app of an executable (symlinks resolved, a `bin/` launcher mapped to the app
    binary beside `resources/`); raises `NotElectron`."""
    real = Path(os.path.realpath(executable))
    check_executable(real)
    beside = real.parent.parent / real.name
    launcher = not layout_evidence(real.parent) and layout_evidence(real.parent.parent)
    if launcher and beside.is_file() and os.access(beside, os.X_OK):
        real = beside  # e.g. /usr/share/code/bin/code -> /usr/share/code/code
    evidence = electron_evidence(real)
    if not evidence:
        raise NotElectron(
            f"{executable} shows no Electron evidence (looked for resources/app.asar, "
            "resources/app/package.json with main, an Electron Framework bundle and the "
            "Electron runtime marker); non-Electron executables are not launched."
        )
    bundle = _bundle_of(real)
    root = bundle if bundle is not None else real.parent
    return App(
        name=name or _display_name(root, real), executable=real, root=root, evidence=evidence
    )


def app_for_folder(folder: Path) -> App:
    """The app in an app folder or `.app` bundle; raises `NotElectron`."""
    real = Path(os.path.realpath(folder))
    if real.suffix == ".app":
        return app_for_executable(_bundle_executable(real))
    if not real.is_dir():
        return app_for_executable(real)
    candidates = _executables_in(real)
    chosen = [c for c in candidates if c.name.casefold() == real.name.casefold()]
    if len(chosen) != 1:
        chosen = candidates
    if len(chosen) != 1:
        shown = ", ".join(c.name for c in candidates[:10]) or "none"
        raise NotElectron(
            f"{folder} does not name one app executable (found: {shown}); give executablePath."
        )
    return app_for_executable(chosen[0])


def _executables_in(folder: Path) -> list[Path]:
    out = []
    try:
        entries = sorted(folder.iterdir())[:500]
    except OSError:
        return []
    for entry in entries:
        if entry.name in HELPER_NAMES or entry.name.endswith(HELPER_SUFFIXES):
            continue
        if entry.is_file() and os.access(entry, os.X_OK):
            out.append(entry)
    return out


def _bundle_executable(bundle: Path) -> Path:
    try:
        info = plistlib.loads((bundle / "Contents" / "Info.plist").read_bytes())
    except (OSError, ValueError, plistlib.InvalidFileException):
        raise NotElectron(f"{bundle} has no readable Contents/Info.plist.") from None
    name = info.get("CFBundleExecutable") if isinstance(info, dict) else None
    if not isinstance(name, str) or not name:
        raise NotElectron(f"{bundle} names no CFBundleExecutable.")
    return bundle / "Contents" / "MacOS" / name


def _display_name(root: Path, executable: Path) -> str:
    for package in (root / "resources" / "app" / "package.json",):
        try:
            data = json.loads(_head(package))
        except (OSError, ValueError):
            continue
        for key in ("productName", "name"):
            if isinstance(data, dict) and isinstance(data.get(key), str) and data[key]:
                return str(data[key])
    return root.stem if root.suffix == ".app" else executable.name


PACKAGE_BYTES = 1_000_000
"""A `package.json` is small; a bigger file is read only this far (and then fails to parse)."""


def _head(path: Path) -> str:
    with path.open("rb") as handle:
        return handle.read(PACKAGE_BYTES).decode("utf-8", errors="replace")
