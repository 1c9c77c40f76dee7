"""NumPy functions cuprum composes from its own operations: the integer ufuncs ``gcd``,
``lcm`` and ``bitwise_count`` (one ``ElementwiseKernel`` each), ``heaviside``,
``isposinf`` and ``isneginf``; bit packing (``packbits``, ``unpackbits``); ``rollaxis``;
array conversion with checks (``asarray_chkfinite``, ``require``) and ``fromfile``.

As in ``cuprum._composed``, a ufunc's result dtype (and its ``TypeError`` for operand
types it has no loop for) is NumPy's, asked of NumPy with one-element stand-ins of the
operands; the values are computed on the device.
"""

from __future__ import annotations

import functools
import operator

import cuprum
from cuprum._composed import _as, _finish, _result_dtype
from cuprum._lazy import numpy

# ---------------------------------------------------------------------------- integer ufuncs


@functools.cache
def _gcd_kernel():
    # Euclid's algorithm on the signed values; the magnitude is the gcd (NumPy's, which
    # wraps for the most negative value as C does).
    return cuprum.ElementwiseKernel(
        "T x, T y",
        "T z",
        "T a = x, b = y; while (b != 0) { T t = a % b; a = b; b = t; } z = (a < 0) ? (T)(-a) : a",
        "cuprum_gcd",
    )


@functools.cache
def _lcm_kernel():
    # NumPy's: |x| / gcd * |y|, wrapping to T (the product taken in 64 bits, then
    # truncated), 0 where either is 0.
    return cuprum.ElementwiseKernel(
        "T x, T y",
        "T z",
        "T a = (T)(x < 0 ? -x : x), b = (T)(y < 0 ? -y : y), g = a, h = b;"
        " while (h != 0) { T t = g % h; g = h; h = t; }"
        " z = (g == 0) ? (T)0"
        " : (T)((unsigned long long)(a / g) * (unsigned long long)b)",
        "cuprum_lcm",
    )


@functools.cache
def _bitwise_count_kernel():
    # The 1-bits of |x| (NumPy's), counted in 64 bits for every integer type.
    return cuprum.ElementwiseKernel(
        "T x",
        "uint8 n",
        "unsigned long long v = (x < 0) ? (0ULL - (unsigned long long)(long long)x)"
        " : (unsigned long long)x; int c = 0; while (v) { v &= v - 1; ++c; } n = c",
        "cuprum_bitwise_count",
    )


def gcd(x1, x2, out=None):
    """The greatest common divisor of ``|x1|`` and ``|x2|``, element-wise (integers only;
    ``gcd(0, 0)`` is 0), NumPy's ``gcd``."""
    dt = _result_dtype(numpy.gcd, x1, x2)
    return _finish(_gcd_kernel()(_as(x1, dt), _as(x2, dt)), out)


def lcm(x1, x2, out=None):
    """The lowest common multiple of ``|x1|`` and ``|x2|``, element-wise (integers only;
    0 where either is 0), NumPy's ``lcm``."""
    dt = _result_dtype(numpy.lcm, x1, x2)
    return _finish(_lcm_kernel()(_as(x1, dt), _as(x2, dt)), out)


def bitwise_count(x, out=None):
    """The number of 1-bits in the absolute value of each integer of ``x`` (uint8), NumPy's
    ``bitwise_count``."""
    dt = _result_dtype(numpy.bitwise_count, x)
    a = cuprum.asarray(x)
    if a.dtype.kind == "b":
        a = a.astype(numpy.uint8)
    return _finish(_bitwise_count_kernel()(a).astype(dt, copy=False), out)


def heaviside(x1, x2, out=None):
    """The Heaviside step function: 0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where
    ``x1 > 0``, NaN where ``x1`` is NaN (NumPy's ``heaviside``, floating types)."""
    dt = _result_dtype(numpy.heaviside, x1, x2)
    a, b = _as(x1, dt), _as(x2, dt)
    r = cuprum.where(a < 0, 0, cuprum.where(a > 0, 1, b))
    r = cuprum.where(cuprum.isnan(a), a, r)
    return _finish(r.astype(dt, copy=False), out)


def _signed_inf(x, out, negative, name):
    a = cuprum.asarray(x)
    if a.dtype.kind == "c":
        raise TypeError(
            f"This operation is not supported for {a.dtype} values because it would be ambiguous."
        )
    r = cuprum.isinf(a)
    if a.dtype.kind == "f":
        r = r & (cuprum.signbit(a) if negative else ~cuprum.signbit(a))
    return _finish(r, out)


def isposinf(x, out=None):
    """Whether each element of ``x`` is positive infinity (NumPy's ``isposinf``; complex
    values are refused)."""
    return _signed_inf(x, out, False, "isposinf")


def isneginf(x, out=None):
    """Whether each element of ``x`` is negative infinity (NumPy's ``isneginf``; complex
    values are refused)."""
    return _signed_inf(x, out, True, "isneginf")


# ---------------------------------------------------------------------------- bit packing


def _bit_order(bitorder, what):
    """Whether ``bitorder`` is little-endian: NumPy's checks (``packbits`` takes
    ``'big'``/``'little'``, ``unpackbits`` any word beginning with ``l`` or ``b``); a
    ``bitorder`` that is not a string is CuPy's ``ValueError`` (NumPy's ``TypeError``)."""
    if not isinstance(bitorder, str):
        raise ValueError(f"{what}bits: bitorder must be a str, not {type(bitorder).__name__}")  # noqa: TRY004 (CuPy raises ValueError)
    if what == "pack" and bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    if what == "unpack" and bitorder[:1] not in ("b", "l"):
        raise ValueError("'order' must begin with 'l' or 'b'")
    return bitorder[:1] == "l"


def _weights(little):
    """The value of each bit of a byte, first bit first."""
    w = [1 << k for k in range(8)]
    return cuprum.asarray(w if little else w[::-1], dtype=numpy.uint8)


def packbits(a, /, axis=None, bitorder="big"):
    """The elements of an integer or boolean array packed into the bits of uint8 bytes
    (true when non-zero; the last byte padded with zero bits), along ``axis`` (``None``:
    of the flattened array), NumPy's ``packbits``."""
    a = cuprum.asarray(a)
    if a.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    little = _bit_order(bitorder, "pack")
    if axis is None:
        a, axis = a.ravel(), 0
    else:
        axis = _normalize_axis(axis, a.ndim)
    bits = cuprum.moveaxis(a != 0, axis, -1).astype(numpy.uint8)
    n = bits.shape[-1]
    pad = -n % 8
    if pad:
        bits = cuprum.concatenate(
            (bits, cuprum.zeros(bits.shape[:-1] + (pad,), dtype=numpy.uint8)), axis=-1
        )
    groups = bits.reshape(bits.shape[:-1] + ((n + pad) // 8, 8))
    packed = cuprum.sum(groups * _weights(little), axis=-1, dtype=numpy.uint8)
    return cuprum.moveaxis(packed, -1, axis)


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """The bits of a uint8 array as an array of 0s and 1s (uint8), along ``axis``
    (``None``: of the flattened array); ``count`` bits kept (the rest of the last byte's
    bits dropped, or zeros added; negative: that many dropped), NumPy's ``unpackbits``."""
    a = cuprum.asarray(a)
    if a.dtype != numpy.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    little = _bit_order(bitorder, "unpack")
    if axis is None:
        a, axis = a.ravel(), 0
    else:
        axis = _normalize_axis(axis, a.ndim)
    b = cuprum.moveaxis(a, axis, -1)
    bits = ((b[..., None] & _weights(little)) != 0).astype(numpy.uint8)
    bits = bits.reshape(b.shape[:-1] + (b.shape[-1] * 8,))
    if count is not None:
        count = operator.index(count)
        n = bits.shape[-1]
        keep = count if count >= 0 else n + count
        if keep < 0:
            raise ValueError("-count larger than number of elements")
        if keep <= n:
            bits = bits[..., :keep]
        else:
            bits = cuprum.concatenate(
                (bits, cuprum.zeros(bits.shape[:-1] + (keep - n,), dtype=numpy.uint8)),
                axis=-1,
            )
    return cuprum.moveaxis(bits, -1, axis)


# ---------------------------------------------------------------------------- axes


def _normalize_axis(axis, ndim, name=None):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise cuprum.AxisError(
            f"{name + ': ' if name else ''}axis {axis} is out of bounds for array of "
            f"dimension {ndim}"
        )
    return axis % ndim


@functools.cache
def _byteswap_kernel():
    # The bytes of each part of `part` bytes reversed (a complex number's two parts each).
    return cuprum.ElementwiseKernel(
        "T x, int32 part",
        "T y",
        "unsigned char b[sizeof(T)], r[sizeof(T)]; memcpy(b, &x, sizeof(T));"
        " for (int i = 0; i < (int)sizeof(T); ++i) r[i] = b[i - i % part + part - 1 - i % part];"
        " memcpy(&y, r, sizeof(T))",
        "cuprum_byteswap",
    )


def ndarray_byteswap(a, inplace=False):
    """``a.byteswap(inplace)``: each element's bytes reversed (each part's, for complex
    numbers), in a new array, or in ``a`` itself (returned) with ``inplace``."""
    part = a.itemsize // 2 if a.dtype.kind == "c" else a.itemsize
    if part == 1 or a.size == 0:
        return a if inplace else a.copy()
    if inplace:
        _byteswap_kernel()(a, numpy.int32(part), a)
        return a
    return _byteswap_kernel()(a, numpy.int32(part))


def rollaxis(a, axis, start=0):
    """``a`` with ``axis`` moved to before position ``start`` (NumPy's ``rollaxis``; prefer
    ``moveaxis``)."""
    a = cuprum.asarray(a)
    n = a.ndim
    axis = _normalize_axis(axis, n)
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:  # (NumPy's message gives the start plus ndim)
        raise cuprum.AxisError(
            f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in"
        )
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return a.transpose(axes)


# ---------------------------------------------------------------------------- conversion


def asarray_chkfinite(a, dtype=None, order=None):
    """``a`` as an array (``asarray``), refusing infinities and NaNs with NumPy's
    ``ValueError``."""
    a = cuprum.asarray(a, dtype=dtype, order=order)
    if a.dtype.kind in "fc" and not bool(cuprum.isfinite(a).all()):
        raise ValueError("array must not contain infs or NaNs")
    return a


_REQUIREMENTS = {
    "C": "C",
    "C_CONTIGUOUS": "C",
    "CONTIGUOUS": "C",
    "F": "F",
    "F_CONTIGUOUS": "F",
    "FORTRAN": "F",
    "A": "A",
    "ALIGNED": "A",
    "W": "W",
    "WRITEABLE": "W",
    "O": "O",
    "OWNDATA": "O",
    "E": "E",
    "ENSUREARRAY": "E",
}


def _owns_data(arr, given):
    try:
        return bool(arr.flags.owndata)
    except AttributeError:  # a build without the flag: an array made here owns its data
        return arr is not given


class _RequireDTypeError(ValueError, TypeError):
    """``require``'s bad dtype: CuPy's ``ValueError`` and NumPy's ``TypeError``."""


class _RequireFlagError(ValueError, KeyError):
    """``require``'s unknown flag: CuPy's ``ValueError`` and NumPy's ``KeyError``."""

    def __str__(self):
        return str(self.args[0])


def require(a, dtype=None, requirements=None, *, like=None):
    """``a`` as an array of ``dtype`` meeting ``requirements`` (flags among ``'C'``,
    ``'F'``, ``'A'``, ``'W'``, ``'O'``, ``'E'`` and their long names), copied only where
    it does not (NumPy's ``require``; cuprum's arrays are always aligned). A ``dtype``
    that is not one, or an unknown flag, raises CuPy's ``ValueError`` with its message,
    which is also the class NumPy raises (``TypeError``, ``KeyError``)."""
    if dtype is not None:
        try:
            numpy.dtype(dtype)
        except TypeError:
            raise _RequireDTypeError(f'Incorrect dtype "{dtype}" provided') from None
    if requirements is None or requirements == "" or requirements == []:
        return cuprum.asarray(a, dtype=dtype)
    if isinstance(requirements, str):
        requirements = [requirements]
    unknown = [r for r in requirements if r.upper() not in _REQUIREMENTS]
    if unknown:
        raise _RequireFlagError(f'Incorrect flag "{unknown[0]}" in requirements')
    wanted = {_REQUIREMENTS[r.upper()] for r in requirements}
    order = "A"
    if "C" in wanted and "F" in wanted:
        raise ValueError('Cannot specify both "C" and "F" order')
    if "C" in wanted:
        order = "C"
    elif "F" in wanted:
        order = "F"
    arr = cuprum.asarray(a, dtype=dtype)
    if order == "C" and not arr.flags.c_contiguous:
        return arr.copy(order="C")
    if order == "F" and not arr.flags.f_contiguous:
        return arr.copy(order="F")
    if ("O" in wanted and not _owns_data(arr, a)) or ("W" in wanted and not arr.flags.writeable):
        return arr.copy(order="F" if order == "F" else "C")
    return arr


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    """An array of the data of a file (binary, or text with ``sep``), NumPy's
    ``fromfile``, then put on the device (big-endian data in native byte order)."""
    # Reading a file is host work: NumPy reads it, and its array is uploaded.
    return cuprum.asarray(numpy.fromfile(file, dtype=dtype, count=count, sep=sep, offset=offset))


# Host data (a Python function, an iterable, a string, a text file) is read or evaluated by
# NumPy, and its array uploaded, as CuPy does.


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """``function`` evaluated over the coordinates of ``shape`` (NumPy's
    ``fromfunction``, on the host), put on the device."""
    return cuprum.asarray(numpy.fromfunction(function, shape, dtype=dtype, **kwargs))


def fromiter(iter, dtype, count=-1, *, like=None):
    """A 1-D array of the values of an iterable (NumPy's ``fromiter``), put on the
    device."""
    return cuprum.asarray(numpy.fromiter(iter, dtype, count))


def fromstring(string, dtype=float, count=-1, *, sep, like=None):
    """A 1-D array of the numbers in a text string separated by ``sep`` (NumPy's
    ``fromstring``), put on the device."""
    return cuprum.asarray(numpy.fromstring(string, dtype=dtype, count=count, sep=sep))


def loadtxt(*args, **kwargs):
    """The data of a text file (NumPy's ``loadtxt``, same arguments), put on the device."""
    return cuprum.asarray(numpy.loadtxt(*args, **kwargs))


def genfromtxt(*args, **kwargs):
    """The data of a text file with missing values handled (NumPy's ``genfromtxt``, same
    arguments), put on the device."""
    return cuprum.asarray(numpy.genfromtxt(*args, **kwargs))


# ---------------------------------------------------------------------------- type tests


def iscomplex(x):
    """Whether each element of ``x`` has a non-zero imaginary part (bools; all false for a
    non-complex dtype), NumPy's ``iscomplex``."""
    a = cuprum.asarray(x)
    if a.dtype.kind == "c":
        return a.imag != 0
    return cuprum.zeros(a.shape, dtype=bool)


def isreal(x):
    """Whether each element of ``x`` has a zero imaginary part (bools), NumPy's
    ``isreal``."""
    a = cuprum.asarray(x)
    if a.dtype.kind == "c":
        return a.imag == 0
    return cuprum.ones(a.shape, dtype=bool)


def isfortran(a):
    """Whether ``a`` is Fortran-contiguous and not C-contiguous, NumPy's ``isfortran``."""
    return bool(a.flags.f_contiguous and not a.flags.c_contiguous)


def fromDlpack(dltensor):
    """CuPy's deprecated ``fromDlpack``: :func:`cuprum.from_dlpack` of a DLPack capsule, with
    CuPy's warning, and CuPy's ``ValueError`` for a capsule consumed before."""
    import warnings

    warnings.warn(
        "This function is deprecated in favor of cupy.from_dlpack",
        numpy.exceptions.VisibleDeprecationWarning,
        stacklevel=2,
    )
    try:
        return cuprum.from_dlpack(dltensor)
    except BufferError as e:
        if "already consumed" in str(e):
            raise ValueError("DLPack tensor is consumed multiple times") from None
        raise
