"""Checking `serve --tools` and `--enable` names before anything starts.

Why: a misspelt allowlist used to start a server with no tools and no word, and nothing could
turn an advanced tool on at start-up. A name the server does not know now refuses the start
(exit 2) and lists the valid names.

Tool names are read from the stdio front's recorded declarations (`front_answers`, pure JSON,
kept in step with the catalog by `scripts/gen_stdio_front.py --check`), so checking them costs
the start no tool imports. Capability names come from the catalog itself, imported only when
`--enable` is given (and then the stdio front is skipped anyway, see `serve`).
"""

from __future__ import annotations

from agent_browser_tools.hosts.mcp.front_answers import load_data


class UnknownNames(ValueError):
    """Names a flag does not know; the message lists the valid ones."""


def parse_names(raw: str | None) -> tuple[str, ...]:
    """`a, b,,c` -> ("a", "b", "c") in order, without repeats."""
    if raw is None:
        return ()
    names = (name.strip() for name in raw.split(","))
    return tuple(dict.fromkeys(name for name in names if name))


def tool_names() -> tuple[str, ...]:
    """Every tool this release declares, in listing order."""
    return tuple(tool.name for tool in load_data().declared)


def capability_names() -> tuple[str, ...]:
    """The capabilities `--enable` (and `agent_browser_tools {"enable": [...]}`) take."""
    return tuple(capability_tools())


def capability_tools() -> dict[str, str]:
    """Capability -> the tool it turns on, in listing order."""
    from agent_browser_tools.tools.catalog import declared

    return {spec.capability: spec.name for spec in declared() if spec.capability}


def check_known(flag: str, names: tuple[str, ...], valid: tuple[str, ...]) -> None:
    """Raise `UnknownNames` when `names` holds one not in `valid`."""
    unknown = [name for name in names if name not in valid]
    if unknown:
        raise UnknownNames(
            f"{flag}: unknown name(s) {', '.join(unknown)}; valid names: {', '.join(valid)}."
        )


def check_enable(enable: tuple[str, ...], allowlist: frozenset[str] | None) -> None:
    """`--enable` names must be capabilities, and their tools inside the `--tools` allowlist
    (an excluded tool can never be enabled, so asking for both is a contradiction)."""
    if not enable:
        return
    check_known("--enable", enable, capability_names())
    tools = capability_tools()
    excluded = [name for name in enable if allowlist is not None and tools[name] not in allowlist]
    if excluded:
        wanted = ", ".join(tools[name] for name in excluded)
        raise UnknownNames(
            f"--enable {','.join(excluded)}: {wanted} is not in the --tools allowlist; add it "
            "to --tools or leave it out of --enable."
        )
