"""``cuprum.linalg``: NumPy's linear-algebra namespace, as far as cuprum composes it from
its own operations (``norm``, ``matrix_power``, ``matrix_transpose``, ``matmul``,
``cross``; ``LinAlgError`` is NumPy's). The factorizations and solvers (``solve``,
``inv``, ``det``, ``svd``, ``eigh``, ``qr``, ``cholesky``...) are not there yet."""

from __future__ import annotations

from typing import Any as _Any

from cuprum._lazy import numpy as _numpy
from cuprum._linalg import linalg_cross as cross
from cuprum._linalg import linalg_matmul as matmul
from cuprum._linalg import matrix_power, matrix_transpose, norm  # noqa: F401

cross.__name__ = cross.__qualname__ = "cross"
matmul.__name__ = matmul.__qualname__ = "matmul"


def __getattr__(name: str) -> _Any:
    if name == "LinAlgError":
        return _numpy.linalg.LinAlgError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
