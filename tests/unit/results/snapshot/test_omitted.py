"""What a compact view of a dense page keeps reachable, on synthetic trees (issue 19 item 5):
row titles before navigation and filter links, every non-link control, prefix groups for
per-row checkboxes, and a "… N more not listed" line that says how to reach the rest."""

from __future__ import annotations

import re

from agent_browser_tools import playbook
from agent_browser_tools.results.snapshot.compaction import (
    SPILL_LINE_RESERVE,
    CompactSnapshot,
    compact_snapshot,
)
from agent_browser_tools.results.snapshot.controls import (
    collect_controls,
    coverage,
    group_controls,
)
from agent_browser_tools.results.snapshot.omitted import MAX_OMITTED_LINES, OMITTED_TITLE
from agent_browser_tools.results.snapshot.tree import named_lines
from agent_browser_tools.results.snapshot.views import split_snapshot_flags
from tests.unit.results.snapshot.dense_trees import changelist, filter_refs

BUDGET = 15_000


def in_view(result: CompactSnapshot) -> set[str]:
    return set(result.shown_ref_ids) | set(result.high_value_ref_ids)


def omitted_part(result: CompactSnapshot) -> list[str]:
    _, _, tail = result.text.partition(OMITTED_TITLE)
    return tail.splitlines()


def test_every_row_title_is_in_the_view_and_listed_before_filter_links() -> None:
    text, titles = changelist(100)
    result = compact_snapshot(text, {}, budget=BUDGET)
    assert result.compacted and len(result.text) <= BUDGET - SPILL_LINE_RESERVE
    assert set(titles.values()) <= in_view(result)
    listed = omitted_part(result)
    title_lines = [i for i, line in enumerate(listed) if any(t in line for t in titles)]
    filter_lines = [
        i for i, line in enumerate(listed) for r in filter_refs(text) if f"@{r} " in line
    ]
    assert title_lines, "some titles only fit in the list"
    assert not filter_lines or max(title_lines) < min(filter_lines)


def test_filter_links_give_their_place_to_titles_the_list_cannot_all_name() -> None:
    text, titles = changelist(300)
    result = compact_snapshot(text, {}, budget=BUDGET)
    assert not set(titles.values()) <= in_view(result), "300 titles cannot all fit"
    assert not set(filter_refs(text)) & in_view(result)
    assert 'navigation "Filter"' in result.text, "the section is still named in the outline"
    assert len(set(titles.values()) & in_view(result)) >= 100


def test_repeated_row_checkboxes_collapse_into_one_prefix_group() -> None:
    text, _ = changelist(48)
    groups = group_controls(collect_controls(*named_lines(text, {})))
    boxes = [g for g in groups if g.role == "checkbox"]
    assert [(g.pattern, len(g.members)) for g in boxes] == [
        ("select this object for an action - …", 48)
    ]
    result = compact_snapshot(text, {}, budget=BUDGET)
    lines = [line for line in omitted_part(result) if " checkbox " in line]
    assert len(lines) == 1 and '"select this object for an action - …" checkbox refs' in lines[0]
    assert coverage(groups, in_view(result), roles={"checkbox"}).complete


def test_prefix_groups_need_eight_members_and_never_take_fields() -> None:
    few = [f'- checkbox "Notify me about {w}" [ref=e{i}]' for i, w in enumerate("abcde", 1)]
    fields = [
        f'- textbox "Shipping address line {w}" [ref=e{i}]' for i, w in enumerate("abcdefghij", 10)
    ]
    groups = group_controls(collect_controls(*named_lines("\n".join(few + fields), {})))
    assert len(groups) == 15, [g.pattern for g in groups]


def test_every_non_link_control_is_listed_past_the_shared_line_cap() -> None:
    words = [f"{a}{b}" for a in "bcdfgklmnp" for b in "aeiou"]  # 50 distinct names
    fields = [f'- textbox "Field {w}" [ref=e{i}]' for i, w in enumerate(words, 1)]
    links = [
        f'- link "Topic {w} {x}" [ref=e{100 + i * 10 + j}]'
        for i, w in enumerate(words)
        for j, x in enumerate("xyz")
    ]
    text = "\n".join(['- heading "Links" [level=1, ref=e99]', *links, *fields])
    result = compact_snapshot(text, {}, budget=6_000)
    assert len(fields) > MAX_OMITTED_LINES
    assert {f"e{i}" for i in range(1, 51)} <= in_view(result)
    assert result.unlisted_control_count > 0, "links pay for it"


def test_the_more_line_names_the_flags_that_reach_what_it_left_out() -> None:
    links = [f'- link "Topic {chr(65 + i % 26)}{i}x" [ref=e{i}]' for i in range(1, 400)]
    result = compact_snapshot("\n".join(links), {}, budget=3_000)
    (more,) = [line for line in result.text.splitlines() if " more not listed " in line]
    assert re.fullmatch(r"… \d+ more not listed \(link \d+\); .+", more)
    for flag in ("snapshot -i --search <name>", "--search-exact <name>", "--filter role=link"):
        assert flag in more, flag


def test_every_command_the_more_line_suggests_is_one_the_snapshot_parser_accepts() -> None:
    """Drift guard: the hint lives in `playbook`, the flags in `views`; both must agree."""
    hint = playbook.UNLISTED_REFS_HINT.format(role="link")
    commands = re.findall(r"snapshot -i [^,()]+", hint)
    commands += [f"snapshot -i {flag}" for flag in re.findall(r"--search-exact <name>", hint)]
    assert len(commands) == 3, commands
    for command in commands:
        clean, flags = split_snapshot_flags(command.replace("<name>", "in").split())
        assert clean == ["snapshot", "-i"] and flags.any, command
        assert flags.exact == ("--search-exact" in command)
