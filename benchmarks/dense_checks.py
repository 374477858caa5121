"""The dense-page checks of issue 19 item 5, for `observation_size.py`.

For one page's `snapshot -i` (text and ref map), its compact view and facts read from the
page's DOM, this says whether:
(a) every non-link high-value control (field, tab, choice, button, option, menu item) is
    visible or listed in the view (a member of a collapsed group counts when the group line
    names a sample of it and the count, as in `controls.coverage`);
(b) every table row's title link (the first link of a body row outside navigation, sidebars,
    header and footer, read from the DOM, not from the code under test) is reachable the
    same way, and no navigation/filter link is in the view while a row title is not;
(c) every named link is in the view of one `snapshot -i --search <its name>`, or else of one
    `snapshot -i --search-exact <its name>` (counted apart); every distinct name is tried
    unless a page has more than `SEARCH_NAME_LIMIT`, then an even sample (reported);
(d) the "… N more not listed" line, when there is one, names `--search`, `--search-exact`
    and `--filter role=`.

Pure except for the JavaScript source of the DOM probe, which the caller runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.results.snapshot.compaction import CompactSnapshot
from agent_browser_tools.results.snapshot.controls import (
    collect_controls,
    coverage,
    group_controls,
    is_high_value,
)
from agent_browser_tools.results.snapshot.tree import named_lines, parse_snapshot
from agent_browser_tools.results.snapshot.views import filter_snapshot

#: Distinct link names searched per page before the check samples evenly.
SEARCH_NAME_LIMIT = 300
MORE_LINE_FLAGS = ("--search <name>", "--search-exact <name>", "--filter role=")

#: Every visible link in DOM order as [name, kind]: kind "row" for the first link of a table
#: body row outside page chrome, "nav" for links inside navigation/sidebar/header/footer.
LINK_FACTS_JS = r"""
(() => {
  const CHROME = "nav, aside, header, footer, [role=navigation], [role=complementary], "
    + "[role=banner], [role=contentinfo]";
  const CELLS = "td, [role=gridcell], [role=cell], [role=rowheader]";
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  const titles = new Set();
  for (const row of document.querySelectorAll("tr, [role=row]")) {
    if (row.closest(CHROME) || row.closest("thead") || !row.querySelector(CELLS)) continue;
    const a = row.querySelector("a[href]");
    if (a) titles.add(a);
  }
  const out = [];
  for (const a of document.querySelectorAll("a[href]")) {
    const r = a.getBoundingClientRect();
    if (r.width <= 0 && r.height <= 0) continue;
    const name = norm(a.getAttribute("aria-label")) || norm(a.innerText || a.textContent);
    out.push([name, titles.has(a) ? "row" : a.closest(CHROME) ? "nav" : "other"]);
  }
  return out;
})()
"""


@dataclass(frozen=True)
class DenseFigures:
    """Item 5's figures for one page."""

    page: str
    compacted: bool
    controls: tuple[int, int]  # (a) non-link controls reachable, total
    rows: tuple[int, int, int]  # (b) row titles reachable, named one by one, total
    nav_over_rows: int  # (b) nav/filter links in the view while a row title is unreachable
    links: tuple[int, int, int]  # (c) by --search, by --search-exact only, links tried
    names: tuple[int, int]  # (c) distinct names tried, distinct names on the page
    more_line: str | None  # (d)

    @property
    def checks(self) -> dict[str, bool]:
        return {
            "a": self.controls[0] == self.controls[1],
            "b": self.rows[0] == self.rows[2] and self.nav_over_rows == 0,
            "c": self.links[0] + self.links[1] == self.links[2],
            "d": self.more_line is None or all(f in self.more_line for f in MORE_LINE_FLAGS),
        }


def _norm(name: str) -> str:
    return " ".join(name.split())


def link_kinds_from_dom(
    text: str, refs: Mapping[str, Any], dom_links: Sequence[Sequence[str]]
) -> dict[str, str]:
    """Pair the snapshot's link refs with the DOM's links by name, both in document order."""
    kinds: dict[str, str] = {}
    start = 0
    for line in parse_snapshot(text):
        entry = refs.get(line.ref or "", {})
        if entry.get("role") != "link":
            continue
        name = _norm(str(entry.get("name", "")))
        for pos in range(start, len(dom_links)):
            if _norm(str(dom_links[pos][0])) == name:
                kinds[str(line.ref)] = str(dom_links[pos][1])
                start = pos + 1
                break
    return kinds


def _row_figures(
    text: str, refs: Mapping[str, Any], result: CompactSnapshot, kinds: Mapping[str, str]
) -> tuple[tuple[int, int, int], int]:
    seen = set(result.shown_ref_ids) | set(result.high_value_ref_ids)
    groups = group_controls(collect_controls(*named_lines(text, refs)))
    rows = {ref for ref, kind in kinds.items() if kind == "row"}
    reach = coverage(groups, seen, roles={"link"})
    unreachable = {c.ref for c in reach.missing} & rows
    named = len(rows & seen)
    nav_seen = sum(1 for ref, kind in kinds.items() if kind == "nav" and ref in seen)
    return (len(rows) - len(unreachable), named, len(rows)), (nav_seen if unreachable else 0)


def _sample(names: Sequence[str]) -> list[str]:
    if len(names) <= SEARCH_NAME_LIMIT:
        return list(names)
    step = len(names) / SEARCH_NAME_LIMIT
    return [names[int(i * step)] for i in range(SEARCH_NAME_LIMIT)]


def search_reach(
    text: str, refs: Mapping[str, Any]
) -> tuple[tuple[int, int, int], tuple[int, int], list[str]]:
    """(by --search, by --search-exact only, tried), (names tried, names), unreached labels."""
    by_name: dict[str, list[str]] = {}
    for ref, entry in refs.items():
        name = str(entry.get("name", ""))
        if entry.get("role") == "link" and is_high_value("link", name):
            by_name.setdefault(name, []).append(ref)
    names = _sample(sorted(by_name))
    plain = exact = tried = 0
    missing: list[str] = []
    for name in names:
        view = filter_snapshot(text, refs, search=name, role=None).text
        exact_view: str | None = None
        for ref in by_name[name]:
            tried += 1
            if f"ref={ref}]" in view:
                plain += 1
                continue
            if exact_view is None:
                exact_view = filter_snapshot(text, refs, search=name, role=None, exact=True).text
            if f"ref={ref}]" in exact_view:
                exact += 1
            else:
                missing.append(f'@{ref} "{name}"')
    return (plain, exact, tried), (len(names), len(by_name)), missing


def more_line(text: str) -> str | None:
    match = re.search(r"^… \d+ more not listed .*$", text, flags=re.M)
    return match.group(0) if match else None


def dense_figures(
    page: str,
    text: str,
    refs: Mapping[str, Any],
    result: CompactSnapshot,
    dom_links: Sequence[Sequence[str]],
) -> tuple[DenseFigures, list[str]]:
    """Figures (a)-(d) for one page, and the labels of links no single search reached."""
    seen = set(result.shown_ref_ids) | set(result.high_value_ref_ids)
    groups = group_controls(collect_controls(*named_lines(text, refs)))
    other = coverage(groups, seen, roles={g.role for g in groups} - {"link"})
    kinds = link_kinds_from_dom(text, refs, dom_links)
    rows, nav_over_rows = _row_figures(text, refs, result, kinds)
    links, names, missing = search_reach(text, refs)
    figures = DenseFigures(
        page,
        result.compacted,
        (other.reachable, other.total),
        rows,
        nav_over_rows,
        links,
        names,
        more_line(result.text),
    )
    return figures, missing


def print_dense(rows: Sequence[DenseFigures]) -> list[str]:
    """Print item 5's table; return the failed checks as `page (letter)`."""
    print()
    print("Dense pages (issue 19 item 5), per page:")
    print(
        "  (a) non-link controls visible or listed; (b) row title links reachable "
        "[named one by one] / rows, nav/filter links shown while a row title is not;"
    )
    print(
        "  (c) named links in the view of one --search <name> + only via --search-exact <name>"
        " / links [distinct names tried / names]; (d) the '… N more' line names the flags"
    )
    for r in rows:
        mark = "" if r.compacted else " (verbatim)"
        checks = r.checks
        print(
            f"{r.page:32} (a) {r.controls[0]}/{r.controls[1]} {_yes(checks['a'])}  "
            f"(b) {r.rows[0]}/{r.rows[2]} [{r.rows[1]}] nav-over-rows {r.nav_over_rows} "
            f"{_yes(checks['b'])}  (c) {r.links[0]}+{r.links[1]}/{r.links[2]} "
            f"[{r.names[0]}/{r.names[1]}] {_yes(checks['c'])}  (d) "
            f"{_yes(checks['d']) if r.more_line else 'no line'}{mark}"
        )
    for r in rows:
        if r.more_line:
            print(f"  {r.page} more line: {r.more_line}")
    return [f"{r.page} ({k})" for r in rows for k, ok in r.checks.items() if not ok]


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"
