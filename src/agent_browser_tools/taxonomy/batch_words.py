"""How engine 0.39.4 splits a `batch` row given as one argument string (pure).

Every rule that reads batch rows (policy, file roots, refs, redaction) must see the words the
engine will run, or a row written to split one way for the wrapper and another for the engine
slips past them (`"\\g"et cdp-url` is `\\get` to `shlex` and `get` to the engine).
"""

from __future__ import annotations


def batch_row_words(row: str) -> tuple[str, ...]:
    """A batch argument row split the way engine 0.39.4 splits it (not `shlex`): only a space
    separates words (a tab does not), a backslash outside single quotes keeps the next
    character (inside double quotes too), quotes toggle, and empty words vanish."""
    words: list[str] = []
    current: list[str] = []
    in_double = in_single = False
    chars = iter(row)
    for char in chars:
        if char == "\\" and not in_single:
            following = next(chars, None)
            if following is not None:
                current.append(following)
        elif char == '"' and not in_single:
            in_double = not in_double
        elif char == "'" and not in_double:
            in_single = not in_single
        elif char == " " and not in_double and not in_single:
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(char)
    if current:
        words.append("".join(current))
    return tuple(words)


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-")


def join_batch_row(words: tuple[str, ...] | list[str]) -> str:
    """Words as one batch argument row that `batch_row_words` (and the engine) split back into
    exactly these words: plain words as they are, others in single quotes (a `'` as
    `'"'"'`). An empty word cannot be written: the engine drops it."""
    if any(word == "" for word in words):
        raise ValueError("an empty word does not survive the engine's batch-row split")
    return " ".join(
        word if set(word) <= _PLAIN else "'" + word.replace("'", "'\"'\"'") + "'" for word in words
    )
