"""Rules read the taxonomy; they do not re-list command names (DESIGN.md "Shape of the code").

Why: a rule written as `plan.path == ("snapshot",)` outside `taxonomy/` is a second list of
commands that an engine upgrade or a new alias silently bypasses; the table should carry the
fact as a field instead. The check finds comparisons of a `path` (or a slice of one) with a
literal, outside `taxonomy/`. A failure names the file and the command words.
"""

from __future__ import annotations

from collections import Counter

from tests.architecture.checks import command_path_literals, source_graph

#: Literal comparisons on the tree today, counted per file and command. Removed as the table
#: gains the fields that say these facts (issue 13, change 7: `produces_refs`, `wrapper_flags`,
#: `selector_recovery`, `request_list`, `fetches_without_browser`) and the direct tool's rewrite.
KNOWN_PATH_LITERALS = Counter(
    {
        ("planning/argv_rules.py", "batch"): 1,
        ("planning/timeouts.py", "find"): 1,
        ("redaction.py", "batch"): 1,
        ("state/effects.py", "snapshot"): 2,
        ("state/stale_refs.py", "get url"): 1,
        ("tools/agent_browser/followups.py", "snapshot"): 1,
        ("tools/agent_browser/observe.py", "network requests"): 1,
        ("tools/agent_browser/observe.py", "read"): 1,
        ("tools/agent_browser/observe.py", "snapshot"): 1,
        ("tools/agent_browser/observe.py", "storage"): 1,
        ("tools/agent_browser/page/selector_miss.py", "find"): 1,
        ("tools/agent_browser/page/snapshot.py", "snapshot"): 2,
        ("tools/code/scope.py", "batch"): 1,
        ("tools/code/scope.py", "close"): 1,
    }
)


def test_no_new_command_path_literals_outside_the_taxonomy() -> None:
    new = command_path_literals(source_graph(), "taxonomy") - KNOWN_PATH_LITERALS
    assert not new, "compare a taxonomy field, not a command path literal:\n" + "\n".join(
        f"{path}: {words!r} x{count}" for (path, words), count in sorted(new.items())
    )


def test_known_command_path_literals_still_exist() -> None:
    """The allowance shrinks with the code: a literal that is gone must leave the list."""
    gone = KNOWN_PATH_LITERALS - command_path_literals(source_graph(), "taxonomy")
    assert not gone, f"lower or remove in KNOWN_PATH_LITERALS: {dict(gone)}"
