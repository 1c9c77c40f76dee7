"""``cuprum.exceptions``: NumPy's exception and warning classes, as CuPy's
``cupy.exceptions`` re-exports them (``except cuprum.exceptions.AxisError``)."""

from __future__ import annotations

try:
    from numpy.exceptions import (
        AxisError,
        ComplexWarning,
        ModuleDeprecationWarning,
        RankWarning,
        TooHardError,
        VisibleDeprecationWarning,
    )
except ImportError:  # NumPy < 1.25: the same classes at the top level
    from numpy import (  # type: ignore[attr-defined,no-redef]
        AxisError,
        ComplexWarning,
        ModuleDeprecationWarning,
        RankWarning,
        TooHardError,
        VisibleDeprecationWarning,
    )

__all__ = [
    "AxisError",
    "ComplexWarning",
    "ModuleDeprecationWarning",
    "RankWarning",
    "TooHardError",
    "VisibleDeprecationWarning",
]
