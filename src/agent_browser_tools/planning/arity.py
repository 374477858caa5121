"""Operand counts checked before dispatch, from the taxonomy's usage of each command.

Why: the engine takes a call with an operand missing or too many as something else: `fill @e6`
fills the field with nothing and reports success, `click @e1 extra` drops the word, `fill @e1
two words` joins them (so the text the wrapper judges is not the text typed). A call whose
operand count the command's usage does not allow is refused before any engine process
starts, naming that usage (`taxonomy.usage`, from the same row that gives the counts). Batch
rows are checked the same way, each named by its row number.
"""

from __future__ import annotations

from agent_browser_tools import taxonomy
from agent_browser_tools.planning.argv_rules import ArgvRejected, CheckedArgv
from agent_browser_tools.taxonomy import CommandMatch
from agent_browser_tools.taxonomy.usage import extra_operands, missing_operands, usage

__all__ = ["arity_problem", "check_arity"]


def check_arity(checked: CheckedArgv) -> None:
    """Raise `ArgvRejected` for the first call or batch row whose operand count is wrong."""
    if checked.inspection:
        return
    problem = arity_problem(checked.match)
    if problem is None and checked.batch is not None:
        for index, row in enumerate(checked.batch.rows, start=1):
            _globals, tokens = taxonomy.split_global_flags(row)
            found = arity_problem(taxonomy.resolve_command(tokens) if tokens else None)
            if found is not None:
                problem = f"batch row {index}: {found}"
                break
    if problem is not None:
        raise ArgvRejected(problem)


def arity_problem(match: CommandMatch | None) -> str | None:
    """What is wrong with the call's operand count, else None.

    Unknown commands and flags are the allowlist's (`known_surface`): with an unknown flag
    the operands cannot be told apart from its value, so they are not counted here."""
    if match is None or match.unknown_flags or match.missing_values:
        return None
    spec = match.spec
    name = " ".join(spec.path[:-1] if spec.synthetic else spec.path)
    shown = f"Usage: `{usage(spec)}`."
    missing = missing_operands(match)
    if missing:
        return f"`{name}` needs {' and '.join(missing)}, so nothing ran. {shown}"
    extra = extra_operands(match)
    if not extra:
        return None
    most = spec.max_operands or 0
    takes = f"at most {most} operand{'s' if most != 1 else ''}" if most else "no operands"
    typed = spec.field_value is not None and spec.field_value.text is not None
    spaces = " A text with spaces is one args item." if typed else ""
    return (
        f"`{name}` takes {takes} but got {len(match.operands)}, so nothing ran (the engine "
        f"would drop or join the extra words). {shown}{spaces}"
    )
