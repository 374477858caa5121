"""Extract command paths from the engine's `--help` and its skills markdown, and check coverage.

This is how the taxonomy is kept honest across engine upgrades: a test parses the live engine's
`--help` (and a stored list from the skills reference) and fails, naming the commands, when a
path resolves to no table row. Parsing is purely syntactic and does not consult the table, so a
new upstream command cannot hide behind it; only `covered()` reads the table.

A "path" is the run of literal command words at the start of a usage line or example, after
global flags are removed: `network har stop`, `tab new`. Examples can leave operand words on the
end (`storage local key`, `find role button click`); `covered()` accepts those only when the
matched command has room for them as operands.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Iterator

from agent_browser_tools.taxonomy.lookup import all_commands, resolve_command, split_global_flags

Path = tuple[str, ...]

_WORD = re.compile(r"^[a-z][a-z0-9-]*$")
_ALTERNATIVES = re.compile(r"^[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)+$")
_SYNOPSIS_TOKEN = re.compile(r"\[[^\]]*\]|<[^>]*>|\S+")
_INVOCATION = re.compile(r"(?<![\w./-])agent-browser\s+(.*)")
_SHELL_STOP = frozenset({"&&", "||", "|", ";", ">", ">>", "<", "2>&1"})
_DESCRIPTION_GAP = re.compile(r"\S\s{2,}\S")
_HEADER = re.compile(r"^(?P<title>[^\s:][^:]*):(?P<rest>.*)$")
_GROUP_HEAD = re.compile(r"agent-browser\s+(?P<head>[a-z][a-z0-9-]*)\s+<")

# Help sections that list options, environment or prose, never commands.
_SKIPPED_SECTIONS = frozenset(
    {"Snapshot Options", "Authentication", "Options", "Configuration", "Environment", "Install"}
)


def _expand(prefix: Path, alternatives: list[str]) -> list[Path]:
    return [(*prefix, word) for word in alternatives if _WORD.match(word)]


def synopsis_paths(synopsis: str, prefix: Path = ()) -> list[Path]:
    """Paths named by one usage synopsis such as `har <start|stop> [path]`.

    Literal alternatives (`start|stop`, `<local|session>`, `[new|list|close|<n>]`) expand into
    one path each; a single placeholder (`<url>`, `[path]`) or a flag ends the path.
    """
    path = prefix
    for token in _SYNOPSIS_TOKEN.findall(synopsis):
        if _WORD.match(token):
            path = (*path, token)
            continue
        if _ALTERNATIVES.match(token):
            return _expand(path, token.split("|"))
        bracketed = token[:1] in "[<" and token[-1:] in "]>"
        choices = token[1:-1].split("|") if bracketed else []
        if len(choices) > 1 and any(_WORD.match(choice) for choice in choices):
            optional = token.startswith("[") or not all(_WORD.match(c) for c in choices)
            return ([path] if optional and path else []) + _expand(path, choices)
        break
    return [path] if path else []


def invocation_path(command_line: str) -> Path | None:
    """The command words of one concrete `agent-browser ...` invocation (argv after the name)."""
    text = command_line.split(" #", 1)[0]
    try:  # non-POSIX mode keeps quotes, so quoted operands never pass for command words
        tokens = shlex.split(text, posix=False)
    except ValueError:
        tokens = text.split()
    for index, token in enumerate(tokens):
        if token in _SHELL_STOP:
            tokens = tokens[:index]
            break
    words: list[str] = []
    for token in split_global_flags(tokens)[1]:
        if not _WORD.match(token):
            break
        words.append(token)
    return tuple(words) or None


def _invocations(line: str) -> Iterator[Path]:
    for match in _INVOCATION.finditer(line):
        path = invocation_path(match.group(1))
        if path is not None:
            yield path


def _synopsis_marked(body: str) -> bool:
    return any(mark in body for mark in ("<", "[", " --"))


def _prose(body: str) -> bool:
    """A wrapped sentence of a help paragraph: a synopsis never ends a sentence or a clause."""
    return body.endswith(".") or "; " in body


def help_command_paths(help_text: str) -> set[Path]:
    """Command paths listed by `agent-browser --help` (usage lines, group lists, examples)."""
    paths: set[Path] = set()
    section, head = "", ""
    for line in help_text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            header = _HEADER.match(line)
            section = header.group("title").strip() if header else ""
            group = _GROUP_HEAD.search(header.group("rest")) if header else None
            head = group.group("head") if group else ""
            continue
        if section in _SKIPPED_SECTIONS or line[2:3].isspace() or line.startswith("   "):
            continue
        body = line.strip()
        if body.startswith("agent-browser"):
            paths.update(_invocations(body))
        elif head:
            for item in _split_top_level(body):
                paths.update(synopsis_paths(item, (head,)))
        elif _DESCRIPTION_GAP.search(body) or (_synopsis_marked(body) and not _prose(body)):
            # A wrapped sentence that happens to name a flag is prose, not a synopsis.
            paths.update(synopsis_paths(re.split(r"\s{2,}", body, maxsplit=1)[0]))
    return paths


_SUBCOMMAND_SECTIONS = frozenset({"Subcommands", "Operations", "Settings"})


def command_help_paths(head: str, help_text: str) -> set[Path]:
    """Subcommand paths listed by `agent-browser <head> --help`.

    Entries of `Subcommands:` / `Operations:` / `Settings:` sections are read as synopses under
    `head`; when the help also has a `Types:` section (`storage <type> [operation]`), operations
    nest under each type. Output that is the generic top-level help yields nothing.
    """
    if help_text.lstrip().startswith("agent-browser - "):
        return set()
    entries: dict[str, list[str]] = {}
    section = ""
    for line in help_text.splitlines():
        if line and not line[0].isspace():
            section = line.split(":", 1)[0].strip() if line.rstrip().endswith(":") else ""
            continue
        if section and line.startswith("  ") and not line[2:3].isspace():
            synopsis = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
            words = synopsis.split(maxsplit=1)
            if words and words[0] == head:  # `diff snapshot` lists its own head again
                synopsis = words[1] if len(words) > 1 else ""
            entries.setdefault(section, []).append(synopsis)
    types = [(head, *path) for item in entries.get("Types", []) for path in synopsis_paths(item)]
    parents = types or [(head,)]
    paths: set[Path] = set(types)
    for name in _SUBCOMMAND_SECTIONS:
        for synopsis in entries.get(name, []):
            for parent in parents:
                paths.update(synopsis_paths(synopsis, parent) or [parent])
    return paths


def _split_top_level(text: str) -> list[str]:
    """Split a `text, html, attr <name>, ...` list on commas outside brackets."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        depth += (char in "[<") - (char in "]>")
        if char == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    items.append("".join(current))
    return [item.strip() for item in items if item.strip()]


def markdown_command_paths(markdown: str) -> set[Path]:
    """Command paths of every `agent-browser ...` invocation in fenced code or inline code."""
    paths: set[Path] = set()
    in_fence = False
    for line in markdown.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            if not stripped.startswith("#"):
                paths.update(_invocations(stripped))
            continue
        for span in re.findall(r"`([^`]+)`", line):
            paths.update(_invocations(span))
    return paths


def covered(path: Path) -> bool:
    """Whether the table accounts for `path`: it resolves to a row with room for any leftover
    words as operands, or it is the head of a group of rows (`network`, `get`)."""
    match = resolve_command(path)
    if match is not None:
        upper = match.spec.max_operands
        return upper is None or len(match.operands) <= upper
    return _is_group_head(path)


def _is_group_head(path: Path) -> bool:
    size = len(path)
    return any(
        len(candidate) > size and candidate[:size] == path
        for spec in all_commands()
        for candidate in (spec.path, *spec.aliases)
    )


def uncovered(paths: Iterable[Path]) -> list[Path]:
    """The paths the table does not account for, sorted."""
    return sorted(path for path in set(paths) if not covered(path))


def format_paths(paths: Iterable[Path]) -> str:
    """One space-joined path per line, sorted: the stored inventory format."""
    return "".join(" ".join(path) + "\n" for path in sorted(set(paths)))


def parse_paths(text: str) -> set[Path]:
    """Read `format_paths` output back; blank lines and `#` comments are ignored."""
    return {
        tuple(line.split())
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    }
