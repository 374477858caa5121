#!/usr/bin/env python3
"""The packaging gate: build the sdist and wheel, check them as an index would, and run the
wheel from a fresh venv.

    python scripts/check_package.py            # needs `build` and `twine` (the dev extra)
    python scripts/check_package.py --keep DIR # leave the built files in DIR

Why: what users install is the wheel, not this checkout. Checked here: `python -m build`
succeeds (on a temporary copy of the source tree: setuptools writes `build/` and
`src/*.egg-info` next to the sources it builds, and this checkout must stay clean); `twine
check --strict` passes (the README renders as the index page); the wheel carries LICENSE, the
SPDX `License-Expression`, this package's version and the data files the server reads at run
time; and the wheel, installed alone into a fresh venv (its dependencies borrowed from this
environment through a `.pth` line, so nothing is downloaded), answers `--version` and an MCP
handshake with its console script.
"""

from __future__ import annotations

import argparse
import email.parser
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agent_browser_tools import __version__  # noqa: E402

LICENSE_EXPRESSION = "Apache-2.0"
DATA_FILES = (
    "agent_browser_tools/py.typed",
    "agent_browser_tools/demo/page.html",
    "agent_browser_tools/hosts/mcp/front_data.json",
)
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "check_package", "version": "0"},
    },
}
HANDSHAKE = [
    INITIALIZE,
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]

IMPORTED_FROM = "import agent_browser_tools as m; print(m.__file__)"
NOT_COPIED = (
    ".git",
    ".venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    "node_modules",
)
"""What the build's copy of the source tree leaves out: VCS data, environments, build output
and caches (none of it is in the sdist)."""


class PackageProblem(Exception):
    """What is wrong with the built distribution."""


def _run(
    argv: list[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env=env,
        input=stdin,
        timeout=300,
    )
    if done.returncode != 0:
        raise PackageProblem(f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def build(out: Path, work: Path) -> Path:
    """Build the sdist and the wheel into `out` from a copy of the source tree made in
    `work`; `twine check` both; return the wheel."""
    tree = work / "source"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(*NOT_COPIED), symlinks=True)
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(tree)])
    built = sorted(out.iterdir())
    _run([sys.executable, "-m", "twine", "check", "--strict", *map(str, built)])
    wheels = [path for path in built if path.suffix == ".whl"]
    if len(wheels) != 1:
        raise PackageProblem(f"expected one wheel, built {[p.name for p in built]}")
    return wheels[0]


def check_wheel(wheel: Path) -> None:
    """LICENSE (this checkout's text), license metadata, version and data files."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"agent_browser_tools-{__version__}.dist-info"
        license_name = f"{info}/licenses/LICENSE"
        if license_name not in names:
            raise PackageProblem(f"{wheel.name} has no {license_name}")
        if archive.read(license_name) != (ROOT / "LICENSE").read_bytes():
            raise PackageProblem(f"{license_name} is not this checkout's LICENSE")
        metadata = email.parser.Parser().parsestr(archive.read(f"{info}/METADATA").decode())
    expected = {
        "Version": __version__,
        "License-Expression": LICENSE_EXPRESSION,
        "License-File": "LICENSE",
    }
    for key, value in expected.items():
        if metadata.get(key) != value:
            raise PackageProblem(f"METADATA {key} is {metadata.get(key)!r}, not {value!r}")
    missing = [name for name in DATA_FILES if name not in names]
    if missing:
        raise PackageProblem(f"{wheel.name} lacks {missing}")


def fresh_venv(wheel: Path, where: Path) -> Path:
    """A new venv holding only the wheel; returns its console script."""
    venv = where / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q"]
    _run([*pip, "--no-deps", "--no-index", str(wheel)])
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    site = Path(purelib.stdout.strip())
    # The dependencies from this environment; a path line in a .pth does not run that
    # directory's own .pth files, so an editable install of this checkout stays out.
    deps = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "zz_check_package_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    return venv / "bin" / "agent-browser-tools"


def check_installed(script: Path, where: Path) -> None:
    """The installed console script answers `--version` and an MCP stdio handshake, from the
    venv's copy of the package (not this checkout)."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(where),
        "TMPDIR": str(where),
        "AGENT_BROWSER_TOOLS_STATE_DIR": str(where / "state"),
    }
    version = _run([str(script), "--version"], cwd=where, env=env).stdout.splitlines()
    if version[0] != f"agent-browser-tools {__version__}" or "agent-browser" not in version[1]:
        raise PackageProblem(f"--version printed {version}")
    python = str(script.parent / "python")
    where_from = _run([python, "-c", IMPORTED_FROM], cwd=where, env=env)
    if not where_from.stdout.startswith(str(script.parent.parent)):
        raise PackageProblem(f"the venv imports the package from {where_from.stdout.strip()}")
    lines = "".join(json.dumps(message) + "\n" for message in HANDSHAKE)
    served = _run([str(script), "serve"], cwd=where, env=env, stdin=lines)
    answers = [json.loads(line) for line in served.stdout.splitlines()]
    listed = [tool["name"] for tool in answers[-1]["result"]["tools"]]
    if [a["id"] for a in answers] != [1, 2] or "agent_browser" not in listed:
        raise PackageProblem(f"serve answered {served.stdout!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--keep", type=Path, help="build into DIR and keep it")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="abt-package-"))
    out = args.keep or work / "dist"
    try:
        wheel = build(out, work)
        check_wheel(wheel)
        check_installed(fresh_venv(wheel, work), work)
    except PackageProblem as exc:
        print(f"check_package: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"check_package: {wheel.name} ok (twine check, LICENSE, metadata, fresh venv)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
