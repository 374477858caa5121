"""The snapshot line parser: every line's depth, role, name, ref, level and parent.

The parser skips work on lines that cannot hold attributes (dense pages have tens of
thousands of lines); the oracle here is the plain reading of the line grammar, pattern by
pattern, and generated lines try the shapes that could tell them apart.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_browser_tools.results.snapshot.tree import parse_snapshot

_LINE = re.compile(r'^(?P<indent>\s*)- (?P<role>[^\s"\[:]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?')


def _plain_reading(text: str) -> tuple[int, str, str, str | None, int | None]:
    match = _LINE.match(text)
    if match is None:
        return len(text[: len(text) - len(text.lstrip(" "))]) // 2, "", "", None, None
    name = re.sub(r"\\(.)", r"\1", match.group("name") or "")
    attrs = re.search(r"\[([^\[\]]*)\]", text[match.end() :])
    ref = level = None
    if attrs is not None:
        found = re.search(r"(?:^|[\s,])ref=(e\d+)\b", attrs.group(1))
        ref = found.group(1) if found else None
        found = re.search(r"(?:^|[\s,])level=(\d+)\b", attrs.group(1))
        level = int(found.group(1)) if found else None
    depth = len(match.group("indent").expandtabs(2)) // 2
    return depth, match.group("role"), name, ref, level


_PIECES = st.sampled_from(
    [
        "- ", "  ", "\t", "button", "heading", '"', '\\"', "\\\\", "[", "]", "ref=e12",
        "level=2", ", ", " ", ":", "name", "ref=e3]", "[checked=true, ref=e7]", "é", "\u00a0",
    ]
)  # fmt: skip


_NAME_CHARS = st.sampled_from(["a", " ", '"', '\\"', "\\\\", "[", "]", "ref=e4", ":", "é"])
_ATTR = st.sampled_from(["ref=e12", "level=2", "checked=true", "level=x", "xref=e9", "ref=e"])
_NODE = st.builds(
    lambda indent, role, name, attrs, tail: f"{indent}- {role}{name}{attrs}{tail}",
    st.sampled_from(["", "  ", "    ", "\t", " \t ", " "]),
    st.sampled_from(["button", "heading", "text:", "row"]),
    st.one_of(st.just(""), st.lists(_NAME_CHARS, max_size=5).map(lambda p: f' "{"".join(p)}"')),
    st.one_of(st.just(""), st.lists(_ATTR, max_size=3).map(lambda a: f" [{', '.join(a)}]")),
    st.sampled_from(["", ": text", " [ref=e99]", ":", "  "]),
)
_LINES = st.one_of(_NODE, st.lists(_PIECES, max_size=8).map("".join))


@settings(max_examples=500, deadline=None)
@given(st.lists(_LINES, min_size=1, max_size=12))
def test_every_line_reads_as_the_plain_grammar_says(raw_lines: list[str]) -> None:
    text = "\n".join(raw_lines)
    kept = [line.rstrip() for line in raw_lines if line.strip()]
    lines = parse_snapshot(text)
    assert [line.text for line in lines] == kept
    for line, raw in zip(lines, kept, strict=True):
        assert (line.depth, line.role, line.name, line.ref, line.level) == _plain_reading(raw)


def test_parents_follow_indentation() -> None:
    text = '- list "A"\n  - listitem "one" [ref=e1]\n    - link "x" [ref=e2]\n  - listitem "two"\n'
    lines = parse_snapshot(text)
    assert [line.parent for line in lines] == [None, 0, 1, 0]
    assert lines[2].ref == "e2" and lines[0].ref is None
