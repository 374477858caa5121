"""How much of a `snapshot -i` an agent sees after compaction, and whether controls stay reachable.

For a corpus of real pages this prints, per page: the engine's raw `snapshot -i` size
(`len(data.snapshot)`), the visible size after `compact_snapshot(..., budget=15_000)` plus the
caller's `Full snapshot: <path>` spill line, the reduction factor, the high-value controls
(editable fields, tabs, choices, named buttons) an agent can reach from the visible text, and
the same for named links. Reachable means: the ref is in the visible text, or it belongs to a
collapsed group ("+199 more ...") of which a member is visible. Targets, checked in the last
lines: <= 16,000 visible characters on every page, every high-value control reachable (named
links included; they are also printed separately, because documentation pages carry hundreds
of them), and at least 3x smaller than raw on the three largest pages. The exit status is 0
only when every target holds. For links that are neither visible nor listed it also counts how
many the view of one `snapshot -i --search <link name>` shows (a figure, not a target).

Corpus:
- the fixture site's dense.html (500-row table) and grid.html (500-row ARIA grid in chrome);
- MiniWob++ task pages from the PyPI `miniwob` package (in the `dev` extra); each episode is
  started with `core.startEpisodeReal()` before the snapshot;
- large pages of the Python documentation from Debian's `python3-doc`
  (`apt-get install python3-doc`, pages under /usr/share/doc/python3/html/); skipped with a
  notice when missing.

Hermetic: private 0700 socket dir, one session, closed (and `close --all`) at the end.

Run from the repo root:
    /work/venv/bin/python benchmarks/observation_size.py [--engine PATH]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.engine_session import EngineSession, StaticServer, find_engine  # noqa: E402
from tests.support.fixture_server import start_fixture_server  # noqa: E402

from agent_browser_tools.results.bounds import VISIBLE_LIMIT  # noqa: E402
from agent_browser_tools.results.snapshot.compaction import compact_snapshot  # noqa: E402
from agent_browser_tools.results.snapshot.controls import (  # noqa: E402
    collect_controls,
    coverage,
    group_controls,
)
from agent_browser_tools.results.snapshot.tree import parse_snapshot  # noqa: E402
from agent_browser_tools.results.snapshot.views import filter_snapshot  # noqa: E402

BUDGET = 15_000
SPILL_LINE = "Full snapshot: /root/.local/state/agent-browser-tools/spill/snapshot-0123456789ab.txt"
MIN_REDUCTION = 3.0
FIXTURE_PAGES = ("dense.html", "grid.html")
#: The brief's picks plus the MiniWob++ tasks with the largest `snapshot -i` (all are small:
#: MiniWob++ tasks live in a 160x210 px area, so they check the verbatim path).
MINIWOB_TASKS = (
    "book-flight",
    "email-inbox",
    "social-media",
    "search-engine",
    "click-checkboxes-large",
    "number-checkboxes",
    "click-tab-2-hard",
)
PYDOC_DIR = Path("/usr/share/doc/python3/html")
PYDOC_PAGES = (
    "library/stdtypes.html",
    "library/functions.html",
    "reference/datamodel.html",
    "library/argparse.html",
)
START_EPISODE = (
    "(typeof core === 'object' && core.startEpisodeReal) ? (core.startEpisodeReal(), 1) : 0"
)


@dataclass(frozen=True)
class Row:
    page: str
    raw: int
    visible: int
    compacted: bool
    controls: tuple[int, int]  # (reachable, total) excluding links
    links: tuple[int, int]
    millis: float
    by_search: tuple[int, int] = (0, 0)  # (found, tried): unlisted links, one --search each

    @property
    def factor(self) -> float:
        return self.raw / self.visible if self.visible else 0.0


def measure(page: str, data: dict[str, Any]) -> Row:
    text, refs = data["snapshot"], data["refs"]
    timings = []
    for _ in range(3):  # best of three: the first call also pays for warm-up
        started = time.perf_counter()
        result = compact_snapshot(text, refs, budget=BUDGET)
        timings.append((time.perf_counter() - started) * 1000)
    millis = min(timings)
    visible = len(result.text) + (len(SPILL_LINE) + 1 if result.compacted else 0)
    seen = set(result.shown_ref_ids) | set(result.high_value_ref_ids)
    groups = group_controls(collect_controls(parse_snapshot(text), refs))
    roles = {g.role for g in groups}
    other = coverage(groups, seen, roles=roles - {"link"})
    links = coverage(groups, seen, roles={"link"})
    return Row(
        page,
        len(text),
        visible,
        result.compacted,
        (other.reachable, other.total),
        (links.reachable, links.total),
        millis,
        one_search(text, refs, [c.ref for c in links.missing], refs_names(refs)),
    )


def refs_names(refs: dict[str, Any]) -> dict[str, str]:
    return {ref: str(info.get("name", "")) for ref, info in refs.items()}


def one_search(
    text: str, refs: dict[str, Any], missing: Sequence[str], names: dict[str, str]
) -> tuple[int, int]:
    """How many unlisted links show up in the view of one `snapshot -i --search <name>`."""
    found = 0
    for ref in missing:
        view = filter_snapshot(text, refs, search=names.get(ref, ""), role=None)
        found += f"ref={ref}]" in view.text
    return found, len(missing)


def corpus(
    fixture_base: str, miniwob: StaticServer | None, pydoc: StaticServer | None
) -> list[tuple[str, str, str | None]]:
    """(label, url, script to run after open) for every page that is available."""
    pages: list[tuple[str, str, str | None]] = [
        (f"fixture/{p}", f"{fixture_base}/{p}", None) for p in FIXTURE_PAGES
    ]
    if miniwob is not None:
        pages += [
            (f"miniwob/{t}", miniwob.url(f"miniwob/{t}.html"), START_EPISODE) for t in MINIWOB_TASKS
        ]
    if pydoc is not None:
        pages += [(f"pydoc/{p}", pydoc.url(p), None) for p in PYDOC_PAGES]
    return pages


def miniwob_dir() -> Path | None:
    try:
        import miniwob
    except ImportError:
        print("note: the miniwob package is missing (pip install -e '.[dev]'); skipping it")
        return None
    return Path(miniwob.__file__).resolve().parent / "html"


def print_table(rows: Sequence[Row]) -> None:
    print(
        f"{'page':38} {'raw':>8} {'visible':>8} {'x':>6} {'controls':>10} {'links':>11} {'ms':>6}"
    )
    for r in rows:
        ctl = f"{r.controls[0]}/{r.controls[1]}"
        lnk = f"{r.links[0]}/{r.links[1]}"
        mark = "" if r.compacted else " (verbatim)"
        print(
            f"{r.page:38} {r.raw:8} {r.visible:8} {r.factor:6.1f} {ctl:>10} {lnk:>11} "
            f"{r.millis:6.1f}{mark}"
        )


def verdict(rows: Sequence[Row]) -> bool:
    """Print the targets line; True only when every target holds, named links included."""
    largest = sorted(rows, key=lambda r: r.raw, reverse=True)[:3]
    within = all(r.visible <= VISIBLE_LIMIT for r in rows)
    controls = all(r.controls[0] == r.controls[1] for r in rows)
    short = [r for r in rows if r.links[0] < r.links[1]]
    links = not short
    smaller = all(r.factor >= MIN_REDUCTION for r in largest)
    link_note = (
        "yes"
        if links
        else "NO ("
        + ", ".join(f"{r.page} {r.links[0]}/{r.links[1]}" for r in short)
        + "; the rest are counted in the view)"
    )
    searched = [r for r in rows if r.by_search[1]]
    if searched:
        link_note += "; unlisted links found by one `snapshot -i --search <name>`: " + ", ".join(
            f"{r.page} {r.by_search[0]}/{r.by_search[1]}" for r in searched
        )
    print(
        f"targets: visible <= {VISIBLE_LIMIT} on every page: {'yes' if within else 'NO'} "
        f"(max {max(r.visible for r in rows)}); >= {MIN_REDUCTION:.0f}x smaller on the 3 "
        f"largest ({', '.join(f'{r.page} {r.factor:.1f}x' for r in largest)}): "
        f"{'yes' if smaller else 'NO'}"
    )
    print(
        "every high-value control reachable: "
        f"{'yes' if controls and links else 'NO'}; non-link controls (fields, tabs, choices, "
        f"buttons, options, menu items): {'yes' if controls else 'NO'}; named links: {link_note}"
    )
    return within and controls and links and smaller


def run(engine: Path) -> list[Row]:
    fixture = start_fixture_server()
    mw_dir = miniwob_dir()
    miniwob = StaticServer(mw_dir) if mw_dir else None
    pydoc = StaticServer(PYDOC_DIR) if PYDOC_DIR.is_dir() else None
    if pydoc is None:
        print(f"note: {PYDOC_DIR} is missing (apt-get install python3-doc); skipping it")
    rows: list[Row] = []
    try:
        with EngineSession(engine, "obsize") as session:
            for label, url, script in corpus(fixture.base_url, miniwob, pydoc):
                session.run("open", url)
                if script:
                    session.run("eval", "--stdin", stdin=script)
                rows.append(measure(label, session.run("snapshot", "-i")["data"]))
    finally:
        for server in (fixture, miniwob, pydoc):
            if server is not None:
                server.close()
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", help="engine binary (default: the resolved pinned engine)")
    options = parser.parse_args(argv)
    rows = run(find_engine(options.engine))
    print_table(rows)
    return 0 if verdict(rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
