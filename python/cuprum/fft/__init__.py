"""``cuprum.fft``: NumPy's discrete Fourier transforms (CuPy's ``cupy.fft``) on cuFFT, or on
the host device through rustfft.

Every function takes NumPy's arguments (``n`` / ``s`` to cut or zero-pad, ``axis`` /
``axes``, ``norm`` of ``"backward"``, ``"ortho"`` or ``"forward"``, ``out``) and keeps
CuPy's precision: float16, float32 and complex64 inputs transform in single precision
(complex64 results), everything else in double. Plans are cached per device, stream and
shape (:mod:`cuprum.fft.config`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cuprum import _cuprum
from cuprum.fft import config

__all__ = [
    "config",
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]


def _points(n: Any) -> int:
    n = int(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _as_array(a: Any) -> Any:
    import cuprum

    return a if isinstance(a, cuprum.ndarray) else cuprum.asarray(a)


def _into(result: Any, out: Any) -> Any:
    if out is None:
        return result
    import cuprum

    if not isinstance(out, cuprum.ndarray):
        raise TypeError(f"out must be a cuprum.ndarray, got {type(out).__name__}")
    if out.shape != result.shape:
        raise ValueError(f"out has shape {out.shape}, the result has shape {result.shape}")
    if out.dtype != result.dtype:
        raise TypeError(f"out has dtype {out.dtype}, the result has dtype {result.dtype}")
    out[...] = result
    return out


def _half_back(a: Any, r: Any, kind: str, axes: int = 1) -> Any:
    # NumPy 2 returns float16 from the inverse real transforms of a float16 input over one
    # axis (over several, the complex steps before make it float32, as cuprum's are).
    if kind in ("irfft", "hfft", "irfftn") and axes == 1 and a.dtype == "float16":
        return r.astype("float16")
    return r


def _one(kind: str, a: Any, n: Any, axis: int, norm: str | None, out: Any) -> Any:
    a = _as_array(a)
    if n is not None:
        n = _points(n)
    return _into(_half_back(a, _cuprum._fft(a, n, int(axis), norm, kind), kind), out)


def _axes_list(axes: Any) -> list[int] | None:
    if axes is None:
        return None
    if isinstance(axes, int):
        return [axes]
    return [int(x) for x in axes]


def _nd(kind: str, a: Any, s: Any, axes: Any, norm: str | None, out: Any) -> Any:
    a = _as_array(a)
    ax = _axes_list(axes)
    if ax == []:
        # CuPy's rule: no axes leave a complex transform's input as it is; the real ones
        # have no last axis to halve.
        if kind in ("fftn", "ifftn"):
            return a
        raise IndexError("list index out of range")
    lens = None
    if s is not None:
        s = [s] if isinstance(s, int) else list(s)
        if ax is not None and len(s) != len(ax):
            raise ValueError("Shape and axes have different lengths.")
        picked = ax if ax is not None else list(range(a.ndim - len(s), a.ndim))
        lens = []
        for i, (ax_i, n) in enumerate(zip(picked, s)):
            if n is None or int(n) == -1:
                m = a.shape[ax_i]
                n = 2 * (m - 1) if kind == "irfftn" and i == len(s) - 1 else m
            lens.append(_points(n))
    count = len(ax) if ax is not None else len(lens) if lens is not None else a.ndim
    return _into(_half_back(a, _cuprum._fftn(a, lens, ax, norm, kind), kind, count), out)


def fft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """The 1-D discrete Fourier transform along ``axis`` (``n`` points)."""
    return _one("fft", a, n, axis, norm, out)


def ifft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """The inverse of :func:`fft`."""
    return _one("ifft", a, n, axis, norm, out)


def rfft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """The transform of real input: the ``n // 2 + 1`` non-negative frequencies."""
    return _one("rfft", a, n, axis, norm, out)


def irfft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """The inverse of :func:`rfft`: ``n`` real values (default ``2 * (m - 1)``)."""
    return _one("irfft", a, n, axis, norm, out)


def hfft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """The transform of a Hermitian-symmetric signal: ``n`` real values."""
    return _one("hfft", a, n, axis, norm, out)


def ihfft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """The inverse of :func:`hfft`."""
    return _one("ihfft", a, n, axis, norm, out)


def fftn(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
    out: Any = None,
) -> Any:
    """The n-d discrete Fourier transform over ``axes`` (all by default)."""
    return _nd("fftn", a, s, axes, norm, out)


def ifftn(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
    out: Any = None,
) -> Any:
    """The inverse of :func:`fftn`."""
    return _nd("ifftn", a, s, axes, norm, out)


def rfftn(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
    out: Any = None,
) -> Any:
    """The n-d transform of real input (the last axis given is halved)."""
    return _nd("rfftn", a, s, axes, norm, out)


def irfftn(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
    out: Any = None,
) -> Any:
    """The inverse of :func:`rfftn`."""
    return _nd("irfftn", a, s, axes, norm, out)


def fft2(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
    out: Any = None,
) -> Any:
    """The 2-D discrete Fourier transform (:func:`fftn` over ``axes``)."""
    return _nd("fftn", a, s, axes, norm, out)


def ifft2(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
    out: Any = None,
) -> Any:
    """The inverse of :func:`fft2`."""
    return _nd("ifftn", a, s, axes, norm, out)


def rfft2(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
    out: Any = None,
) -> Any:
    """The 2-D transform of real input."""
    return _nd("rfftn", a, s, axes, norm, out)


def irfft2(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
    out: Any = None,
) -> Any:
    """The inverse of :func:`rfft2`."""
    return _nd("irfftn", a, s, axes, norm, out)


def fftfreq(n: int, d: float = 1.0) -> Any:
    """The sample frequencies of an ``n``-point transform with spacing ``d`` (float64)."""
    import cuprum

    n = int(n)
    half = (n - 1) // 2 + 1
    k = cuprum.concatenate(
        (cuprum.arange(0, half, dtype="int64"), cuprum.arange(-(n // 2), 0, dtype="int64"))
    )
    return k * (1.0 / (n * d))


def rfftfreq(n: int, d: float = 1.0) -> Any:
    """The sample frequencies of :func:`rfft` (float64)."""
    import cuprum

    n = int(n)
    return cuprum.arange(0, n // 2 + 1, dtype="int64") * (1.0 / (n * d))


def _shift(x: Any, axes: Any, sign: int) -> Any:
    import cuprum

    x = _as_array(x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    axes = tuple(axes)
    shifts = [sign * (x.shape[ax] // 2) for ax in axes]
    if not axes:
        return x.copy()
    return cuprum.roll(x, shifts, axes)


def fftshift(x: Any, axes: Any = None) -> Any:
    """Moves the zero frequency to the middle (each axis rolled by half its length)."""
    return _shift(x, axes, 1)


def ifftshift(x: Any, axes: Any = None) -> Any:
    """The inverse of :func:`fftshift`."""
    return _shift(x, axes, -1)
