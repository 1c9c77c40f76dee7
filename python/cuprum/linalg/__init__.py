"""``cuprum.linalg``: NumPy's linear-algebra namespace, composed from cuprum's own
operations: products and norms (``norm``, ``matrix_power``, ``matrix_transpose``,
``matmul``, ``cross``), square solvers (``solve``, ``inv``, ``det``, ``slogdet``,
``tensorsolve``, ``tensorinv``: batched Gauss-Jordan elimination), factorizations
(``cholesky``, ``qr``: LAPACK's conventions), spectral functions (``svd``, ``eigh``,
``eigvalsh``, ``pinv``, ``lstsq``, ``matrix_rank``, ``cond``: one-sided Jacobi);
``LinAlgError`` is NumPy's. Non-Hermitian eigenproblems (``eig``, ``eigvals``) are not
there yet."""

from __future__ import annotations

from typing import Any as _Any

from cuprum._lazy import numpy as _numpy
from cuprum._linalg import linalg_cross as cross
from cuprum._linalg import linalg_matmul as matmul
from cuprum._linalg import matrix_power, matrix_transpose, norm  # noqa: F401
from cuprum._linalg_factor import cholesky, qr  # noqa: F401
from cuprum._linalg_solve import det, inv, slogdet, solve, tensorinv, tensorsolve  # noqa: F401
from cuprum._linalg_svd import (  # noqa: F401
    cond,
    eigh,
    eigvalsh,
    lstsq,
    matrix_rank,
    pinv,
    svd,
)

cross.__name__ = cross.__qualname__ = "cross"
matmul.__name__ = matmul.__qualname__ = "matmul"


def __getattr__(name: str) -> _Any:
    if name == "LinAlgError":
        return _numpy.linalg.LinAlgError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
