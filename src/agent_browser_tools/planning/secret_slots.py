"""Where an operator secret may be used by name (pure).

`{{secret:NAME}}` is resolved just before the engine runs and scrubbed from everything that
comes back, but scrubbing only finds the value as written: script that reverses or encodes it
(`eval`, `wait --fn`) or a URL that carries it elsewhere would show or send it. So a placeholder
is accepted only where a value is typed or set as a credential: the text of `fill`, `type`,
`keyboard type|inserttext`, the secret operands of `set credentials|headers`, `cookies set`,
`storage * set`, `clipboard write`, `auth save --password` (or its stdin) and the global
`--headers`. A page can still read what is typed into it; that is the README's stated limit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from agent_browser_tools.planning.argv_rules import CheckedArgv
from agent_browser_tools.planning.policy import PolicyBlocked, calls_of
from agent_browser_tools.taxonomy import CommandMatch, FieldEdit

MARK = "{{secret:"
CREDENTIAL_FLAGS = frozenset({"--password"})
CREDENTIAL_GLOBALS = frozenset({"--headers"})


def _value_slots(match: CommandMatch | None) -> list[str]:
    if match is None:
        return []
    spec, operands = match.spec, match.operands
    indexes = list(spec.sensitive_operands)
    field = spec.field_value
    # A key name (`press`) is not a value: a secret there would only reach an error message.
    if field is not None and field.text is not None and field.edit is not FieldEdit.KEY:
        indexes.append(field.text)
    values = [operands[i] for i in indexes if i < len(operands)]
    values += [v for name, v in match.flags if name in CREDENTIAL_FLAGS and v is not None]
    return values


def _marked(tokens: Iterable[str | None]) -> Counter[str]:
    return Counter(t for t in tokens if t is not None and MARK in t)


def check_secret_slots(checked: CheckedArgv) -> None:
    """Raise `PolicyBlocked` for a `{{secret:NAME}}` outside a value slot."""
    if not any(MARK in token for token in checked.caller_args) and MARK not in (
        checked.stdin or ""
    ):
        return
    rows = set(checked.batch.raw) if checked.batch is not None else set()
    for where, globals_, match in calls_of(checked):
        words: list[str] = []
        if match is not None:
            words = [*match.tokens, *match.operands, *(v for _n, v in match.flags if v)]
        if not where:  # the call itself: its batch row strings are judged as rows
            words = [w for w in words if w not in rows]
        used = _marked([*(v for _n, v in globals_), *words])
        allowed = _marked(
            [*_value_slots(match), *(v for n, v in globals_ if n in CREDENTIAL_GLOBALS)]
        )
        if used - allowed:
            _refuse(where, next(iter(used - allowed)))
    if checked.batch is None and checked.match is not None and checked.match.reads_stdin:
        password_stdin = checked.match.has_flag("--password-stdin")
        if MARK in (checked.stdin or "") and not password_stdin:
            _refuse("", "stdin")


def _refuse(where: str, token: str) -> None:
    raise PolicyBlocked(
        f"{where}a {{{{secret:NAME}}}} placeholder may only be typed into a field or set as a "
        "credential (fill/type/keyboard text, set credentials/headers, cookies set, storage "
        "set, auth save --password); in script, URLs or other arguments its value could come "
        f"back transformed or be sent elsewhere. Refused: {token[:80]!r}.",
        rule="secret-slot",
        subject=token[:80],
        allow_with=None,
    )
