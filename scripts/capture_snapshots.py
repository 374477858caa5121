"""Capture real `snapshot` trees of fixture-site pages for the snapshot compaction/view tests.

Why: compaction, filtering and diffing are pure functions of the engine's snapshot text and
ref map, and their tests are only as good as the trees they run on. This drives the pinned
engine against the local fixture site and stores, per capture, `{"page", "args", "origin",
"snapshot", "refs"}` under `tests/fixtures/snapshots/<name>.json`. The fixture server's port
becomes `PORT` so re-running yields the same files.

Captures: `snapshot -i` of dense.html (500 table rows), grid.html (500-row ARIA grid in page
chrome), long.html and form.html; the full (non `-i`) tree of dense.html, whose landmarks
(`banner`, `complementary`, `main`) `-i` drops; and dense.html's `snapshot -i` again after
typing into its row filter, for ref-diff tests. Also `probes.json`: what the wrapper's read-only
search and viewport probes (`results/snapshot_probes.py`) return on grid.html, dense.html and a
scrolled long.html.

Hermetic: private 0700 socket dir, one session, `close` and `close --all` at the end.

Usage (from the repo root):
    /work/venv/bin/python scripts/capture_snapshots.py [--engine PATH] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.engine_session import EngineSession, find_engine  # noqa: E402
from tests.support.fixture_server import start_fixture_server  # noqa: E402

from agent_browser_tools.results.snapshot.probes import (  # noqa: E402
    VIEWPORT_PROBE_JS,
    search_probe_js,
)

DEFAULT_OUT = REPO / "tests" / "fixtures" / "snapshots"
SESSION = "snapcap"
#: (fixture name, page, snapshot args)
CAPTURES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("dense_i", "dense.html", ("-i",)),
    ("dense_full", "dense.html", ()),
    ("grid_i", "grid.html", ("-i",)),
    ("long_i", "long.html", ("-i",)),
    ("form_i", "form.html", ("-i",)),
)
#: Typed into dense.html's row filter before `dense_filtered_i` (matches rows 49, 490-499).
FILTER_TEXT = "Row 49"


def _record(page: str, args: Sequence[str], data: Mapping[str, Any], base: str) -> dict[str, Any]:
    origin = str(data.get("origin", "")).replace(base, "http://127.0.0.1:PORT")
    return {
        "page": page,
        "args": ["snapshot", *args],
        "origin": origin,
        "snapshot": data["snapshot"],
        "refs": data["refs"],
    }


def _searchbox_ref(refs: Mapping[str, Any]) -> str:
    for ref, entry in refs.items():
        if entry.get("role") == "searchbox":
            return ref
    raise RuntimeError("dense.html has no searchbox ref")


def capture(session: EngineSession, base: str) -> dict[str, dict[str, Any]]:
    """Run every capture in one session; return fixture name -> record."""
    out: dict[str, dict[str, Any]] = {}
    for name, page, args in CAPTURES:
        session.run("open", f"{base}/{page}")
        data = session.run("snapshot", *args)["data"]
        out[name] = _record(page, args, data, base)
    session.run("open", f"{base}/dense.html")
    refs = session.run("snapshot", "-i")["data"]["refs"]
    session.run("fill", f"@{_searchbox_ref(refs)}", FILTER_TEXT)
    data = session.run("snapshot", "-i")["data"]
    out["dense_filtered_i"] = _record("dense.html", ("-i",), data, base)
    out["dense_filtered_i"]["previousRefs"] = refs
    out["dense_filtered_i"]["typed"] = FILTER_TEXT
    return out


#: (probe name, page, search text or None for the viewport probe)
PROBES: tuple[tuple[str, str, str | None], ...] = (
    ("search_grid_export_failed", "grid.html", "export failed"),
    ("search_grid_promo", "grid.html", "promo"),
    ("search_dense_edit_3", "dense.html", "Edit 3"),
    ("viewport_long_scrolled", "long.html", None),
)
#: Scroll state set before the viewport probe, so the probe has offsets to report.
SCROLL_SETUP = "window.scrollTo(0, 1200); document.getElementById('scroller').scrollTop = 140; 1"


def capture_probes(session: EngineSession, base: str) -> dict[str, Any]:
    """Each probe's `data.result` (map refs with the page's `*_i.json` capture: mapping goes
    by role and name, which do not depend on the session's ref numbering)."""
    out: dict[str, Any] = {}
    for name, page, search in PROBES:
        session.run("open", f"{base}/{page}")
        if search is None:
            session.run("eval", "--stdin", stdin=SCROLL_SETUP)
            script = VIEWPORT_PROBE_JS
        else:
            script = search_probe_js(search)
        result = session.run("eval", "--stdin", stdin=script)["data"]["result"]
        out[name] = {"page": page, "search": search, "result": result}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", help="engine binary (default: the resolved pinned engine)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="fixture directory")
    options = parser.parse_args(argv)
    options.out.mkdir(parents=True, exist_ok=True)
    server = start_fixture_server()
    try:
        with EngineSession(find_engine(options.engine), SESSION) as session:
            records = capture(session, server.base_url)
            records["probes"] = capture_probes(session, server.base_url)
    finally:
        server.close()
    for name, record in records.items():
        path = options.out / f"{name}.json"
        path.write_text(json.dumps(record, ensure_ascii=False) + "\n", "utf-8")
        print(f"{path.relative_to(REPO)}: {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
