"""Reading the engine's `react tree` and `react inspect` answers (pure).

`react tree` prints `depth id parent name [key=...]` rows; `react inspect <id>` answers
`{text, source}` where `text` lists props/hooks/owners and `source` is React DevTools' own
location of the component's code, `[scriptUrl, line, column]`: the script the page loaded (a
bundle or a dev-server module), not necessarily a workspace file. Host fibers (DOM tags such as
`button`) carry no source; their owners name the component that rendered them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

MAX_SELECTOR_INSPECTS = 40
"""Host fibers inspected to find the element behind a selector, in one helper batch."""
MAX_COMPONENT_INSPECTS = 3
"""Fibers of a named component inspected (the same component rendered many times)."""
HOOK_MISSING = "devtools-missing"
NO_RENDERER = "no-react"
_KEY = re.compile(r"\s+\[?key=(.*?)\]?$")


@dataclass(frozen=True)
class Fiber:
    id: int
    parent: int | None
    depth: int
    name: str
    key: str | None = None

    @property
    def is_host(self) -> bool:
        """A DOM element fiber (`button`, `div`): React names them by their lowercase tag."""
        return self.name[:1].islower()


@dataclass(frozen=True)
class Inspection:
    id: int
    name: str
    props: dict[str, str] = field(default_factory=dict)
    owners: tuple[str, ...] = ()
    source: tuple[str, int, int] | None = None


@dataclass(frozen=True)
class SelectorParts:
    """What a simple CSS selector says about its element (the last compound only)."""

    tag: str | None = None
    ids: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()
    attrs: tuple[tuple[str, str], ...] = ()


def react_failure(error: str | None) -> str | None:
    """`devtools-missing` (relaunch needed), `no-react` (no renderer), or None."""
    text = (error or "").lower()
    if "devtools hook not installed" in text or "enable react-devtools" in text:
        return HOOK_MISSING
    if "no react renderer" in text:
        return NO_RENDERER
    return None


def parse_tree(text: str) -> list[Fiber]:
    fibers = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(maxsplit=3)
        if len(parts) < 4 or not parts[0].isdigit() or not parts[1].isdigit():
            continue
        name, key = parts[3], None
        found = _KEY.search(name)
        if found is not None:
            name, key = name[: found.start()], found.group(1)
        parent = int(parts[2]) if parts[2].isdigit() else None
        fibers.append(Fiber(int(parts[1]), parent, int(parts[0]), name.strip(), key))
    return fibers


def parse_inspect(fiber_id: int, data: Any) -> Inspection | None:
    """One `react inspect` answer, or None when it is not the engine's shape."""
    if not isinstance(data, Mapping) or not isinstance(data.get("text"), str):
        return None
    lines = data["text"].splitlines()
    head = lines[0] if lines else ""
    name = head.rsplit(" #", 1)[0].strip() if " #" in head else head.strip()
    props: dict[str, str] = {}
    owners: tuple[str, ...] = ()
    section = None
    for line in lines[1:]:
        if line.startswith("rendered by:"):
            owners = tuple(o.strip() for o in line.split(":", 1)[1].split(">") if o.strip())
        elif not line.startswith(" ") and line.endswith(":"):
            section = line[:-1]
        elif section == "props" and ":" in line:
            prop, value = line.strip().split(":", 1)
            props[prop.strip()] = value.strip()
    return Inspection(fiber_id, name, props, owners, _source(data.get("source")))


def _source(value: Any) -> tuple[str, int, int] | None:
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) < 3:
        return None
    url, line, column = value[0], value[1], value[2]
    if not isinstance(url, str) or not isinstance(line, int) or not isinstance(column, int):
        return None
    return (url, line, column)


_ATTR = re.compile(r"""\[\s*([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\]\s]+))\s*\]""")
_TOKEN = re.compile(r"([#.])((?:[\w-]|\\.)+)")


def selector_parts(selector: str) -> SelectorParts:
    """Tag, ids, classes and `[attr=value]` of the selector's last compound (best effort)."""
    last = re.split(r"\s*[\s>+~]\s*(?![^\[]*\])", selector.strip())[-1]
    attrs = tuple(
        (m.group(1), next(g for g in m.groups()[1:] if g is not None)) for m in _ATTR.finditer(last)
    )
    bare = _ATTR.sub("", last)
    bare = re.sub(r":{1,2}[\w-]+(\([^)]*\))?", "", bare)
    tag_match = re.match(r"^([a-zA-Z][\w-]*)", bare)
    ids = tuple(v.replace("\\", "") for k, v in _TOKEN.findall(bare) if k == "#")
    classes = tuple(v.replace("\\", "") for k, v in _TOKEN.findall(bare) if k == ".")
    return SelectorParts(tag_match.group(1).lower() if tag_match else None, ids, classes, attrs)


def host_fibers_for(fibers: Sequence[Fiber], parts: SelectorParts) -> list[Fiber]:
    """Host fibers worth inspecting for the selector's element, bounded, in tree order."""
    hosts = [f for f in fibers if f.is_host and (parts.tag is None or f.name == parts.tag)]
    return hosts[:MAX_SELECTOR_INSPECTS]


def element_match(inspection: Inspection, parts: SelectorParts, text: str | None) -> str | None:
    """Why this host fiber is the selector's element (evidence), or None."""
    props = {k: _unquote(v) for k, v in inspection.props.items()}
    for wanted in parts.ids:
        if props.get("id") == wanted:
            return f'props id="{wanted}"'
    for attr, value in parts.attrs:
        if props.get(attr) == value:
            return f'props {attr}="{value}"'
    classes = props.get("className", "").split()
    if parts.classes and all(c in classes for c in parts.classes):
        return f"props className has {' '.join(parts.classes)}"
    has_handle = parts.ids or parts.attrs or parts.classes
    if not has_handle and text and props.get("children") == text:
        return f'props children "{text[:40]}" equals the element text'
    return None


def components_named(fibers: Sequence[Fiber], name: str) -> list[Fiber]:
    return [f for f in fibers if f.name == name][:MAX_COMPONENT_INSPECTS]


def owner_component(inspection: Inspection) -> str | None:
    """The nearest named component that rendered this fiber."""
    for owner in inspection.owners:
        if owner[:1].isupper():
            return owner
    return None


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
