"""An ordered string enum, for scales that status writes as words but code compares by rank."""

from __future__ import annotations

from enum import StrEnum
from typing import Self


class RankedStrEnum(StrEnum):
    """A string enum whose members compare by declaration order, not alphabetically.

    A plain ``StrEnum`` would order ``"critical" < "high"`` lexically, which is exactly wrong for a
    severity scale; ``max()`` of members would silently pick the wrong one.
    """

    @property
    def rank(self) -> int:
        return list(type(self)).index(self)

    def raised(self, steps: int = 1) -> Self:
        """The member ``steps`` above this one, capped at the top of the scale."""
        members = list(type(self))
        return members[min(self.rank + steps, len(members) - 1)]

    def _ranks(self, other: object) -> tuple[int, int]:
        # Refuse plain strings: Python would fall back to str's comparison, alphabetically.
        if not isinstance(other, type(self)):
            raise TypeError(f"cannot order {type(self).__name__} against {type(other).__name__}")
        return self.rank, other.rank

    def __lt__(self, other: str) -> bool:
        mine, theirs = self._ranks(other)
        return mine < theirs

    def __le__(self, other: str) -> bool:
        mine, theirs = self._ranks(other)
        return mine <= theirs

    def __gt__(self, other: str) -> bool:
        mine, theirs = self._ranks(other)
        return mine > theirs

    def __ge__(self, other: str) -> bool:
        mine, theirs = self._ranks(other)
        return mine >= theirs
