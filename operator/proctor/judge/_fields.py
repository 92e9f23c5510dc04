"""Reading a setting from either form a caller may pass: a mapping (camelCase or snake_case keys,
as in a manifest) or an object with attributes (the API's pydantic models, a dataclass)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def field(obj: Any, *names: str) -> Any:
    """The first of ``names`` that ``obj`` has, else None (also when ``obj`` is None)."""
    if obj is None:
        return None
    for name in names:
        if isinstance(obj, Mapping):
            if name in obj:
                return obj[name]
        elif hasattr(obj, name):
            return getattr(obj, name)
    return None
