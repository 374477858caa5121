"""One remembered value, made from the objects it was last asked for (pure).

Why: a dense page's ref map holds thousands of refs, and several stages of one answer (and
every call until the next snapshot) ask for the same thing derived from it: its table, its
dump, its renamed ids. Each keeps the last value it made, keyed by the identity of the
(immutable) objects it came from. The slot is one tuple, read once and replaced whole, so
two threads asking at once can only make the value twice, never get another key's value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class LastMade(Generic[T]):
    """The value made for the last keys seen (compared by identity)."""

    def __init__(self) -> None:
        self._slot: tuple[tuple[object, ...], T] | None = None

    def get(self, keys: tuple[object, ...]) -> T | None:
        """The value kept for exactly these objects, else None."""
        slot = self._slot
        if slot is None or len(slot[0]) != len(keys):
            return None
        if all(kept is key for kept, key in zip(slot[0], keys, strict=True)):
            return slot[1]
        return None

    def put(self, keys: tuple[object, ...], value: T) -> T:
        """Keep `value` for `keys` (the objects stay alive while kept); returns it."""
        self._slot = (keys, value)
        return value

    def get_or_make(self, keys: tuple[object, ...], make: Callable[[], T]) -> T:
        found = self.get(keys)
        return found if found is not None else self.put(keys, make())
