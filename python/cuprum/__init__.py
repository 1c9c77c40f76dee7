"""cuprum: CuPy's user-defined CUDA kernels (and the NumPy-style arrays around them) on a
Rust engine.

A CuPy program runs on cuprum with its import line changed (``import cuprum as cp``): the
names, signatures, printing and exceptions are CuPy's. Kernels are CUDA C++ strings
(``ElementwiseKernel``, ``ReductionKernel``, ``RawKernel``, ``RawModule``) compiled with
NVRTC and kept in cuprum's persistent cache; arrays live on the current GPU, or on the
*host device* (the CPU, ``CUPRUM_DEVICE=host``), where the same kernels run compiled by the
system C++ compiler.

Every function here is a thin face over the Rust library (``cuprum._cuprum``): the dtype
rules, the kernels, the checks and the error messages are the engine's.
"""

from __future__ import annotations

import builtins as _builtins
import math as _math
import operator as _operator
import sys as _sys
from collections.abc import Callable as _Callable
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from cuprum import (  # noqa: F401  (after _cuprum)
    _creation,
    _cuprum,
    _metadata,
    _routines,
    cuda,
    exceptions,
    lib,
    linalg,
    polynomial,
    profiler,
    random,
)
from cuprum._composed import (  # noqa: F401
    around,
    copysign,
    copyto,
    deg2rad,
    degrees,
    divmod,
    fix,
    float_power,
    fmax,
    fmin,
    frexp,
    ldexp,
    logaddexp,
    logaddexp2,
    modf,
    nan_to_num,
    nanprod,
    rad2deg,
    radians,
    round,
    round_,
    sinc,
)
from cuprum._creation import (  # noqa: F401
    array,
    bartlett,
    blackman,
    hamming,
    hanning,
    kaiser,
    logspace,
    meshgrid,
    mgrid,
    ogrid,
    vander,
)
from cuprum._cuprum import (  # noqa: F401
    ArgumentError,
    BoundsError,
    CompileException,
    CuprumError,
    DeviceError,
    DTypeError,
    ElementwiseKernel,
    OutOfMemoryError,
    RawKernel,
    RawModule,
    ReductionKernel,
    ScalarRangeError,
    ScanKernel,
    ShapeError,
    UnsupportedError,
    asnumpy,
    from_dlpack,
    ndarray,
)
from cuprum._einsum import einsum  # noqa: F401
from cuprum._flatiter import flatiter  # noqa: F401
from cuprum._functional import piecewise, vectorize  # noqa: F401
from cuprum._index_tricks import c_, r_  # noqa: F401
from cuprum._io_misc import (  # noqa: F401
    array2string,
    array_repr,
    array_str,
    base_repr,
    binary_repr,
    byte_bounds,
    format_float_positional,
    format_float_scientific,
    load,
    may_share_memory,
    save,
    savetxt,
    savez,
    savez_compressed,
    shares_memory,
    who,
)
from cuprum._lazy import numpy as _numpy
from cuprum._linalg import cross, dot, inner, kron, tensordot, vdot  # noqa: F401
from cuprum._memoize import clear_memo, memoize  # noqa: F401
from cuprum._more_functions import (  # noqa: F401
    asarray_chkfinite,
    bitwise_count,
    fromfile,
    fromfunction,
    fromiter,
    fromstring,
    gcd,
    genfromtxt,
    heaviside,
    iscomplex,
    isfortran,
    isneginf,
    isposinf,
    isreal,
    lcm,
    loadtxt,
    packbits,
    require,
    rollaxis,
    unpackbits,
)
from cuprum._numeric_more import (  # noqa: F401
    array_equiv,
    convolve,
    correlate,
    gradient,
    interp,
    intersect1d,
    ix_,
    ravel_multi_index,
    real_if_close,
    setdiff1d,
    setxor1d,
    tril_indices,
    tril_indices_from,
    triu_indices,
    triu_indices_from,
    union1d,
    unravel_index,
    unwrap,
)
from cuprum._numeric_more import indices as _indices_routine
from cuprum._pad import pad  # noqa: F401
from cuprum._poly1d import poly, poly1d, polyadd, polymul, polysub, polyval  # noqa: F401
from cuprum._routines import (  # noqa: F401
    append,
    argpartition,
    argsort,
    argwhere,
    array_split,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    average,
    bincount,
    broadcast,
    broadcast_to,
    choose,
    column_stack,
    compress,
    cumprod,
    cumsum,
    cumulative_prod,
    cumulative_sum,
    delete,
    diag,
    diag_indices,
    diag_indices_from,
    diagflat,
    diagonal,
    diff,
    digitize,
    dsplit,
    dstack,
    ediff1d,
    expand_dims,
    extract,
    fill_diagonal,
    flatnonzero,
    flip,
    fliplr,
    flipud,
    histogram,
    histogram2d,
    histogramdd,
    hsplit,
    hstack,
    isclose,
    isin,
    lexsort,
    mask_indices,
    median,
    moveaxis,
    nancumprod,
    nancumsum,
    nanmedian,
    nanstd,
    nanvar,
    nonzero,
    outer,
    partition,
    percentile,
    place,
    ptp,
    put,
    putmask,
    quantile,
    repeat,
    resize,
    roll,
    rot90,
    row_stack,
    searchsorted,
    select,
    sort,
    sort_complex,
    split,
    squeeze,
    stack,
    swapaxes,
    take,
    take_along_axis,
    tile,
    trace,
    trapezoid,
    tri,
    tril,
    trim_zeros,
    triu,
    unique,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
    vsplit,
    vstack,
)
from cuprum._shape_base import apply_along_axis, apply_over_axes, put_along_axis  # noqa: F401
from cuprum._statistics import corrcoef, cov  # noqa: F401

__version__ = "0.1.0"

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
newaxis = None


# ---------------------------------------------------------------------------- creation


def asarray(a, dtype=None, order=None, *, blocking=False):
    """``a`` as a ``cuprum.ndarray``: itself when it is one (converted when ``dtype``
    differs, copied when ``order`` asks for another layout), a device array of another
    framework without a copy, host data uploaded to the current device (a NumPy array in
    Fortran order stays in Fortran order, as NumPy's ``asarray`` keeps it)."""
    if isinstance(a, ndarray) and order is None:
        return a if dtype is None else _cuprum.asarray(a, dtype)
    if order is None or order in ("K", "k", "A", "a"):
        if isinstance(a, (list, tuple)) and _creation._holds_device_array(a):
            return _creation.array(a, dtype, copy=None, order=order)
        if not (isinstance(a, _numpy.ndarray) and a.ndim > 1 and not a.flags.c_contiguous):
            return _cuprum.asarray(a, dtype)
    return _creation.array(a, dtype, copy=None, order=order)


def asanyarray(a, dtype=None, order=None, *, blocking=False):
    """``a`` as a cuprum array (the same as ``asarray``: cuprum has no array subclasses of
    its own)."""
    return asarray(a, dtype, order)


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """A 1-D array of the bytes of ``buffer`` read as ``dtype`` (NumPy's ``frombuffer``,
    then uploaded)."""
    return asarray(_numpy.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def ascontiguousarray(a, dtype=None):
    """``a`` C-contiguous (a copy when it is not)."""
    a = _cuprum.asarray(a, dtype)
    return a if a.is_c_contiguous else a.copy()


def asfortranarray(a, dtype=None):
    """``a`` in Fortran order (a copy when it is not Fortran-contiguous)."""
    a = _cuprum.asarray(a, dtype)
    return a if a.flags.f_contiguous else a.T.copy().T


def broadcast_arrays(*args):
    """Views of the arrays broadcast to one shape, a tuple (NumPy's ``broadcast_arrays``)."""
    arrays = [_cuprum.asarray(a) for a in args]
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(broadcast_to(a, shape) for a in arrays)


def empty(shape, dtype=float, order="C"):
    """An uninitialised array (float64 by default, as CuPy)."""
    return _cuprum.empty(shape, dtype, order or "C")


def zeros(shape, dtype=float, order="C"):
    """An array of zeros."""
    return _cuprum.zeros(shape, dtype, order or "C")


def ones(shape, dtype=float, order="C"):
    """An array of ones."""
    return _cuprum.ones(shape, dtype, order or "C")


def full(shape, fill_value, dtype=None, order="C"):
    """An array filled with ``fill_value`` (its dtype unless ``dtype`` is given; an array
    value is broadcast to ``shape``, as NumPy's)."""
    if isinstance(fill_value, (list, tuple)) or getattr(fill_value, "ndim", 0) > 0:
        v = asarray(fill_value)
        out = empty(shape, dtype=v.dtype if dtype is None else dtype)
        out[...] = v
        return out
    if getattr(fill_value, "ndim", None) == 0 and not isinstance(fill_value, _numpy.generic):
        # a 0-d array: its value, in its dtype
        dtype = fill_value.dtype if dtype is None else dtype
        fill_value = fill_value.item()
    return _cuprum.full(shape, fill_value, dtype, order or "C")


def empty_like(a, dtype=None, order="K", subok=None, shape=None):
    """An uninitialised array of ``a``'s shape and dtype, laid out as ``order`` says
    (``'K'``, the default, keeps ``a``'s stride order)."""
    return _creation.like(a, dtype, order, subok, shape, empty)


def zeros_like(a, dtype=None, order="K", subok=None, shape=None):
    """Zeros of ``a``'s shape and dtype, laid out as ``order`` says."""
    return _creation.like(a, dtype, order, subok, shape, zeros)


def ones_like(a, dtype=None, order="K", subok=None, shape=None):
    """Ones of ``a``'s shape and dtype, laid out as ``order`` says."""
    return _creation.like(a, dtype, order, subok, shape, ones)


def full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None):
    """``fill_value`` in ``a``'s shape and dtype, laid out as ``order`` says."""
    return _creation.like(a, dtype, order, subok, shape, lambda s, d: full(s, fill_value, d))


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)`` (NumPy's dtype inference; complex values
    as NumPy computes them)."""
    if _creation.arange_composed(start, stop, step, dtype):
        return _creation.arange(start, stop, step, dtype)
    return _cuprum.arange(start, stop, step, dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (complex values, and arrays
    of start and stop points with the points along ``axis``, as NumPy computes them)."""
    num = _operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if _creation.linspace_composed(start, stop, dtype):
        return _creation.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    return _cuprum.linspace(start, stop, num, endpoint, retstep, dtype, axis)


def eye(N, M=None, k=0, dtype=float, order="C"):
    """A 2-D array with ones on the ``k``-th diagonal."""
    return asarray(_numpy.eye(N, M, k, dtype=dtype))


def identity(n, dtype=float):
    """The ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=dtype)


# ---------------------------------------------------------------------------- ufuncs


def _ufunc(name: str, nin: int, alias: str | None = None) -> _Callable[..., _Any]:
    """NumPy's ufunc ``name`` of ``nin`` operands (called ``alias`` when given)."""

    def f(*args, out=None, dtype=None, casting="same_kind"):
        if len(args) != nin:
            raise TypeError(f"{name}() takes {nin} positional arguments but {len(args)} were given")
        if dtype is None:
            return _cuprum.ufunc(name, *args, out=out)
        # NumPy's loop in `dtype`: array operands cast to it first (under `casting`)
        d = _numpy.dtype(dtype)
        args = tuple(_loop_operand(name, k, a, d, casting) for k, a in enumerate(args))
        r = _cuprum.ufunc(name, *args, out=out)
        if r.dtype != d and out is None:
            r = r.astype(d)
        return r

    f.__name__ = f.__qualname__ = alias or name
    f.__doc__ = f"NumPy's ``{name}``, element-wise on device arrays."
    return f


def _loop_operand(name, k, a, d, casting):
    """Operand ``k`` of ufunc ``name`` for a loop in dtype ``d``: an array cast to ``d``
    (NumPy's ``TypeError`` where ``casting`` does not allow it); a Python scalar as it is
    (weak)."""
    src = getattr(a, "dtype", None)
    if src is None:
        if isinstance(a, (bool, int, float, complex)):
            return a
        a = asarray(a)
        src = a.dtype
    if src == d:
        return a
    if not _numpy.can_cast(src, d, casting=casting):
        raise TypeError(
            f"Cannot cast ufunc '{name}' input {k} from {src!r} to {d!r} with casting rule "
            f"{casting!r}"
        )
    return a.astype(d)


def _basic_index(indices):
    """Whether ``indices`` selects by ints, slices, ``...`` and ``None`` only (each element
    at most once)."""
    items = indices if isinstance(indices, tuple) else (indices,)
    for i in items:  # (a loop: `all` is cuprum's here)
        if not (i is None or i is Ellipsis or isinstance(i, (slice, int, _numpy.integer))):
            return False
    return not isinstance(indices, bool)


def _lone_index_array(indices):
    """Whether ``indices`` is one integer index array (not a tuple, a mask or a scalar)."""
    if isinstance(indices, ndarray):
        return indices.dtype.kind in "iu" and indices.ndim > 0
    return False


def _ufunc_at(name):
    def at(a, indices, b=None):
        if b is None:
            raise TypeError(f"{name}.at() takes 3 arguments for a binary ufunc (a, indices, b)")
        if not isinstance(a, ndarray):
            raise TypeError(f"{name}.at(): the target must be a cuprum.ndarray, not {type(a)}")
        if _basic_index(indices) and not isinstance(indices, (int, _numpy.integer)):
            view = a[indices]  # no element twice: the in-place ufunc is exact
            globals()[name](view, b, out=view)
            return
        if name == "add" and _lone_index_array(indices):
            src = b.dtype if hasattr(b, "dtype") else _numpy.asarray(b).dtype
            if not _numpy.can_cast(src, a.dtype, "same_kind"):
                b = asarray(b).astype(a.dtype)  # CuPy casts the values
            _cuprum.scatter_add(a, indices, b)  # the tuned axis-0 kernel
            return
        _cuprum.ufunc_at(name, a, indices, b)

    at.__name__ = "at"
    at.__qualname__ = f"{name}.at"
    at.__doc__ = (
        f"NumPy's ``{name}.at(a, indices, b)``: ``a[indices] = {name}(a[indices], b)`` "
        "unbuffered, so a repeated index counts each time; any subscript (ints, slices, "
        "``...``, ``None``, integer and boolean arrays); ``b`` is cast to ``a``'s dtype."
    )
    return at


# NumPy's ufuncs that cuprum's ufunc table computes, by name and operand count, and
# CuPy's other names of some of them.
negative = _ufunc("negative", 1)
absolute = _ufunc("absolute", 1)
sign = _ufunc("sign", 1)
sqrt = _ufunc("sqrt", 1)
cbrt = _ufunc("cbrt", 1)
i0 = _ufunc("i0", 1)
square = _ufunc("square", 1)
reciprocal = _ufunc("reciprocal", 1)
exp = _ufunc("exp", 1)
exp2 = _ufunc("exp2", 1)
expm1 = _ufunc("expm1", 1)
log = _ufunc("log", 1)
log2 = _ufunc("log2", 1)
log10 = _ufunc("log10", 1)
log1p = _ufunc("log1p", 1)
sin = _ufunc("sin", 1)
cos = _ufunc("cos", 1)
tan = _ufunc("tan", 1)
arcsin = _ufunc("arcsin", 1)
arccos = _ufunc("arccos", 1)
arctan = _ufunc("arctan", 1)
sinh = _ufunc("sinh", 1)
cosh = _ufunc("cosh", 1)
tanh = _ufunc("tanh", 1)
arcsinh = _ufunc("arcsinh", 1)
arccosh = _ufunc("arccosh", 1)
arctanh = _ufunc("arctanh", 1)
floor = _ufunc("floor", 1)
ceil = _ufunc("ceil", 1)
trunc = _ufunc("trunc", 1)
rint = _ufunc("rint", 1)
isnan = _ufunc("isnan", 1)
isinf = _ufunc("isinf", 1)
isfinite = _ufunc("isfinite", 1)
signbit = _ufunc("signbit", 1)
logical_not = _ufunc("logical_not", 1)
invert = _ufunc("invert", 1)
conjugate = _ufunc("conjugate", 1)
_real_ufunc = _ufunc("real", 1)
_imag_ufunc = _ufunc("imag", 1)
add = _ufunc("add", 2)
subtract = _ufunc("subtract", 2)
multiply = _ufunc("multiply", 2)
divide = _ufunc("divide", 2)
floor_divide = _ufunc("floor_divide", 2)
remainder = _ufunc("remainder", 2)
fmod = _ufunc("fmod", 2)
power = _ufunc("power", 2)
maximum = _ufunc("maximum", 2)
minimum = _ufunc("minimum", 2)
arctan2 = _ufunc("arctan2", 2)
hypot = _ufunc("hypot", 2)
nextafter = _ufunc("nextafter", 2)
equal = _ufunc("equal", 2)
not_equal = _ufunc("not_equal", 2)
less = _ufunc("less", 2)
less_equal = _ufunc("less_equal", 2)
greater = _ufunc("greater", 2)
greater_equal = _ufunc("greater_equal", 2)
logical_and = _ufunc("logical_and", 2)
logical_or = _ufunc("logical_or", 2)
logical_xor = _ufunc("logical_xor", 2)
bitwise_and = _ufunc("bitwise_and", 2)
bitwise_or = _ufunc("bitwise_or", 2)
bitwise_xor = _ufunc("bitwise_xor", 2)
left_shift = _ufunc("left_shift", 2)
right_shift = _ufunc("right_shift", 2)
abs = _ufunc("absolute", 1, "abs")
conj = _ufunc("conjugate", 1, "conj")
true_divide = _ufunc("divide", 2, "true_divide")
mod = _ufunc("remainder", 2, "mod")
bitwise_not = _ufunc("invert", 1, "bitwise_not")
for _f in (add, subtract, maximum, minimum, bitwise_and, bitwise_or, bitwise_xor):
    _f.at = _ufunc_at(_f.__name__)
del _f


def real(val):
    """The real part of ``val`` (NumPy's ``real``): ``val`` itself when it is an array of a
    non-complex dtype, else its ``real`` view."""
    if isinstance(val, _cuprum._FusionVar):
        return _real_ufunc(val)
    val = asarray(val)
    return val if val.dtype.kind != "c" else val.real


def imag(val):
    """The imaginary part of ``val`` (NumPy's ``imag``; zeros for a non-complex dtype)."""
    if isinstance(val, _cuprum._FusionVar):
        return _imag_ufunc(val)
    return asarray(val).imag


def fabs(x, out=None):
    """The absolute values, in NumPy's ``fabs`` dtype (a floating type: integers and
    bools in the float type they cast to safely; complex values are refused)."""
    from cuprum._composed import _as, _finish, _result_dtype

    dt = _result_dtype(_numpy.fabs, x)
    return _finish(absolute(_as(x, dt)), out)


def where(condition, x=None, y=None):
    """``x`` where ``condition`` holds, else ``y``."""
    if x is None and y is None:
        return nonzero(condition)  # NumPy's one-argument form
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return _cuprum.ufunc("where", condition, x, y)


def clip(a, a_min, a_max, out=None):
    """``a`` limited to ``[a_min, a_max]`` (either may be ``None``; NaN-propagating, as
    NumPy's)."""
    return _cuprum.clip(a, a_min, a_max, out)


def angle(z, deg=False):
    """The argument of complex values (degrees with ``deg=True``)."""
    return _cuprum.ufunc("angle_deg" if deg else "angle", z)


# ---------------------------------------------------------------------------- reductions


# CuPy's sum, prod, mean, var, std, amax, amin, argmax, argmin, all and any call their
# argument's method of that name: NumPy data gets NumPy's answer, on the host.
_METHOD_REDUCTIONS = ("sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin")
_METHOD_REDUCTIONS += ("all", "any")


def _is_host_data(a):
    """Whether ``a`` is NumPy's (an array or a scalar): never so before NumPy is imported."""
    if isinstance(a, ndarray):
        return False
    np = _sys.modules.get("numpy")
    return np is not None and isinstance(a, (np.ndarray, np.generic))


def _reduction(name, takes_dtype=True, takes_ddof=False):
    delegates = name in _METHOD_REDUCTIONS
    if takes_ddof:

        def f(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
            if delegates and _is_host_data(a):
                return getattr(a, name)(
                    axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims
                )
            return _cuprum.reduce(name, a, axis, dtype, out, keepdims, float(ddof))

    elif takes_dtype:

        def f(a, axis=None, dtype=None, out=None, keepdims=False):
            if delegates and _is_host_data(a):
                return getattr(a, name)(axis=axis, dtype=dtype, out=out, keepdims=keepdims)
            return _cuprum.reduce(name, a, axis, dtype, out, keepdims)

    elif name in ("argmax", "argmin"):
        # CuPy's signature: `dtype` is the integer dtype of the indices

        def f(a, axis=None, dtype=None, out=None, keepdims=False):
            if delegates and _is_host_data(a):
                r = getattr(a, name)(axis=axis, out=out, keepdims=keepdims)
            else:
                r = _cuprum.reduce(name, a, axis, None, out, keepdims)
            if dtype is None or out is not None:
                return r
            return r.astype(dtype)

    else:

        def f(a, axis=None, out=None, keepdims=False):
            if delegates and _is_host_data(a):
                return getattr(a, name)(axis=axis, out=out, keepdims=keepdims)
            return _cuprum.reduce(name, a, axis, None, out, keepdims)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"NumPy's ``{name}`` with its keywords; a full reduction is a 0-d array."
    return f


sum = _reduction("sum")
prod = _reduction("prod")
mean = _reduction("mean")
nansum = _reduction("nansum")
nanmean = _reduction("nanmean")
var = _reduction("var", takes_ddof=True)
std = _reduction("std", takes_ddof=True)
max = amax = _reduction("max", takes_dtype=False)
min = amin = _reduction("min", takes_dtype=False)


def _all_nan_warns(f):
    """``f`` (nanmax or nanmin) with NumPy's ``RuntimeWarning`` when a slice held only NaN
    (its result is NaN): one check on the device, as CuPy makes."""

    def g(a, axis=None, out=None, keepdims=False):
        r = f(a, axis, out, keepdims)
        if r.dtype.kind in "fc" and bool(_cuprum.ufunc("isnan", r).any()):
            import warnings

            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=2)
        return r

    g.__name__ = g.__qualname__ = f.__name__
    g.__doc__ = f.__doc__
    return g


nanmax = _all_nan_warns(_reduction("nanmax", takes_dtype=False))
nanmin = _all_nan_warns(_reduction("nanmin", takes_dtype=False))
argmax = _reduction("argmax", takes_dtype=False)
argmin = _reduction("argmin", takes_dtype=False)
nanargmax = _reduction("nanargmax", takes_dtype=False)
nanargmin = _reduction("nanargmin", takes_dtype=False)
all = _reduction("all", takes_dtype=False)
any = _reduction("any", takes_dtype=False)


def count_nonzero(a, axis=None, *, keepdims=False):
    """The number of non-zero elements."""
    return _cuprum.reduce("count_nonzero", a, axis, None, None, keepdims)


# ---------------------------------------------------------------------------- fusion


def fuse(*args, kernel_name=None):
    """Decorator that fuses a function (CuPy's ``cupy.fuse``): ``@fuse``, ``@fuse()``,
    ``@fuse(kernel_name='name')``.

    The function is traced once per signature of its arguments (each array's dtype and
    ndim, each scalar's type) by cuprum's fusion engine and runs as a few cuprum kernels —
    one for element-wise work, its reductions in the same pass where they can be. Inside
    it, write array math: operators, the ufuncs (``cuprum.exp(x)``), ``cuprum.where``,
    ``x.astype(...)``, reductions (``cuprum.sum(x, axis=..., keepdims=...)``,
    ``x.max()``), with NumPy 2's promotion (Python scalars weak, NumPy scalars strong).
    Arguments are positional: cuprum arrays, other frameworks' device arrays, Python and
    NumPy scalars, ``None``. Without any device array the function runs as it is. An
    array argument written in the function (``x += y``, ``out=x``, ``x[...] = v``) is
    written back to the caller's array, as CuPy writes it. An argument may be indexed
    with basic indices (``x[1]``, ``mask[:, None]``, ``y[::-1]``): a view of the caller's
    array, read-only inside the function; a value computed inside it cannot be indexed.

    >>> @cuprum.fuse(kernel_name='squared_diff')
    ... def squared_diff(x, y):
    ...     return (x - y) * (x - y)
    """
    if len(args) == 1 and kernel_name is None and callable(args[0]):
        return _fused(args[0], None)
    if len(args) > 1 or (args and kernel_name is not None):
        raise TypeError(f"fuse() takes at most 1 kernel name ({len(args)} given)")
    name = args[0] if args else kernel_name
    return lambda f: _fused(f, name)


def _fused(f, name):
    import functools

    return functools.update_wrapper(_cuprum.Fusion(f, name), f)


# ---------------------------------------------------------------------------- routines


def matmul(a, b, out=None):
    """The matrix product."""
    r = _cuprum.matmul(a, b)
    if out is not None:
        out[...] = r
        return out
    return r


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``a`` is close to ``b``: a 0-d bool array (CuPy's)."""
    return _cuprum.allclose(a, b, rtol, atol, equal_nan)


def copy(a, order="K"):
    """A copy of ``a`` in memory ``order``: ``'C'``, ``'F'``, ``'A'`` (F when ``a`` is
    F-contiguous and not C-contiguous, else C) or ``'K'`` (the axes laid out in the order
    of ``a``'s strides, as NumPy's)."""
    return _creation.copy_in_order(asarray(a), order)


def array_equal(a1, a2, equal_nan=False):
    """Whether both arrays have one shape and equal elements (a 0-d bool array; with
    ``equal_nan``, NaNs at the same places count as equal)."""
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape != a2.shape:
        return asarray(False)
    eq = _cuprum.ufunc("equal", a1, a2)
    if not equal_nan or (a1.dtype.kind not in "fc" and a2.dtype.kind not in "fc"):
        return all(eq)
    # NumPy's: NaNs (in either part of a complex value) at the same places, the other
    # elements equal
    n1, n2 = isnan(a1), isnan(a2)
    return all(n1 == n2) & all(eq | n1)


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """The arrays joined along ``axis`` (flattened first for ``axis=None``; cast to
    ``dtype`` under ``casting``)."""
    arrays = list(arrays)
    dtype = _routines.join_cast(arrays, dtype, casting, out)
    r = _cuprum.concatenate(arrays, axis)
    if dtype is not None and r.dtype != dtype:
        r = r.astype(dtype)
    if out is not None:
        out[...] = r
        return out
    return r


def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    """``a`` with another shape (a view where the layout allows; ``copy`` as NumPy 2's:
    ``True`` always copies, ``False`` refuses to)."""
    if shape is None:
        if newshape is None:
            raise TypeError("reshape() missing 1 required positional argument: 'shape'")
        shape = newshape
    return asarray(a).reshape(shape, order=order, copy=copy)


def ravel(a, order="C"):
    """``a`` as a 1-D array."""
    return asarray(a).ravel(order)


def transpose(a, axes=None):
    """``a`` with its axes permuted (reversed by default)."""
    a = asarray(a)
    return a.transpose() if axes is None else a.transpose(*axes)


def get_array_module(*args):
    """``cuprum`` when any argument is a ``cuprum.ndarray`` (or a value traced by
    ``cuprum.fuse``), else ``numpy``."""
    import sys

    for a in args:
        if isinstance(a, (ndarray, _cuprum._FusionVar)):
            return sys.modules[__name__]
    return _numpy._lazy_load()


def get_default_memory_pool():
    """The memory pool of the current device (``cuprum.cuda.MemoryPool``: ``used_bytes``,
    ``free_bytes``, ``total_bytes``, ``free_all_blocks``), as CuPy's."""
    return cuda.memory.get_default_memory_pool()


def get_default_pinned_memory_pool():
    """The pool of page-locked host memory (``cuprum.cuda.PinnedMemoryPool``:
    ``free_all_blocks``, ``n_free_blocks``) that ``cuda.alloc_pinned_memory`` draws from,
    as CuPy's."""
    return cuda.pinned_memory.get_default_pinned_memory_pool()


# ---------------------------------------------------------------------------- setup


def show_config(*, _full=False):
    """Prints where cuprum's pieces come from: version, device, NVRTC and the CUDA
    headers (and where each was found), the kernel cache folder."""
    import platform
    import sys

    rows = [
        ("OS", platform.platform()),
        ("Python Version", sys.version.split()[0]),
        ("NumPy Version", _numpy.__version__),
    ]
    rows += list(_cuprum.config().items())
    width = _builtins.max(len(k) for k, _ in rows) + 2
    for k, v in rows:
        print(f"{k:<{width}}: {v}")


def setup():
    """Installs NVRTC and the CUDA headers (NVIDIA's pip wheels) into cuprum's data folder
    when no toolkit or wheel provides them; returns the folder."""
    return _cuprum.setup()


# NumPy's names that CuPy re-exports, and cuprum's AxisError (a subclass of NumPy's): looked
# up at first use, so `import cuprum` does not import NumPy (see cuprum._lazy). `dtype` is
# among them (parameters above share its name).
_FROM_NUMPY = (
    "bool_",
    "complex64",
    "complex128",
    "dtype",
    "finfo",
    "float16",
    "float32",
    "float64",
    "iinfo",
    "int8",
    "int16",
    "int32",
    "int64",
    "intp",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    # NumPy's abstract scalar types, for `issubdtype(x.dtype, cp.integer)` and the like
    "generic",
    "number",
    "integer",
    "signedinteger",
    "unsignedinteger",
    "inexact",
    "floating",
    "complexfloating",
    "issubdtype",
)
# CuPy's aliases of some of them.
_ALIASES = {"bool": "bool_", "float_": "float64", "complex_": "complex128", "int_": "int64"}

if _TYPE_CHECKING:
    from numpy import (  # noqa: F401  # noqa: F401
        bool_,
        complex64,
        complex128,
        complexfloating,
        dtype,
        finfo,
        float16,
        float32,
        float64,
        floating,
        generic,
        iinfo,
        inexact,
        int8,
        int16,
        int32,
        int64,
        integer,
        intp,
        issubdtype,
        number,
        signedinteger,
        uint8,
        uint16,
        uint32,
        uint64,
        unsignedinteger,
    )

    from cuprum._cuprum import AxisError  # noqa: F401

    bool = bool_
    float_ = float64
    complex_ = complex128
    int_ = int64


def __getattr__(name: str) -> _Any:
    if name in _FROM_NUMPY or name in _ALIASES:
        value = getattr(_numpy, _ALIASES.get(name, name))
    elif name == "AxisError":
        value = _cuprum.AxisError
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FROM_NUMPY) | set(_ALIASES) | {"AxisError"})


# NumPy's functions of shapes and dtypes (bound last: `shape` and `size` are parameter
# names above).
broadcast_shapes = _metadata.broadcast_shapes
can_cast = _metadata.can_cast
common_type = _metadata.common_type
iscomplexobj = _metadata.iscomplexobj
isrealobj = _metadata.isrealobj
isscalar = _metadata.isscalar
min_scalar_type = _metadata.min_scalar_type
ndim = _metadata.ndim
promote_types = _metadata.promote_types
result_type = _metadata.result_type
shape = _metadata.shape
size = _metadata.size

# NumPy's `indices` routine (bound last: the ufuncs' `at` takes a parameter of that name).
indices = _indices_routine
