"""How much of a `snapshot -i` an agent sees after compaction, and the dense-page verdict.

For a corpus of real pages this prints, per page: the engine's raw `snapshot -i` size
(`len(data.snapshot)`), the visible size after `compact_snapshot(..., budget=15_000)` plus the
caller's `Full snapshot: <path>` spill line, the reduction factor, the high-value controls
(editable fields, tabs, choices, named buttons) an agent can reach from the visible text, and
the same for named links (a figure: a documentation page with 900 links cannot list them all).
Reachable means: the ref is in the visible text, or it belongs to a collapsed group ("+199
more ...") of which a member is visible.

Then the verdict, issue 19 item 5 (`dense_checks.py` says exactly how each is measured): on
every page, (a) every non-link high-value control is visible or listed, (b) every table row's
title link (read from the DOM) is reachable and no navigation/filter link is shown while one
is not, (c) every named link is in the view of one `snapshot -i --search <name>` (or of one
`--search-exact <name>`, counted apart), (d) the "… N more not listed" line names those flags;
plus the size targets: <= 16,000 visible characters on every page, and >= 3x smaller than raw
on the three largest of those whose raw size is at least 3 x 16,000 (a smaller page cannot
be 3x smaller without leaving part of the view unused). The last line is `VERDICT: PASS` or
`VERDICT: FAIL: <page (check)>`; the exit status is 0 only on PASS.

Corpus:
- the fixture site's dense pages: dense.html (500-row table), grid.html (500-row ARIA grid
  in chrome), changelist.html (a Django admin changelist: 48 rows with title links, 29 filter
  links, actions, search, pagination; also with 100 rows, Django's default) and docs.html
  (a Sphinx reference page of ~1,000 named links, one of them named "in");
- MiniWob++ task pages from the PyPI `miniwob` package (the `bench` extra); each episode is
  started with `core.startEpisodeReal()` before the snapshot; skipped with a notice when
  missing;
- large pages of the Python documentation from Debian's `python3-doc`
  (`apt-get install python3-doc`, pages under /usr/share/doc/python3/html/); skipped with a
  notice when missing.

Hermetic: private 0700 socket dir, one session, closed (and `close --all`) at the end.

Run from the repo root:
    PYTHONPATH=src .venv/bin/python benchmarks/observation_size.py [--engine PATH]
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

from dense_checks import LINK_FACTS_JS, DenseFigures, dense_figures, print_dense  # noqa: E402
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

BUDGET = 15_000
SPILL_LINE = "Full snapshot: /root/.local/state/agent-browser-tools/spill/snapshot-0123456789ab.txt"
MIN_REDUCTION = 3.0
FIXTURE_PAGES = (
    "dense.html",
    "grid.html",
    "changelist.html",
    "changelist.html?rows=100",  # Django's default page size
    "docs.html",
)
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
    dense: DenseFigures

    @property
    def factor(self) -> float:
        return self.raw / self.visible if self.visible else 0.0


def measure(page: str, data: dict[str, Any], dom_links: Sequence[Sequence[str]]) -> Row:
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
        dense(page, text, refs, result, dom_links),
    )


def dense(
    page: str,
    text: str,
    refs: dict[str, Any],
    result: Any,
    dom_links: Sequence[Sequence[str]],
) -> DenseFigures:
    figures, missing = dense_figures(page, text, refs, result, dom_links)
    if missing:
        print(f"note: {page}: no single search reaches {', '.join(missing[:10])}")
    return figures


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


def size_targets(rows: Sequence[Row]) -> bool:
    """Print the size targets line; True when both hold."""
    # Only pages at least 3x the limit can be 3x smaller without wasting the view.
    big = [r for r in rows if r.raw >= MIN_REDUCTION * VISIBLE_LIMIT]
    largest = sorted(big, key=lambda r: r.raw, reverse=True)[:3]
    within = all(r.visible <= VISIBLE_LIMIT for r in rows)
    smaller = all(r.factor >= MIN_REDUCTION for r in largest)
    print(
        f"size: visible <= {VISIBLE_LIMIT} on every page: {'yes' if within else 'NO'} "
        f"(max {max(r.visible for r in rows)}); >= {MIN_REDUCTION:.0f}x smaller on the 3 "
        f"largest of raw >= {MIN_REDUCTION * VISIBLE_LIMIT:.0f} "
        f"({', '.join(f'{r.page} {r.factor:.1f}x' for r in largest) or 'none'}): "
        f"{'yes' if smaller else 'NO'}"
    )
    return within and smaller


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
                data = session.run("snapshot", "-i")["data"]
                facts = session.run("eval", "--stdin", stdin=LINK_FACTS_JS)["data"]["result"]
                rows.append(measure(label, data, facts))
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
    failed = [] if size_targets(rows) else ["size targets"]
    failed += print_dense([r.dense for r in rows])
    print(
        "VERDICT: "
        + ("PASS: (a)-(d) and the size targets hold on every page" if not failed else "FAIL: ")
        + ", ".join(failed)
    )
    return 0 if not failed else 1


if __name__ == "__main__":
    raise SystemExit(main())
