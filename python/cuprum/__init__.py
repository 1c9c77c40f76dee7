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

import math as _math
import operator as _operator
import sys as _sys
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from cuprum import (  # noqa: F401  (after _cuprum)
    _composed,
    _creation,
    _cuprum,
    _metadata,
    _numpy1_names,
    _routines,
    cuda,
    exceptions,
    fft,
    lib,
    linalg,
    polynomial,
    profiler,
    random,
)
from cuprum import _ufunc as _ufunc_mod
from cuprum._aligned_dtype import make_aligned_dtype  # noqa: F401
from cuprum._composed import (  # noqa: F401
    around,
    copyto,
    fix,
    nan_to_num,
    nanprod,
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
from cuprum._cupyx_names import (  # noqa: F401
    empty_like_pinned,
    empty_pinned,
    get_runtime_info,
    rsqrt,
    scatter_add,
    scatter_max,
    scatter_min,
    zeros_like_pinned,
    zeros_pinned,
)
from cuprum._einsum import einsum  # noqa: F401
from cuprum._errstate import errstate, geterr, seterr  # noqa: F401
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
    fromDlpack,
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
from cuprum._numpy1_names import (  # noqa: F401
    NAN,
    NINF,
    NZERO,
    PINF,
    PZERO,
    Inf,
    Infinity,
    NaN,
    asfarray,
    cumproduct,
    disp,
    find_common_type,
    get_array_wrap,
    in1d,
    infty,
    issctype,
    issubclass_,
    issubsctype,
    msort,
    obj2sctype,
    product,
    safe_eval,
    sctype2char,
    set_string_function,
)
from cuprum._pad import pad  # noqa: F401
from cuprum._poly1d import (  # noqa: F401
    poly,
    poly1d,
    polyadd,
    polyfit,
    polymul,
    polysub,
    polyval,
    roots,
)
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
from cuprum._syncdetect import DeviceSynchronized, allow_synchronize  # noqa: F401
from cuprum._ufunc import ufunc

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
    if not isinstance(a, ndarray) and hasattr(a, "__cupy_get_ndarray__"):
        a = a.__cupy_get_ndarray__()
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
    """``a`` C-contiguous, at least 1-D (``a`` itself when it is so, else a copy)."""
    a = asarray(a, dtype)
    if a.ndim == 0:
        return a.reshape(1)
    return a if a.is_c_contiguous else a.copy()


def asfortranarray(a, dtype=None):
    """``a`` in Fortran order, at least 1-D (``a`` itself when it is so, else a copy)."""
    a = asarray(a, dtype)
    if a.ndim == 0:
        return a.reshape(1)
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
    if _creation.linspace_composed(start, stop, dtype, num, endpoint):
        return _creation.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    return _cuprum.linspace(start, stop, num, endpoint, retstep, dtype, axis)


def eye(N, M=None, k=0, dtype=float, order="C"):
    """A 2-D array with ones on the ``k``-th diagonal."""
    return asarray(_numpy.eye(N, M, k, dtype=dtype))


def identity(n, dtype=float):
    """The ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=dtype)


# ---------------------------------------------------------------------------- ufuncs


# NumPy's ufuncs that cuprum's ufunc table computes, by name and operand count (objects of
# class `cuprum.ufunc`, see cuprum._ufunc).
negative = ufunc("negative", 1)
positive = ufunc("positive", 1)
absolute = ufunc("absolute", 1)
sign = ufunc("sign", 1)
sqrt = ufunc("sqrt", 1)
cbrt = ufunc("cbrt", 1)
i0 = ufunc("i0", 1)
square = ufunc("square", 1)
reciprocal = ufunc("reciprocal", 1)
exp = ufunc("exp", 1)
exp2 = ufunc("exp2", 1)
expm1 = ufunc("expm1", 1)
log = ufunc("log", 1)
log2 = ufunc("log2", 1)
log10 = ufunc("log10", 1)
log1p = ufunc("log1p", 1)
sin = ufunc("sin", 1)
cos = ufunc("cos", 1)
tan = ufunc("tan", 1)
arcsin = ufunc("arcsin", 1)
arccos = ufunc("arccos", 1)
arctan = ufunc("arctan", 1)
sinh = ufunc("sinh", 1)
cosh = ufunc("cosh", 1)
tanh = ufunc("tanh", 1)
arcsinh = ufunc("arcsinh", 1)
arccosh = ufunc("arccosh", 1)
arctanh = ufunc("arctanh", 1)
floor = ufunc("floor", 1)
ceil = ufunc("ceil", 1)
trunc = ufunc("trunc", 1)
rint = ufunc("rint", 1)
isnan = ufunc("isnan", 1)
isinf = ufunc("isinf", 1)
isfinite = ufunc("isfinite", 1)
signbit = ufunc("signbit", 1)
logical_not = ufunc("logical_not", 1)
invert = ufunc("invert", 1)
conjugate = ufunc("conjugate", 1)
add = ufunc("add", 2)
subtract = ufunc("subtract", 2)
multiply = ufunc("multiply", 2)
divide = ufunc("divide", 2)
floor_divide = ufunc("floor_divide", 2)
remainder = ufunc("remainder", 2)
fmod = ufunc("fmod", 2)
power = ufunc("power", 2)
maximum = ufunc("maximum", 2)
minimum = ufunc("minimum", 2)
arctan2 = ufunc("arctan2", 2)
hypot = ufunc("hypot", 2)
nextafter = ufunc("nextafter", 2)
equal = ufunc("equal", 2)
not_equal = ufunc("not_equal", 2)
less = ufunc("less", 2)
less_equal = ufunc("less_equal", 2)
greater = ufunc("greater", 2)
greater_equal = ufunc("greater_equal", 2)
logical_and = ufunc("logical_and", 2)
logical_or = ufunc("logical_or", 2)
logical_xor = ufunc("logical_xor", 2)
bitwise_and = ufunc("bitwise_and", 2)
bitwise_or = ufunc("bitwise_or", 2)
bitwise_xor = ufunc("bitwise_xor", 2)
left_shift = ufunc("left_shift", 2)
right_shift = ufunc("right_shift", 2)
# NumPy's other names of some of them (the same objects, as NumPy's).
abs = absolute
conj = conjugate
true_divide = divide
mod = remainder
bitwise_not = invert
# The ufuncs cuprum composes (cuprum._composed), and the two-output ones.
fabs = ufunc("fabs", 1, impl=_composed.fabs, doc=_composed.fabs.__doc__)
copysign = ufunc("copysign", 2, impl=_composed.copysign, doc=_composed.copysign.__doc__)
fmax = ufunc("fmax", 2, impl=_composed.fmax, doc=_composed.fmax.__doc__)
fmin = ufunc("fmin", 2, impl=_composed.fmin, doc=_composed.fmin.__doc__)
logaddexp = ufunc("logaddexp", 2, impl=_composed.logaddexp, doc=_composed.logaddexp.__doc__)
logaddexp2 = ufunc("logaddexp2", 2, impl=_composed.logaddexp2, doc=_composed.logaddexp2.__doc__)
deg2rad = ufunc("deg2rad", 1, impl=_composed.deg2rad, doc=_composed.deg2rad.__doc__)
rad2deg = ufunc("rad2deg", 1, impl=_composed.rad2deg, doc=_composed.rad2deg.__doc__)
radians = ufunc("radians", 1, impl=_composed.deg2rad, doc=_composed.deg2rad.__doc__)
degrees = ufunc("degrees", 1, impl=_composed.rad2deg, doc=_composed.rad2deg.__doc__)
ldexp = ufunc("ldexp", 2, impl=_composed.ldexp, doc=_composed.ldexp.__doc__)
float_power = ufunc(
    "float_power", 2, impl=_composed.float_power, doc=_composed.float_power.__doc__, loops=True
)
divmod = ufunc("divmod", 2, 2, impl=_composed.divmod, doc=_composed.divmod.__doc__)
modf = ufunc("modf", 1, 2, impl=_composed.modf, doc=_composed.modf.__doc__)
frexp = ufunc("frexp", 1, 2, impl=_composed.frexp, doc=_composed.frexp.__doc__)


def real(val):
    """The real part (NumPy's ``real``, a function: a view of complex values, the array
    itself otherwise)."""
    if isinstance(val, _cuprum._FusionVar):
        return _cuprum.ufunc("real", val)
    a = val if isinstance(val, ndarray) else asarray(val)
    return a.real if a.dtype.kind == "c" else a


def imag(val):
    """The imaginary part (NumPy's ``imag``, a function: a view of complex values, zeros
    otherwise)."""
    if isinstance(val, _cuprum._FusionVar):
        return _cuprum.ufunc("imag", val)
    a = val if isinstance(val, ndarray) else asarray(val)
    return a.imag


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


def matmul(
    x1,
    x2,
    /,
    out=None,
    *,
    casting="same_kind",
    order="K",
    dtype=None,
    subok=True,
    axes=None,
    axis=None,
):
    """The matrix product (NumPy's ``matmul``: stacks of matrices broadcast; ``axes`` the
    operands' and the result's matrix axes; ``dtype`` and ``casting`` as a ufunc's; ``out``
    of another dtype under ``casting``)."""
    if axis is not None:
        raise TypeError(
            "axis can only be used with a single shared core dimension, not with the 2 core "
            "dimensions of matmul"
        )
    out = _ufunc_mod._one_out(out)
    if dtype is not None:
        d = _numpy.dtype(dtype)
        x1 = _ufunc_mod._loop_operand(_ufunc_mod._MATMUL, 0, x1, d, casting)
        x2 = _ufunc_mod._loop_operand(_ufunc_mod._MATMUL, 1, x2, d, casting)
    if axes is not None:
        r = _ufunc_mod.matmul_axes(x1, x2, axes, _cuprum.matmul)
    else:
        r = _cuprum.matmul(x1, x2)
    if order in ("C", "F") and out is None:
        r = copy(r, order)
    if out is None:
        return r
    return _ufunc_mod._store(_ufunc_mod._MATMUL, r, out, casting, True)


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
    headers (and where each was found), the kernel cache folder (the text of
    ``get_runtime_info()``)."""
    _sys.stdout.write(str(get_runtime_info(full=_full)))
    _sys.stdout.flush()


def is_available():
    """Whether cuprum can run here: a GPU, or the host device when it is chosen
    (``CUPRUM_DEVICE=host``); ``False`` rather than an error where there is none."""
    return cuda.is_available()


# CuPy's switch for the warnings of its experimental features (cuprum has none that warn).
disable_experimental_feature_warning = False


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
    # NumPy's other names of the scalar types, its constants and index helpers
    "byte",
    "ubyte",
    "short",
    "ushort",
    "intc",
    "uintc",
    "long",
    "ulong",
    "longlong",
    "ulonglong",
    "uint",
    "uintp",
    "half",
    "single",
    "double",
    "csingle",
    "cdouble",
    "True_",
    "False_",
    "euler_gamma",
    "typecodes",
    "sctypeDict",
    "ScalarType",
    "mintypecode",
    "typename",
    "isdtype",
    "s_",
    "index_exp",
    "ndindex",
    # NumPy's printing options and `iterable`, which CuPy re-exports
    "get_printoptions",
    "set_printoptions",
    "printoptions",
    "iterable",
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
        get_printoptions,
        iinfo,
        inexact,
        int8,
        int16,
        int32,
        int64,
        integer,
        intp,
        issubdtype,
        iterable,
        number,
        printoptions,
        set_printoptions,
        signedinteger,
        uint8,
        uint16,
        uint32,
        uint64,
        unsignedinteger,
    )
    from numpy import complex64 as singlecomplex  # noqa: F401
    from numpy import complex128 as cfloat  # noqa: F401
    from numpy.exceptions import (  # noqa: F401
        ComplexWarning,
        ModuleDeprecationWarning,
        RankWarning,
        TooHardError,
    )
    from numpy.lib.npyio import DataSource  # noqa: F401
    from numpy.rec import format_parser  # noqa: F401

    from cuprum import testing  # noqa: F401
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
    elif name == "VisibleDeprecationWarning":
        value = _numpy.exceptions.VisibleDeprecationWarning
    elif name in exceptions.__all__:
        value = getattr(exceptions, name)  # NumPy's warnings (ComplexWarning …)
    elif name in _numpy1_names.FROM_NUMPY:
        value = _numpy1_names.numpy_object(name)
    elif name == "testing":
        # CuPy's test helpers: imported at first use (they import pytest)
        import importlib

        value = importlib.import_module("cuprum.testing")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(
        set(globals())
        | set(_FROM_NUMPY)
        | set(_ALIASES)
        | {"AxisError", "VisibleDeprecationWarning", "testing"}
        | set(exceptions.__all__)
        | set(_numpy1_names.FROM_NUMPY)
    )


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

# NumPy 2's names of the same objects (the array API's spellings), bound as NumPy binds them.
acos, acosh, asin, asinh = arccos, arccosh, arcsin, arcsinh
atan, atan2, atanh = arctan, arctan2, arctanh
bitwise_invert, bitwise_left_shift, bitwise_right_shift = invert, left_shift, right_shift
concat, permute_dims, pow = concatenate, transpose, power
# NumPy 1's names of the same objects, which CuPy keeps.
alltrue, sometrue, trapz = all, any, trapezoid
from cuprum._numpy2_names import astype, matrix_transpose, unstack, vecdot  # noqa: F401
