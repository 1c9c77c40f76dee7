"""NumPy functions that cuprum composes from its ufuncs (``copysign``, ``fmax``, ``fmin``,
``logaddexp``, ``logaddexp2``, ``deg2rad``/``radians``, ``rad2deg``/``degrees``, ``sinc``,
``fix``, ``fabs``, ``divmod``, ``modf``, ``around``/``round``, ``copyto``, ``nanprod``), and two
ufuncs whose operands or results differ in type, ``ldexp`` and ``frexp``: one
``ElementwiseKernel`` each, and inside ``cuprum.fuse`` the float64 pieces of the ufunc
table (``ldexp``, ``frexp_mantissa``, ``frexp_exponent``: the operands converted to
float64, the result back to NumPy's type, which rounds once as the kernels do).

Decision: the result dtype is NumPy's, asked of NumPy itself — the NumPy function applied
to one-element stand-ins of the arguments (zeros of each array's dtype; Python scalars as
they are, so they stay weak) — and the values are computed in that dtype by cuprum's
ufuncs on the device. Each is a few element-wise kernels rather than one; fusing them
into one is what ``cuprum.fuse`` does for a user's own compositions. Called inside a fused
function, they compose traced values the same way (the fused kernel holds their steps).
"""

from __future__ import annotations

import functools
import math

import cuprum
from cuprum import _cuprum
from cuprum._cuprum import _FusionVar
from cuprum._lazy import numpy


def _stand_in(x):
    if isinstance(x, (cuprum.ndarray, _FusionVar)):
        return numpy.zeros((), dtype=x.dtype)
    if isinstance(x, (bool, int, float, complex, numpy.generic)):
        return x
    return numpy.zeros((), dtype=cuprum.asarray(x).dtype)


def _result_dtype(np_func, *args):
    r = np_func(*(_stand_in(a) for a in args))
    if isinstance(r, tuple):
        r = r[0]
    return numpy.asarray(r).dtype


def _as(x, dtype):
    """An operand of a composed ufunc as a device array of ``dtype``; a NumPy array is
    refused as CuPy's ufuncs refuse it (a 0-d one is a scalar)."""
    if isinstance(x, _FusionVar):  # inside cuprum.fuse: a traced value
        return x if x.dtype == dtype else x.astype(dtype)
    if isinstance(x, numpy.ndarray) and x.ndim:
        raise TypeError(f"Unsupported type {type(x)} (host memory: move it to the GPU first)")
    return cuprum.asarray(x).astype(dtype, copy=False)


def _array(x):
    """``x`` as a device array; a value traced by ``cuprum.fuse`` as it is."""
    return x if isinstance(x, _FusionVar) else cuprum.asarray(x)


def _finish(r, out):
    if out is None:
        return r
    out[...] = r
    return out


def copysign(x1, x2, out=None):
    """``x1``'s magnitude with ``x2``'s sign, in NumPy's result dtype."""
    dt = _result_dtype(numpy.copysign, x1, x2)
    a = cuprum.absolute(_as(x1, dt))
    return _finish(cuprum.where(cuprum.signbit(_as(x2, dt)), -a, a), out)


def _nan_ignoring(np_func, pick, x1, x2, out):
    dt = _result_dtype(np_func, x1, x2)
    a, b = _as(x1, dt), _as(x2, dt)
    r = pick(a, b)
    if dt.kind in "fc":
        # NumPy's order: x2 with a NaN gives x1 (also where both have one), then x1 with a
        # NaN gives x2; complex values order lexicographically in ``pick``.
        r = cuprum.where(cuprum.isnan(b), a, cuprum.where(cuprum.isnan(a), b, r))
    return _finish(r, out)


def fmax(x1, x2, out=None):
    """Element-wise maximum that ignores NaNs (NaN only where both are NaN)."""
    return _nan_ignoring(numpy.fmax, cuprum.maximum, x1, x2, out)


def fmin(x1, x2, out=None):
    """Element-wise minimum that ignores NaNs (NaN only where both are NaN)."""
    return _nan_ignoring(numpy.fmin, cuprum.minimum, x1, x2, out)


def _log_add(np_func, exp, log1p_scale, same, x1, x2, out):
    dt = _result_dtype(np_func, x1, x2)
    a, b = _as(x1, dt), _as(x2, dt)
    m = cuprum.maximum(a, b)
    r = m + cuprum.log1p(exp(-cuprum.absolute(a - b))) * log1p_scale
    # Equal arguments (infinities included) add log(2) (or 1 in base 2), as NumPy.
    return _finish(cuprum.where(a == b, a + same, r).astype(dt, copy=False), out)


def logaddexp(x1, x2, out=None):
    """``log(exp(x1) + exp(x2))`` without overflow."""
    return _log_add(numpy.logaddexp, cuprum.exp, 1.0, math.log(2.0), x1, x2, out)


def logaddexp2(x1, x2, out=None):
    """``log2(2**x1 + 2**x2)`` without overflow."""
    return _log_add(numpy.logaddexp2, cuprum.exp2, 1.0 / math.log(2.0), 1.0, x1, x2, out)


def fabs(x, out=None):
    """The absolute value in NumPy's float type of ``x`` (``fabs`` has float loops only:
    int8 gives float16, complex values NumPy's ``TypeError``)."""
    dt = _result_dtype(numpy.fabs, x)
    return _finish(cuprum.absolute(_as(x, dt)), out)


def _scaled(np_func, factor, x, out):
    dt = _result_dtype(np_func, x)
    return _finish(_as(x, dt) * dt.type(factor), out)


def deg2rad(x, out=None):
    """Degrees to radians."""
    return _scaled(numpy.deg2rad, math.pi / 180.0, x, out)


def rad2deg(x, out=None):
    """Radians to degrees."""
    return _scaled(numpy.rad2deg, 180.0 / math.pi, x, out)


radians = deg2rad
degrees = rad2deg


def sinc(x):
    """``sin(pi x) / (pi x)``, 1 at 0 (NumPy's ``sinc``)."""
    x = _array(x)
    y = math.pi * cuprum.where(x == 0, 1.0e-20, x)
    # 1e-20 is 0 in float16: at 0, sin(y) / y is 0 / 0 there, so 1 is chosen outright
    return cuprum.where(x == 0, 1, cuprum.sin(y) / y)


def fix(x, out=None):
    """Rounds toward zero (NumPy's ``fix``)."""
    # numpy.trunc's dtype: the same as numpy.fix's, without fix's DeprecationWarning
    # (NumPy 2.5).
    dt = _result_dtype(numpy.trunc, x)
    a = _as(x, dt)
    return _finish(cuprum.where(a >= 0, cuprum.floor(a), cuprum.ceil(a)), out)


def _traced(*args):
    return any(isinstance(a, _FusionVar) for a in args)


def _as_float64(x):
    """A traced value, or a Python number (kept weak), as float64 inside ``cuprum.fuse``."""
    if isinstance(x, _FusionVar):
        return x if x.dtype == numpy.float64 else x.astype(numpy.float64)
    return float(x)


@functools.cache
def _ldexp_kernel():
    # The product is exact in double for every float type's value and a clamped exponent
    # (beyond +-100000 every result is 0 or infinity), then rounded once to T.
    return cuprum.ElementwiseKernel(
        "T x, int64 e",
        "T y",
        "const long long k = e < -100000 ? -100000 : (e > 100000 ? 100000 : e);"
        " y = (T)ldexp((double)x, (int)k)",
        "cuprum_ldexp",
    )


@functools.cache
def _frexp_kernel():
    # Infinities and NaN keep their value with exponent 0 (NumPy's); d - d is 0 exactly
    # for finite d.
    return cuprum.ElementwiseKernel(
        "T x",
        "T m, int32 e",
        "const double d = (double)x; int n = 0;"
        " if (d - d != 0.0) { m = x; } else { m = (T)frexp(d, &n); } e = n",
        "cuprum_frexp",
    )


def ldexp(x1, x2, out=None):
    """``x1 * 2**x2`` (NumPy's ``ldexp``: ``x2`` an integer, the result ``x1``'s float
    type)."""
    dt = _result_dtype(numpy.ldexp, x1, x2)
    if _traced(x1, x2):
        kind = x2.dtype.kind if isinstance(x2, _FusionVar) else numpy.asarray(x2).dtype.kind
        if kind not in "biu":
            raise TypeError(f"ldexp: the exponent must be an integer, not {kind!r} values")
        y = _cuprum.ufunc("ldexp", _as_float64(_as(x1, dt)), _as_float64(x2))
        return _finish(y.astype(dt), out)
    e = cuprum.asarray(x2)
    if e.dtype.kind not in "biu":
        raise TypeError(f"ldexp: the exponent must be an integer, not {e.dtype}")
    return _finish(_ldexp_kernel()(_as(x1, dt), e.astype(numpy.int64, copy=False)), out)


def frexp(x, out=None):
    """``(mantissa, exponent)`` with ``x == mantissa * 2**exponent`` and ``0.5 <=
    |mantissa| < 1`` (NumPy's ``frexp``: the exponent as int32)."""
    dt = _result_dtype(numpy.frexp, x)
    if _traced(x):
        d = _as_float64(_as(x, dt))
        m = _cuprum.ufunc("frexp_mantissa", d).astype(dt)
        e = _cuprum.ufunc("frexp_exponent", d)
    else:
        m, e = _frexp_kernel()(_as(x, dt))
    if out is None:
        return m, e
    if not isinstance(out, tuple) or len(out) != 2:
        raise TypeError("frexp: out must be a tuple of two arrays (mantissa, exponent)")
    _finish(m, out[0])
    _finish(e, out[1])
    return out


def divmod(x1, x2):
    """``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return cuprum.floor_divide(x1, x2), cuprum.remainder(x1, x2)


def modf(x):
    """The fractional and integral parts, each with ``x``'s sign."""
    dt = _result_dtype(numpy.modf, x)
    a = _as(x, dt)
    whole = cuprum.trunc(a)
    signed_zero = cuprum.where(cuprum.signbit(a), -0.0, 0.0)
    frac = cuprum.where(cuprum.isinf(a), signed_zero, a - whole)
    return frac.astype(dt, copy=False), whole


def around(a, decimals=0, out=None):
    """Rounds to ``decimals`` decimals, halves to even (NumPy's ``around``)."""
    a = _array(a)
    decimals = int(decimals)
    if decimals == 0:
        r = cuprum._cuprum.ufunc("round", a)
    elif a.dtype.kind in "fc" and decimals > 0:
        f = 10.0**decimals
        r = (cuprum.rint(a * f) / f).astype(a.dtype, copy=False)
    elif a.dtype.kind in "fc":
        f = 10.0 ** (-decimals)  # divided, as NumPy does (1e-3 is not exact)
        r = (cuprum.rint(a / f) * f).astype(a.dtype, copy=False)
    elif decimals > 0:
        r = a if isinstance(a, _FusionVar) else a.copy()
    else:
        f = 10 ** (-decimals)
        r = (cuprum.rint(a.astype(numpy.float64) / f) * f).astype(a.dtype)
    return _finish(r, out)


round = around
round_ = around


def copyto(dst, src, casting="same_kind", where=True):
    """Copies ``src`` into ``dst`` (broadcast), where ``where`` is true, under NumPy's
    casting rule."""
    if isinstance(src, (bool, int, float, complex)):
        # a Python scalar is weak (NEP 50): NumPy's own check on one element gives its
        # TypeError or OverflowError for this value
        numpy.copyto(numpy.empty((), dst.dtype), src, casting=casting)
        src_dtype = dst.dtype
    else:
        src_dtype = _result_dtype(lambda s: s, src)
    if not numpy.can_cast(src_dtype, dst.dtype, casting=casting):
        raise TypeError(
            f"Cannot cast array data from {src_dtype!r} to {dst.dtype!r} according to the "
            f"rule {casting!r}"
        )
    if isinstance(where, (bool, int, float, complex, numpy.generic)):
        where = bool(where)  # NumPy's: a scalar ``where`` is taken by its truth value
        if not where:
            return
    if where is True:
        dst[...] = src
        return
    w_dtype = _result_dtype(lambda s: s, where)
    if not numpy.can_cast(w_dtype, numpy.bool_, casting="safe"):
        raise TypeError(
            f"Cannot cast array data from {w_dtype!r} to dtype('bool') according to the rule 'safe'"
        )
    dst[...] = cuprum.where(where, src, dst)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    """The product ignoring NaNs (taken as 1)."""
    a = _array(a)
    if a.dtype.kind in "fc":
        a = cuprum.where(cuprum.isnan(a), 1, a)
    return cuprum.prod(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def float_power(x1, x2, out=None, *, dtype=None, casting="same_kind"):
    """``x1 ** x2`` computed in float64 (complex128 for complex operands; ``dtype`` when
    given, one of those two), as NumPy's ``float_power``."""
    dt = _result_dtype(numpy.float_power, x1, x2)
    if dtype is not None:
        want = numpy.dtype(dtype)
        if want not in (numpy.dtype(numpy.float64), numpy.dtype(numpy.complex128)) or (
            not numpy.can_cast(dt, want, casting=casting)
        ):
            raise TypeError(
                "No loop matching the specified signature and casting was found for ufunc "
                "float_power"
            )
        dt = want
    return _finish(cuprum.power(_as(x1, dt), _as(x2, dt)), out)


def _shape_text(shape):
    """A shape as NumPy's broadcasting errors write it: ``(2,4)``."""
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN replaced by ``nan``, infinities by ``posinf``/``neginf`` (the dtype's largest
    finite values by default); complex parts each; other dtypes unchanged."""
    a = _array(x)
    if a.dtype.kind not in "fc":
        return a.copy() if copy else a
    for v in (nan, posinf, neginf):
        shape = getattr(v, "shape", ())
        if numpy.broadcast_shapes(a.shape, shape) != a.shape:
            raise ValueError(
                f"could not broadcast input array from shape {_shape_text(shape)} into "
                f"shape {_shape_text(a.shape)}"
            )
    if a.dtype.kind == "c":
        parts = [nan_to_num(p, True, nan, posinf, neginf) for p in (a.real, a.imag)]
        r = (parts[0] + 1j * parts[1]).astype(a.dtype, copy=False)
    else:
        info = numpy.finfo(a.dtype)
        hi = info.max if posinf is None else posinf
        lo = info.min if neginf is None else neginf
        r = cuprum.where(cuprum.isnan(a), nan, a)
        r = cuprum.where(r == numpy.inf, hi, r)
        r = cuprum.where(r == -numpy.inf, lo, r).astype(a.dtype, copy=False)
    if copy:
        return r
    a[...] = r
    return a
