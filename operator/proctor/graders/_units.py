"""Whether two figures with units are one quantity: ``4 g`` and ``4000 mg``, ``6 bar`` and
``0.6 MPa`` (``pint``'s unit definitions, not a table of our own).

A figure an answer restates in another unit or notation is no guess when it equals a quantity
the question or the context states. The registry loads on first use (about a second), only when
two figures with different units are compared.
"""

from __future__ import annotations

import math
import re
import threading
from functools import cache, lru_cache
from typing import Any

#: Two magnitudes are one when they differ by less than this fraction.
RELATIVE_TOLERANCE = 1e-6
_lock = threading.Lock()


@cache
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


_POWER = re.compile(r"([^\W\d_])([23])(?!\d)")


@lru_cache(maxsize=1024)
def _unit(text: str) -> Any:
    """The pint unit ``text`` names, or None (a word that is no unit)."""
    if not text or not any(ch.isalpha() or ch in "%\u00b0\u00b5" for ch in text):
        return None
    # micro as the Greek letter (the canonical form's) is pint's "u" ("μg/l": "ug/l")
    text = text.replace("\u03bc", "u").replace("\u00b5", "u")
    # a power as the canonical text writes it ("m\u00b3" becomes "m3"): pint's "m**3"
    text = _POWER.sub(r"\1**\2", text)
    try:
        with _lock:
            return _registry().parse_units(text.strip())
    except Exception:  # pint raises several kinds for what is no unit
        return None


def is_unit(text: str) -> bool:
    """Whether ``text`` names a unit of measurement (``mg``, ``bar``), not a counted thing."""
    return _unit(text) is not None


def same_quantity(value: float, unit: str, other_value: float, other_unit: str) -> bool:
    """Whether ``value unit`` equals ``other_value other_unit`` once converted (False when either
    is no unit or they measure different things)."""
    a, b = _unit(unit), _unit(other_unit)
    if a is None or b is None:
        return False
    if _scaleless_degree(a, b) or _scaleless_degree(b, a):
        return math.isclose(value, other_value, rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-12)
    try:
        with _lock:
            converted = _registry().Quantity(value, a).to(b).magnitude
    except Exception:  # different dimensions
        return False
    return math.isclose(float(converted), other_value, rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-12)


def _scaleless_degree(unit: Any, other: Any) -> bool:
    """Whether ``unit`` is a degree with no scale (``12 Grad``, ``12 graus``: pint's angle) and
    ``other`` one of a temperature scale (``12 \u00b0C``): the same degrees as words say them."""
    with _lock:
        degree = _registry().degree
        return bool(unit == degree and other.dimensionality == _registry().kelvin.dimensionality)
