"""Which app a launch names, refused unless the path is allowed and the app is Electron.

A path the model gives (`appPath`, `executablePath`) must lie in a host install root that
discovery scans (`/usr/lib`, `/opt`, `/Applications`, ...) or a dir the operator vouches for,
never where the model can write, and never in a forbidden place (the server's state dir, the
engine's dirs): judged by `planning.file_access` like any other model-supplied path, symlinks
and `..` included (see `judge`).
Names and bundle ids resolve only through discovery, so they can only reach found apps.
Paths inside `appArgs` (what the app is told to open) must be in the file roots.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from pathlib import Path

from agent_browser_tools.planning.file_access import FileRoots, PathRefused, judge_path
from agent_browser_tools.planning.file_config import FILE_ROOTS_ENV, ROOTS_KEY
from agent_browser_tools.planning.file_urls import UnpinnedFileUrl, local_file_path
from agent_browser_tools.planning.policy import ELECTRON_APP_DIRS_KEY, PolicyBlocked
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.taxonomy import PathUse
from agent_browser_tools.tools.electron import discovery
from agent_browser_tools.tools.electron.evidence import (
    App,
    NotElectron,
    app_for_executable,
    app_for_folder,
)
from agent_browser_tools.tools.electron.rules import LIST_CAP
from agent_browser_tools.tools.electron.schema import ElectronInput


class Refusal(Exception):
    """A launch target that cannot be resolved or is refused (`validation-error`)."""


def home(rt: Runtime) -> Path:
    return Path(rt.settings.env.get("HOME", "~")).expanduser()


def judge(rt: Runtime, raw: str) -> Path:
    """The absolute path of `raw` if launching from it is allowed; raises `PolicyBlocked`.

    Programs start only from the host install roots discovery scans and the dirs the operator
    vouches for (`[policy] electron_app_dirs`), and never from inside the model's file roots
    unless such a dir says so: there the model can write (`outputPath`, downloads), so any
    executable next to a `resources/app.asar` it wrote would pass the Electron evidence."""
    model_roots = rt.file_roots
    vouched = tuple(Path(d).expanduser() for d in rt.policy.electron_app_dirs)
    installs = discovery.launch_roots(discovery.host_roots(home(rt)))
    app_roots = dataclasses.replace(model_roots, roots=(*installs, *vouched), unrestricted=False)
    try:
        path = judge_path(raw, PathUse.READ_FILE, app_roots)
    except PathRefused as exc:
        raise _not_an_app_dir(raw, exc.reason) from None
    in_vouched = any(path.is_relative_to(d.resolve()) for d in vouched)
    if not in_vouched and _writable_by_model(path, model_roots):
        raise _not_an_app_dir(raw, "it is inside the workspace the model can write to")
    return path


def _writable_by_model(path: Path, roots: FileRoots) -> bool:
    try:
        judge_path(str(path), PathUse.WRITE_FILE, roots)
    except PathRefused:
        return False
    return True


def _not_an_app_dir(raw: str, reason: str) -> PolicyBlocked:
    return PolicyBlocked(
        f"{raw} is not a place this server launches apps from ({reason}): apps run from host "
        "install roots (/usr/lib, /opt, /snap, ~/.local/share, /Applications) or dirs the "
        "operator lists.",
        rule="file-root",
        subject=raw,
        allow_with=ELECTRON_APP_DIRS_KEY,
    )


def _path_in(text: str) -> str | None:
    """The local path an argument (or a switch value) names, if it looks like one."""
    if text.lower().startswith(("file:", "view-source:", "filesystem:")):
        try:
            path = local_file_path(text)
        except UnpinnedFileUrl:
            path = None
        return path or "\0"  # an unpinnable file URL cannot pass the judge
    if text.startswith(("/", "~", "./", "../")) or text in (".", ".."):
        return text
    return None


def check_path_args(rt: Runtime, args: list[str]) -> None:
    """`appArgs` that name local files (a plain path, a `file:` URL, or a switch value such as
    `--folder-uri=file:///etc`) must stay in the file roots, as every model path does: an
    app opens what it is given with the user's rights. Raises `PolicyBlocked`."""
    roots = rt.file_roots
    for token in args:
        value = token.split("=", 1)[1] if token.startswith("-") and "=" in token else token
        raw = _path_in(value)
        if raw is None:
            continue
        try:
            judge_path(raw, PathUse.READ_FILE, roots)
        except PathRefused as exc:
            raise PolicyBlocked(
                f"appArgs {token!r} names a local file outside the file roots ({exc.reason}); "
                f"apps may only be given paths in {roots.describe()}.",
                rule="file-root",
                subject=token,
                allow_with=f"{ROOTS_KEY} / {FILE_ROOTS_ENV}",
            ) from None


async def app_for(rt: Runtime, inp: ElectronInput) -> App:
    """The app `inp` names; raises `Refusal`, `PolicyBlocked` or `NotElectron`."""
    if inp.executablePath is not None:
        path = judge(rt, inp.executablePath)
        return await asyncio.to_thread(app_for_executable, path)
    if inp.appPath is not None:
        path = judge(rt, inp.appPath)
        return await asyncio.to_thread(app_for_folder, path)
    if sys.platform == "win32":
        raise Refusal("Windows launch needs a verifiable executablePath or appPath.")
    roots = discovery.host_roots(home(rt))
    found = await asyncio.to_thread(discovery.discover, roots, None, LIST_CAP)
    if inp.appName is not None:
        wanted = inp.appName.casefold()
        matches = [a for a in found.apps if a.name.casefold() == wanted]
        label = f"appName {inp.appName!r}"
    else:
        matches = [a for a in found.apps if a.app_id == inp.bundleId]
        label = f"bundleId {inp.bundleId!r}"
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise Refusal(f"no discovered Electron app has {label}; run list, or give appPath.")
    paths = ", ".join(str(a.executable) for a in matches[:5])
    raise Refusal(f"{label} is ambiguous ({paths}); give executablePath.")


__all__ = ["App", "NotElectron", "Refusal", "app_for", "check_path_args", "judge"]
