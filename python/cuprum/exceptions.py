"""``cuprum.exceptions``: NumPy's exception and warning classes, as CuPy's
``cupy.exceptions`` re-exports them (``except cuprum.exceptions.AxisError``).

They are NumPy's own classes, looked up at first use (``import cuprum`` does not import
NumPy; see ``cuprum._lazy``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "AxisError",
    "ComplexWarning",
    "ModuleDeprecationWarning",
    "RankWarning",
    "TooHardError",
    "VisibleDeprecationWarning",
]

if TYPE_CHECKING:
    from numpy.exceptions import (
        AxisError,
        ComplexWarning,
        ModuleDeprecationWarning,
        RankWarning,
        TooHardError,
        VisibleDeprecationWarning,
    )


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        from numpy import exceptions as where
    except ImportError:  # NumPy < 1.25: the same classes at the top level
        import numpy as where
    value = getattr(where, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
