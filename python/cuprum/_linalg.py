"""NumPy's products and norms, composed from cuprum's operations (``matmul`` on
transposed and reshaped operands, reductions, element-wise arithmetic): ``dot`` of any
dimensions, ``tensordot``, ``inner``, ``vdot``, ``kron``, ``cross``, and
``cuprum.linalg``'s ``norm``, ``matrix_power``, ``matrix_transpose``, ``matmul`` and
``cross``."""

from __future__ import annotations

import operator

import cuprum
from cuprum import _cuprum
from cuprum._lazy import numpy


def _shape_str(shape):
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _not_aligned(sa, sb, ia, ib):
    return ValueError(
        f"shapes {_shape_str(sa)} and {_shape_str(sb)} not aligned: {sa[ia]} (dim {ia}) "
        f"!= {sb[ib]} (dim {ib})"
    )


def _contract(a, b, axes_a, axes_b):
    """``a`` and ``b`` summed over the pairs of axes ``axes_a``/``axes_b`` (normalised,
    equal extents): the free axes of ``a`` then those of ``b``, by one ``matmul``."""
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    ka = 1
    for i in axes_a:
        ka *= a.shape[i]
    ma = 1
    for i in free_a:
        ma *= a.shape[i]
    nb = 1
    for i in free_b:
        nb *= b.shape[i]
    at = a.transpose(free_a + list(axes_a)).reshape(ma, ka)
    bt = b.transpose(list(axes_b) + free_b).reshape(ka, nb)
    shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    return cuprum.matmul(at, bt).reshape(shape)


def _check_out(r, out):
    """``r`` written to ``out``: NumPy's ``dot`` takes only a C-contiguous ``out`` of the
    result's exact dtype and shape."""
    if out is None:
        return r
    if out.ndim != r.ndim or out.shape != r.shape:
        raise ValueError("output array has wrong dimensions")
    if out.dtype != r.dtype or not out.flags.c_contiguous:
        raise ValueError(
            "output array is not acceptable (must have the right datatype, number of "
            "dimensions, and be a C-Array)"
        )
    out[...] = r
    return out


def dot(a, b, out=None):
    """The dot product (NumPy's ``dot``): a product with a 0-d operand, the inner product
    of 1-D arrays, the matrix product of 2-D arrays, and for N-D arrays the sum over the
    last axis of ``a`` and the second-to-last of ``b``; ``out`` must be C-contiguous, of
    the result's dtype and shape."""
    a, b = cuprum.asarray(a), cuprum.asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        r = cuprum.multiply(a, b)
    elif a.ndim <= 2 and b.ndim <= 2:
        r = _cuprum.dot(a, b)
    else:
        ib = max(b.ndim - 2, 0)
        if a.shape[-1] != b.shape[ib]:
            raise _not_aligned(a.shape, b.shape, a.ndim - 1, ib)
        dt = numpy.result_type(a.dtype, b.dtype)
        r = _contract(a.astype(dt, copy=False), b.astype(dt, copy=False), [a.ndim - 1], [ib])
    return _check_out(r, out)


def tensordot(a, b, axes=2):
    """The sum of products over ``axes`` (NumPy's ``tensordot``): an int ``N`` (the last
    ``N`` axes of ``a`` with the first ``N`` of ``b``) or a pair of axis sequences."""
    a, b = cuprum.asarray(a), cuprum.asarray(b)
    try:
        axes_a, axes_b = axes
    except TypeError:
        n = operator.index(axes)
        axes_a = list(range(a.ndim - n, a.ndim)) if n > 0 else []
        axes_b = list(range(n)) if n > 0 else []
    if isinstance(axes_a, int) or not hasattr(axes_a, "__len__"):
        axes_a = [axes_a]
    if isinstance(axes_b, int) or not hasattr(axes_b, "__len__"):
        axes_b = [axes_b]
    axes_a = [operator.index(i) for i in axes_a]
    axes_b = [operator.index(i) for i in axes_b]
    if len(axes_a) != len(axes_b):
        raise ValueError("shape-mismatch for sum")
    axes_a = [i + a.ndim if i < 0 else i for i in axes_a]
    axes_b = [i + b.ndim if i < 0 else i for i in axes_b]
    for i, j in zip(axes_a, axes_b):
        if not (0 <= i < a.ndim and 0 <= j < b.ndim) or a.shape[i] != b.shape[j]:
            raise ValueError("shape-mismatch for sum")
    dt = numpy.result_type(a.dtype, b.dtype)
    return _contract(a.astype(dt, copy=False), b.astype(dt, copy=False), axes_a, axes_b)


def inner(a, b):
    """The inner product over the last axes (NumPy's ``inner``; a product with a 0-d
    operand)."""
    a, b = cuprum.asarray(a), cuprum.asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return cuprum.multiply(a, b)
    if a.shape[-1] != b.shape[-1]:
        sb = b.shape[:-2] + b.shape[-1:] + b.shape[-2:-1] if b.ndim > 1 else b.shape
        raise _not_aligned(a.shape, sb, a.ndim - 1, max(b.ndim - 2, 0))
    dt = numpy.result_type(a.dtype, b.dtype)
    return _contract(a.astype(dt, copy=False), b.astype(dt, copy=False), [a.ndim - 1], [b.ndim - 1])


def vdot(a, b):
    """The dot product of the flattened arrays, ``a`` conjugated (NumPy's ``vdot``): a
    0-d array."""
    a, b = cuprum.asarray(a).ravel(), cuprum.asarray(b).ravel()
    if a.size != b.size:
        raise ValueError("vectors have different lengths")
    if a.dtype.kind == "c":
        a = a.conj()
    return _cuprum.dot(a, b)


def kron(a, b):
    """The Kronecker product: blocks of ``b`` scaled by each element of ``a`` (NumPy's
    ``kron``; the lower-dimensional operand gets leading axes of one)."""
    a, b = cuprum.asarray(a), cuprum.asarray(b)
    nd = max(a.ndim, b.ndim)
    if nd == 0:
        return cuprum.multiply(a, b)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    ea = sum(((n, 1) for n in sa), ())
    eb = sum(((1, n) for n in sb), ())
    r = cuprum.multiply(a.reshape(ea), b.reshape(eb))
    return r.reshape(tuple(x * y for x, y in zip(sa, sb)))


def _norm_axis(axis, ndim, name):
    if not -ndim <= axis < ndim:
        raise cuprum.AxisError(axis, ndim, name)
    return axis + ndim if axis < 0 else axis


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-element (or, deprecated, 2-element) vectors along the
    given axes (NumPy's ``cross``)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = cuprum.asarray(a), cuprum.asarray(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    a = cuprum.moveaxis(a, _norm_axis(axisa, a.ndim, "axisa"), -1)
    b = cuprum.moveaxis(b, _norm_axis(axisb, b.ndim, "axisb"), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if na == 2 or nb == 2:
        import warnings

        warnings.warn(
            "Arrays of 2-dimensional vectors are deprecated. Use arrays of "
            "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
            DeprecationWarning,
            stacklevel=2,
        )
    dt = numpy.promote_types(a.dtype, b.dtype)
    a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    if na == 2 and nb == 2:
        return a0 * b1 - a1 * b0
    if na == 2:
        b2 = b[..., 2]
        parts = (a1 * b2, -(a0 * b2), a0 * b1 - a1 * b0)
    elif nb == 2:
        a2 = a[..., 2]
        parts = (-(a2 * b1), a2 * b0, a0 * b1 - a1 * b0)
    else:
        a2, b2 = a[..., 2], b[..., 2]
        parts = (a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0)
    r = cuprum.stack([p.astype(dt, copy=False) for p in parts], axis=-1)
    return cuprum.moveaxis(r, -1, _norm_axis(axisc, r.ndim, "axisc"))


# ---------------------------------------------------------------------------- linalg


def _linalg_error(msg):
    return numpy.linalg.LinAlgError(msg)


def matrix_power(a, n):
    """The square matrix (or stack of them) ``a`` to the integer power ``n`` (by
    repeated squaring, as NumPy multiplies; ``n = 0`` gives identities, ``n < 0`` powers
    of the inverse)."""
    a = cuprum.asarray(a)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if a.ndim < 2:
        raise _linalg_error(
            f"{a.ndim}-dimensional array given. Array must be at least two-dimensional"
        )
    if a.shape[-1] != a.shape[-2]:
        raise _linalg_error("Last 2 dimensions of the array must be square")
    if n == 0:
        out = cuprum.empty(a.shape, dtype=a.dtype)
        out[...] = cuprum.eye(a.shape[-1], dtype=a.dtype)
        return out
    if n < 0:
        from cuprum._linalg_solve import inv

        a, n = inv(a), -n
    if n == 1:
        return a
    if n == 2:
        return cuprum.matmul(a, a)
    if n == 3:
        return cuprum.matmul(cuprum.matmul(a, a), a)
    z = result = None
    while n > 0:
        z = a if z is None else cuprum.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else cuprum.matmul(result, z)
    return result


def matrix_transpose(x, /):
    """The stack of matrices ``x`` with its last two axes swapped (the array API's
    ``matrix_transpose``)."""
    x = cuprum.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return x.swapaxes(-1, -2)


def linalg_matmul(x1, x2, /):
    """The matrix product (the array API's ``linalg.matmul``)."""
    return cuprum.matmul(x1, x2)


def linalg_cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-element vectors along ``axis`` (the array API's
    ``linalg.cross``)."""
    x1, x2 = cuprum.asarray(x1), cuprum.asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, but they are "
            f"{x1.shape[axis]} and {x2.shape[axis]} dimensional instead."
        )
    return cross(x1, x2, axis=axis)


def _sq_sum(x, axis, keepdims=False):
    """The sum of ``|x|**2`` over ``axis``, in ``x``'s real dtype."""
    sq = (x.real * x.real + x.imag * x.imag) if x.dtype.kind == "c" else x * x
    return cuprum.sum(sq, axis=axis, keepdims=keepdims)


def norm(x, ord=None, axis=None, keepdims=False):
    """A vector or matrix norm (NumPy's ``linalg.norm``): vector orders ``inf``,
    ``-inf``, ``0``, ``1``, ``2`` and any other number; matrix orders ``'fro'``, ``1``,
    ``-1``, ``inf``, ``-inf``, ``2``, ``-2`` and ``'nuc'`` (the last three from singular
    values)."""
    x = cuprum.asarray(x)
    if x.dtype.kind not in "fc":
        x = x.astype(numpy.float64)
    if axis is None:
        nd = x.ndim
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            r = cuprum.sqrt(_sq_sum(x.ravel(), None))
            return r.reshape((1,) * nd) if keepdims else r
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = (int(axis),)  # NumPy's: a float axis is truncated
        except Exception as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
    if len(axis) == 1:
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        inf = float("inf")
        if ord == inf:
            return cuprum.max(abs(x), axis=axis, keepdims=keepdims)
        if ord == -inf:
            return cuprum.min(abs(x), axis=axis, keepdims=keepdims)
        if ord == 0:
            nz = (x != 0).astype(x.real.dtype)
            return cuprum.sum(nz, axis=axis, keepdims=keepdims)
        if ord == 1:
            return cuprum.sum(abs(x), axis=axis, keepdims=keepdims)
        if ord is None or ord == 2:
            return cuprum.sqrt(_sq_sum(x, axis, keepdims))
        try:
            float(ord)
        except TypeError:
            raise ValueError("Invalid norm order for vectors.") from None
        absx = abs(x)
        r = cuprum.sum(absx**ord, axis=axis, keepdims=keepdims)
        return r ** numpy.reciprocal(numpy.asarray(ord, dtype=r.dtype))[()]
    if len(axis) == 2:
        row, col = (_norm_axis(i, x.ndim, None) for i in axis)
        if row == col:
            raise ValueError("Duplicate axes given.")
        inf = float("inf")
        if ord in (2, -2, "nuc"):
            from cuprum._linalg_svd import svd

            sv = svd(cuprum.moveaxis(x, (row, col), (-2, -1)), compute_uv=False)
            if ord == "nuc":
                r = cuprum.sum(sv, axis=-1)
            else:
                r = cuprum.max(sv, axis=-1) if ord == 2 else cuprum.min(sv, axis=-1)
        elif ord in (1, -1):
            c = col - 1 if col > row else col
            s = cuprum.sum(abs(x), axis=row)
            r = cuprum.max(s, axis=c) if ord == 1 else cuprum.min(s, axis=c)
        elif ord in (inf, -inf):
            rr = row - 1 if row > col else row
            s = cuprum.sum(abs(x), axis=col)
            r = cuprum.max(s, axis=rr) if ord == inf else cuprum.min(s, axis=rr)
        elif ord in (None, "fro", "f"):
            r = cuprum.sqrt(_sq_sum(x, axis))
        else:
            raise ValueError("Invalid norm order for matrices.")
        if keepdims:
            shape = list(x.shape)
            shape[row] = shape[col] = 1
            r = r.reshape(shape)
        return r
    raise ValueError("Improper number of dimensions to norm.")


# ------------------------------------------------------------- the array API's linalg


def linalg_diagonal(x, /, *, offset=0):
    """The diagonals of the last two axes (the array API's ``linalg.diagonal``)."""
    return cuprum.diagonal(cuprum.asarray(x), offset, axis1=-2, axis2=-1)


def linalg_trace(x, /, *, offset=0, dtype=None):
    """The traces of the last two axes (the array API's ``linalg.trace``)."""
    return cuprum.trace(cuprum.asarray(x), offset, axis1=-2, axis2=-1, dtype=dtype)


def linalg_outer(x1, x2, /):
    """The outer product of two vectors (the array API's ``linalg.outer``)."""
    x1, x2 = cuprum.asarray(x1), cuprum.asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(
            f"Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim} and "
            f"x2.ndim={x2.ndim}."
        )
    return cuprum.outer(x1, x2)


def linalg_tensordot(x1, x2, /, *, axes=2):
    """``tensordot`` (the array API's ``linalg.tensordot``)."""
    return tensordot(x1, x2, axes=axes)


def vecdot(x1, x2, /, *, axis=-1):
    """The dot products of the vectors along ``axis``, the first conjugated (the array
    API's ``linalg.vecdot``)."""
    x1, x2 = cuprum.asarray(x1), cuprum.asarray(x2)
    return cuprum.sum(cuprum.conj(x1) * x2, axis=axis)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The norm of the matrices in the last two axes (the array API's
    ``linalg.matrix_norm``)."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The norm of the vectors along ``axis`` (every axis by default, or a tuple of them,
    taken as one vector: the array API's ``linalg.vector_norm``)."""
    x = cuprum.asarray(x)
    nd = x.ndim
    axes = tuple(range(nd)) if axis is None else (axis,) if isinstance(axis, int) else axis
    axes = tuple(_norm_axis(a, nd, "axis") for a in axes)
    rest = [d for d in range(nd) if d not in axes]
    flat = cuprum.moveaxis(x, axes, tuple(range(nd - len(axes), nd)))
    flat = flat.reshape(tuple(x.shape[d] for d in rest) + (-1,))
    r = norm(flat, ord=ord, axis=-1)
    if keepdims:
        r = r.reshape(tuple(1 if d in axes else x.shape[d] for d in range(nd)))
    return r


def svdvals(x, /):
    """The singular values of the matrices in the last two axes, descending (the array
    API's ``linalg.svdvals``)."""
    from cuprum._linalg_svd import svd

    return svd(x, compute_uv=False)


def multi_dot(arrays, *, out=None):
    """The product of a chain of matrices (a 1-D first one a row, a 1-D last one a
    column), multiplied in the order that costs the fewest scalar products (NumPy's
    ``linalg.multi_dot``)."""
    arrays = [cuprum.asarray(a) for a in arrays]
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return dot(arrays[0], arrays[1], out=out)
    first, last = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if first:
        arrays[0] = arrays[0].reshape(1, -1)
    if last:
        arrays[-1] = arrays[-1].reshape(-1, 1)
    for a in arrays:
        if a.ndim != 2:
            raise numpy.linalg.LinAlgError(
                f"{a.ndim}-dimensional array given. Array must be two-dimensional"
            )
    dims = [a.shape[0] for a in arrays] + [arrays[-1].shape[1]]
    # the matrix-chain order: cost[i][j], split[i][j] over arrays i..j
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i, j):
        if i == j:
            return arrays[i]
        k = split[i][j]
        return dot(product(i, k), product(k + 1, j))

    r = product(0, n - 1)
    if first and last:
        r = r[0, 0]
    elif first:
        r = r[0]
    elif last:
        r = r[:, 0]
    if out is not None:
        out[...] = r
        return out
    return r
