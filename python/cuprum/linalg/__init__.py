"""``cuprum.linalg``: NumPy's linear-algebra namespace, composed from cuprum's own
operations: products and norms (``norm``, ``matrix_power``, ``matrix_transpose``,
``matmul``, ``cross``), square solvers (``solve``, ``inv``, ``det``, ``slogdet``,
``tensorsolve``, ``tensorinv``: batched Gauss-Jordan elimination), factorizations
(``cholesky``, ``qr``: LAPACK's conventions), spectral functions (``svd``, ``eigh``,
``eigvalsh``, ``pinv``, ``lstsq``, ``matrix_rank``, ``cond``: one-sided Jacobi) and
general eigenproblems (``eig``, ``eigvals``: LAPACK on the host); ``LinAlgError`` is
NumPy's."""

from __future__ import annotations

from typing import Any as _Any

from cuprum._lazy import numpy as _numpy
from cuprum._linalg import linalg_cross as cross
from cuprum._linalg import linalg_diagonal as diagonal
from cuprum._linalg import linalg_matmul as matmul
from cuprum._linalg import linalg_outer as outer
from cuprum._linalg import linalg_tensordot as tensordot
from cuprum._linalg import linalg_trace as trace
from cuprum._linalg import (  # noqa: F401
    matrix_norm,
    matrix_power,
    matrix_transpose,
    multi_dot,
    norm,
    svdvals,
    vecdot,
    vector_norm,
)
from cuprum._linalg_eig import eig, eigvals  # noqa: F401
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

for _f, _name in (
    (cross, "cross"),
    (matmul, "matmul"),
    (diagonal, "diagonal"),
    (outer, "outer"),
    (tensordot, "tensordot"),
    (trace, "trace"),
):
    _f.__name__ = _f.__qualname__ = _name


def __getattr__(name: str) -> _Any:
    if name == "LinAlgError":
        return _numpy.linalg.LinAlgError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
