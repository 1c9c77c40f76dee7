"""NumPy's and CuPy's new random API: ``default_rng``, ``Generator`` and the bit generators
``XORWOW``, ``MRG32k3a`` and ``Philox4x3210``.

Decision: every bit generator draws from cuprum's counter-based Philox stream (the one
``_cuprum.Generator`` runs on the GPU and on the host device alike), keyed by the seed and
by the generator's kind, so ``default_rng(s)`` repeats its numbers for ``s`` on any device.
CuPy's own ``default_rng`` numbers depend on the GPU's SM count and never match NumPy's, so
no program can rely on them; the distributions and their arguments are NumPy's.

The distributions are built on the device from the stream's uniform and normal draws:
the inverse transforms of ``_composed.py`` and the rejection methods of ``_rejection.py``,
which ``RandomState`` shares.
"""

from __future__ import annotations

import operator

from cuprum._lazy import numpy as _numpy
from cuprum.random._bit_generator import XORWOW, BitGenerator
from cuprum.random._composed import _check, _params, _shape_of
from cuprum.random._rejection import _float_dtype, _put, _RejectionDistributions


def _cp():
    import cuprum

    return cuprum


def _as_int(x):
    return int(x) if isinstance(x, (float, _numpy.floating)) else operator.index(x)


class Generator(_RejectionDistributions):
    """Random values on the device from a bit generator (NumPy's and CuPy's
    ``Generator``)."""

    def __init__(self, bit_generator):
        self.bit_generator = bit_generator

    @property
    def bit_generator(self):
        """The bit generator the values come from (assigning one restarts the stream from
        it)."""
        return self._bit_generator

    @bit_generator.setter
    def bit_generator(self, bit_generator):
        if not isinstance(bit_generator, BitGenerator):
            raise TypeError("bit_generator must be a cuprum.random BitGenerator")
        self._bit_generator = bit_generator
        self._generator = bit_generator._generator

    def __repr__(self):
        return f"Generator({type(self.bit_generator).__name__})"

    # -- the draws the composed distributions are built on (RandomState's names) --------

    def random_sample(self, size=None, dtype=float):
        return self._generator.uniform(0.0, 1.0, _shape_of(size), _float_dtype(dtype))

    def randint(self, low, high=None, size=None, dtype="l"):
        if high is None:
            low, high = 0, low
        return self._generator.randint(int(low), int(high), _shape_of(size), _numpy.dtype(dtype))

    # -- NumPy's Generator -----------------------------------------------------------------

    def random(self, size=None, dtype="float64", out=None):
        """Uniform values in ``[0, 1)``."""
        shape = out.shape if out is not None and size is None else _shape_of(size)
        return _put(out, self.random_sample(shape, dtype))

    def uniform(self, low=0.0, high=1.0, size=None, dtype="float64"):
        """Uniform values in ``[low, high)`` (scalars or arrays)."""
        d = _float_dtype(dtype)
        lo, hi = _params(low, high)
        if isinstance(lo, float) and isinstance(hi, float):
            return self._generator.uniform(lo, hi, _shape_of(size), d)
        u = self.random_sample(_shape_of(size, lo, hi), _numpy.float64)
        return (lo + u * (hi - lo)).astype(d)

    def standard_normal(self, size=None, dtype="float64", out=None):
        """Standard normal values."""
        shape = out.shape if out is not None and size is None else _shape_of(size)
        return _put(out, self._generator.normal(0.0, 1.0, shape, _float_dtype(dtype)))

    def normal(self, loc=0.0, scale=1.0, size=None, dtype="float64"):
        """Normal values of mean ``loc`` and standard deviation ``scale``."""
        d = _float_dtype(dtype)
        m, s = _params(loc, scale)
        _check(s < 0, "scale < 0")
        if isinstance(m, float) and isinstance(s, float):
            return self._generator.normal(m, s, _shape_of(size), d)
        z = self._generator.normal(0.0, 1.0, _shape_of(size, m, s), _numpy.float64)
        return (m + s * z).astype(d)

    def integers(self, low, high=None, size=None, dtype="int64", endpoint=False):
        """Integers in ``[low, high)`` (``[low, high]`` with ``endpoint``; ``[0, low)``
        when ``high`` is not given)."""
        if high is None:
            low, high = 0, low
        if not (_numpy.isscalar(low) and _numpy.isscalar(high)):
            high = _cp().asarray(high) + 1 if endpoint else high
            return self._randint_arrays(low, high, size, dtype)
        # float bounds are truncated to integers, as CuPy does
        low, high = _as_int(low), _as_int(high) + (1 if endpoint else 0)
        if high <= low:
            if high == low and not endpoint:
                raise ValueError("high <= 0" if low == 0 else "low >= high")
            raise ValueError("low > high" if endpoint else "low >= high")
        d = _numpy.dtype(dtype)
        info = _numpy.iinfo(d) if d.kind in "iu" else None
        if info is None:
            raise TypeError(f"Unsupported dtype {d.name} for integers")
        if low < info.min or high - 1 > info.max:
            raise ValueError(f"bounds out of range for {d.name}")
        return self._generator.randint(low, high, _shape_of(size), d)

    def permuted(self, x, axis=None, out=None):
        """``x`` with the elements of each slice along ``axis`` (all of them: ``None``)
        shuffled independently."""
        cp = _cp()
        a = cp.asarray(x)
        if axis is None:
            r = a.reshape(-1)[self._order(a.size)].reshape(a.shape)
        else:
            ax = axis % a.ndim if a.ndim else 0
            keys = self.random_sample(a.shape, _numpy.float64)
            r = cp.take_along_axis(a, cp.argsort(keys, axis=ax), axis=ax)
        return _put(out, r) if out is not None else r

    def standard_exponential(self, size=None, dtype="float64", method="zig", out=None):
        """Exponential values of scale 1 (by inversion, whatever ``method`` names)."""
        shape = out.shape if out is not None and size is None else _shape_of(size)
        return _put(out, self._std_exp(shape).astype(_float_dtype(dtype)))


def default_rng(seed=None):
    """A ``Generator`` (of ``XORWOW``'s name) seeded with ``seed``; a ``Generator`` given
    is returned as it is, a bit generator is wrapped."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, BitGenerator):
        return Generator(seed)
    return Generator(XORWOW(seed))
