"""Synthetic `snapshot -i` trees of dense pages, shaped like the engine's output for them.

`changelist` follows what the engine printed for `tests/fixture_site/changelist.html` (a
Django admin changelist): a sidebar navigation of model links, the actions combobox, column
headers, then each row flattened into sibling cells (a checkbox cell, a row header holding
the title link, an author cell), and a filter navigation of short repeated links.
"""

from __future__ import annotations

from itertools import count

ADJECTIVES = ("Quiet", "Modern", "Hidden", "Early", "Slow", "Open", "Brief", "Careful")
NOUNS = ("sourdough guide", "tram history", "river maps", "tide tables", "soil primer")
PLACES = ("Lisbon", "Oslo", "Quito", "Hanoi", "Perth", "Dakar", "Lima", "Riga")
DATES = ("Any date", "Today", "Past 7 days", "This month", "This year", "No date", "Has date")


def title(i: int) -> str:
    """Distinct row titles with no digits (digit-only differences would group them)."""
    adjective, noun = ADJECTIVES[i % 8], NOUNS[(i // 8) % 5]
    return f"{adjective} {noun} from {PLACES[(i // 40) % 8]}"


def changelist(rows: int, *, filters: int = 3) -> tuple[str, dict[str, str]]:
    """The tree text and {title: ref of its link}; `filters` date filters of 7 links each."""
    ref = count(1)
    lines = [f'- navigation "Sidebar" [ref=e{next(ref)}]']
    lines += [f'  - link "{m}" [ref=e{next(ref)}]' for m in ("Groups", "Users", "Articles")]
    lines += [
        f'- heading "Select article to change" [level=1, ref=e{next(ref)}]',
        f'- textbox "Search" [ref=e{next(ref)}]',
        f'- button "Search" [ref=e{next(ref)}]',
        f'- combobox "Action:" [expanded=false, ref=e{next(ref)}]: ---------',
    ]
    lines += [f'- columnheader "{h}" [ref=e{next(ref)}]' for h in ("Select", "Title", "Author")]
    titles: dict[str, str] = {}
    for i in range(rows):
        name = title(i)
        box = f"Select this object for an action - {name}"
        lines.append(f'- cell "{box}" [ref=e{next(ref)}]')
        lines.append(f'  - checkbox "{box}" [checked=false, ref=e{next(ref)}]')
        lines.append(f'- rowheader "{name}" [ref=e{next(ref)}]')
        titles[name] = f"e{next(ref)}"
        lines.append(f'  - link "{name}" [ref={titles[name]}]')
        lines.append(f'- cell "Ada Lovelace" [ref=e{next(ref)}]')
    lines.append(f'- navigation "Filter" [ref=e{next(ref)}]')
    for _ in range(filters):
        lines += [f'  - link "{d}" [ref=e{next(ref)}]' for d in DATES]
    return "\n".join(lines), titles


def filter_refs(text: str) -> list[str]:
    """Refs of the links under the Filter navigation."""
    tail = text[text.index('navigation "Filter"') :]
    return [line.split("ref=")[1].rstrip("]") for line in tail.splitlines()[1:]]
