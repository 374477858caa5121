"""How a row of the command taxonomy is spelled: `command_row` and its short keywords.

Why: the table (`commands.py`) stays readable with one short call per command; this module
turns those keywords into `CommandSpec` fields (`args="<selector> <text>"` into the operand
counts and names, `flags="--output/-o="` into `LocalFlag`s). Pure.
"""

from __future__ import annotations

from typing import Any

from agent_browser_tools.taxonomy.spec import ArtifactSlot, CommandSpec, LocalFlag, RefSlots
from agent_browser_tools.taxonomy.usage import operand_shape
from agent_browser_tools.taxonomy.vocabulary import (
    FlagValue,
    PageEffect,
    SessionNeed,
    TimeoutFamily,
)

__all__ = ["command_row", "local_flag", "path_words"]


def local_flag(spec: str) -> LocalFlag:
    """`--name/-n`, then `=` value, `?` optional value, `!` secret value, `^` the command's
    though a global flag has its name, `@0.41.2` the release it came in."""
    spec, _, since = spec.partition("@")
    shadows, spec = spec.endswith("^"), spec.rstrip("^")
    sensitive, spec = spec.endswith("!"), spec.rstrip("!")
    value = FlagValue.NONE
    if spec.endswith("="):
        value = FlagValue.REQUIRED
    elif spec.endswith("?"):
        value = FlagValue.OPTIONAL
    name, _, short = spec.rstrip("=?").partition("/")
    return LocalFlag(name, short or None, value, sensitive, since or None, shadows)


def path_words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _operands(spelling: str) -> dict[str, Any]:
    """The operand fields of a row from its usage spelling (`taxonomy.usage`)."""
    low, high, names = operand_shape(spelling)
    return {"min_operands": low, "max_operands": high, "operand_names": names}


def command_row(
    path: str,
    summary: str,
    *,
    session: SessionNeed = SessionNeed.BROWSER,
    refs: tuple[int, ...] = (),
    guard: bool = False,
    latch: bool = False,
    exempt: str = "",
    latch_min: int = 0,
    effect: PageEffect = PageEffect.NONE,
    nav: bool = False,
    probe: bool = False,
    change: bool = False,
    artifacts: tuple[ArtifactSlot, ...] = (),
    timeout: TimeoutFamily = TimeoutFamily.DEFAULT,
    timeout_flag: str | None = None,
    duration: int | None = None,
    stop: str | None = None,
    ro: bool = False,
    stdin: str | None = None,
    stdin_always: bool = False,
    aliases: tuple[str, ...] = (),
    args: str = "",
    flags: str = "",
    secret: tuple[int, ...] = (),
    synthetic: bool = False,
    cli: bool = True,
    **columns: Any,
) -> CommandSpec:
    return CommandSpec(
        path=path_words(path),
        summary=summary,
        session=session,
        ref_slots=RefSlots(refs),
        guards_refs=guard,
        invalidates_batch_refs=latch,
        latch_exempt_roles=frozenset(exempt.split()),
        latch_min_operands=latch_min,
        page_effect=effect,
        navigation_summary=nav,
        failure_probe=probe,
        page_change_summary=change,
        artifacts=artifacts,
        timeout_family=timeout,
        timeout_flag=timeout_flag,
        duration_operand=duration,
        paired_stop=path_words(stop) if stop else None,
        read_only=ro,
        stdin_flag=stdin,
        stdin_without_flag=stdin_always,
        aliases=tuple(path_words(alias) for alias in aliases),
        **_operands(args),
        flags=tuple(local_flag(spec) for spec in flags.split()),
        sensitive_operands=secret,
        synthetic=synthetic,
        cli_available=cli,
        **columns,
    )
