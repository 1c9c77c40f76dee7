"""Distributions composed from ``RandomState``'s own draws (``random_sample`` and
``normal``, which are never changed here) by inverse transforms on the device:
exponential, Laplace, logistic, Gumbel, Rayleigh, Weibull, Pareto, power, log-normal,
Cauchy, geometric, triangular and Wald values; ``permutation``, ``shuffle``, ``bytes``.
Parameters are scalars or arrays (broadcast; ``size=None`` gives their broadcast shape);
bad parameters raise NumPy's ``ValueError``."""

from __future__ import annotations

import operator

from cuprum._lazy import numpy as _numpy


def _cp():
    import cuprum

    return cuprum


def _params(*ps):
    """The parameters as float64 device arrays (scalars stay Python floats)."""
    cp = _cp()
    return [float(p) if _numpy.isscalar(p) else cp.asarray(p).astype(_numpy.float64) for p in ps]


def _shape_of(size, *ps):
    if size is not None:
        return (size,) if isinstance(size, (int, _numpy.integer)) else tuple(size)
    return _numpy.broadcast_shapes(*(_numpy.shape(p) for p in ps))


def _bad(cond):
    """Whether ``cond`` (a Python bool or a device bool array) holds anywhere."""
    if isinstance(cond, bool):
        return cond
    return bool(_cp().any(cond))


def _check(cond, message):
    if _bad(cond):
        raise ValueError(message)


class _ComposedDistributions:
    """The distributions a ``RandomState`` composes from its uniform and normal draws."""

    def _uniform_open(self, shape):
        """Uniform float64 values in ``(0, 1]``: one minus ``random_sample``'s."""
        return 1.0 - self.random_sample(shape, _numpy.float64)

    def _std_exp(self, shape):
        return -_cp().log(self._uniform_open(shape))

    def standard_exponential(self, size=None, dtype=float):
        """Exponential values of scale 1: ``-log(1 - u)``."""
        return self._std_exp(_shape_of(size)).astype(dtype)

    def exponential(self, scale=1.0, size=None, dtype=float):
        """Exponential values of ``scale`` (the mean)."""
        (s,) = _params(scale)
        _check(s < 0, "scale < 0")
        return (self._std_exp(_shape_of(size, s)) * s).astype(dtype)

    def laplace(self, loc=0.0, scale=1.0, size=None, dtype=float):
        """Laplace (double exponential) values around ``loc``."""
        loc, s = _params(loc, scale)
        _check(s < 0, "scale < 0")
        cp = _cp()
        u = self._uniform_open(_shape_of(size, loc, s))
        left = cp.log(u + u)
        right = -cp.log(2.0 - u - u)
        return (loc + s * cp.where(u < 0.5, left, right)).astype(dtype)

    def logistic(self, loc=0.0, scale=1.0, size=None, dtype=float):
        """Logistic values around ``loc``: ``loc + scale * log(u / (1 - u))``."""
        loc, s = _params(loc, scale)
        _check(s < 0, "scale < 0")
        u = self._uniform_open(_shape_of(size, loc, s))
        return (loc + s * _cp().log(u / (1.0 - u))).astype(dtype)

    def gumbel(self, loc=0.0, scale=1.0, size=None, dtype=float):
        """Gumbel (extreme value) values: ``loc - scale * log(-log(u))``."""
        loc, s = _params(loc, scale)
        _check(s < 0, "scale < 0")
        e = self._std_exp(_shape_of(size, loc, s))
        return (loc - s * _cp().log(e)).astype(dtype)

    def rayleigh(self, scale=1.0, size=None, dtype=float):
        """Rayleigh values: ``scale * sqrt(2 E)`` of an exponential ``E``."""
        (s,) = _params(scale)
        _check(s < 0, "scale < 0")
        return (s * _cp().sqrt(2.0 * self._std_exp(_shape_of(size, s)))).astype(dtype)

    def weibull(self, a, size=None, dtype=float):
        """Weibull values of shape ``a``: ``E ** (1 / a)`` (zeros where ``a`` is 0)."""
        (a,) = _params(a)
        _check(a < 0, "a < 0")
        cp = _cp()
        e = self._std_exp(_shape_of(size, a))
        if isinstance(a, float):
            r = e * 0.0 if a == 0 else e ** (1.0 / a)
        else:
            safe = cp.where(a == 0, 1.0, a)
            r = cp.where(a == 0, 0.0, e ** (1.0 / safe))
        return r.astype(dtype)

    def pareto(self, a, size=None, dtype=float):
        """Pareto II (Lomax) values of shape ``a``: ``expm1(E / a)``."""
        (a,) = _params(a)
        _check(a <= 0, "a <= 0")
        return _cp().expm1(self._std_exp(_shape_of(size, a)) / a).astype(dtype)

    def power(self, a, size=None, dtype=float):
        """Values in ``[0, 1]`` of density ``a x**(a-1)``: ``(1 - exp(-E)) ** (1 / a)``."""
        (a,) = _params(a)
        _check(a <= 0, "a <= 0")
        e = self._std_exp(_shape_of(size, a))
        return ((-_cp().expm1(-e)) ** (1.0 / a)).astype(dtype)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, dtype=float):
        """Log-normal values: ``exp`` of normal values of ``mean`` and ``sigma``."""
        m, s = _params(mean, sigma)
        _check(s < 0, "sigma < 0")
        z = self.normal(0.0, 1.0, _shape_of(size, m, s), _numpy.float64)
        return _cp().exp(m + s * z).astype(dtype)

    def standard_cauchy(self, size=None, dtype=float):
        """Standard Cauchy values: the ratio of two standard normal values."""
        shape = _shape_of(size)
        num = self.normal(0.0, 1.0, shape, _numpy.float64)
        den = self.normal(0.0, 1.0, shape, _numpy.float64)
        return (num / den).astype(dtype)

    def geometric(self, p, size=None, dtype=int):
        """The number of trials up to the first success of probability ``p`` (1, 2,
        ...): ``floor(log(u) / log(1 - p)) + 1``."""
        (p,) = _params(p)
        cp = _cp()
        bad = (p <= 0) | (p > 1) | cp.isnan(p) if not isinstance(p, float) else not 0 < p <= 1
        _check(bad, "p <= 0, p > 1 or p contains NaNs")
        u = self._uniform_open(_shape_of(size, p))
        return (cp.floor(cp.log(u) / cp.log1p(-p)) + 1).astype(dtype)

    def triangular(self, left, mode, right, size=None, dtype=float):
        """Values of the triangular distribution on ``[left, right]`` peaking at
        ``mode``."""
        lo, mo, hi = _params(left, mode, right)
        _check(lo > mo, "left > mode")
        _check(mo > hi, "mode > right")
        _check(lo == hi, "left == right")
        cp = _cp()
        u = self.random_sample(_shape_of(size, lo, mo, hi), _numpy.float64)
        width = hi - lo
        fc = (mo - lo) / width
        below = lo + cp.sqrt(u * width * (mo - lo))
        above = hi - cp.sqrt((1.0 - u) * width * (hi - mo))
        return cp.where(u <= fc, below, above).astype(dtype)

    def wald(self, mean, scale, size=None, dtype=float):
        """Wald (inverse Gaussian) values of ``mean`` and ``scale`` (Michael, Schucany
        and Haas's transform of a normal and a uniform value)."""
        m, s = _params(mean, scale)
        _check(m <= 0, "mean <= 0")
        _check(s <= 0, "scale <= 0")
        cp = _cp()
        shape = _shape_of(size, m, s)
        y = self.normal(0.0, 1.0, shape, _numpy.float64) ** 2
        my = m * y
        x = m + m * my / (2 * s) - m / (2 * s) * cp.sqrt(4 * s * my + my * my)
        u = self.random_sample(shape, _numpy.float64)
        return cp.where(u <= m / (m + x), x, m * m / x).astype(dtype)

    def _order(self, n):
        """A uniformly random order of ``n`` items: the argsort of ``n`` uniform draws."""
        cp = _cp()
        return cp.argsort(self.random_sample((n,), _numpy.float64))

    def permutation(self, x):
        """A random permutation of ``arange(x)`` (an int), or of ``x``'s rows (a copy)."""
        cp = _cp()
        if isinstance(x, (int, _numpy.integer)):
            return self._order(operator.index(x)).astype(_numpy.int64)
        a = cp.asarray(x)
        if a.ndim == 0:
            raise IndexError("x must be an integer or at least 1-dimensional")
        return a[self._order(a.shape[0])]

    def shuffle(self, x):
        """Shuffles the rows of the device array ``x`` in place."""
        cp = _cp()
        if not isinstance(x, cp.ndarray):
            raise TypeError("The array must be cupy.ndarray")
        if x.ndim == 0:
            raise TypeError("len() of unsized object")
        x[...] = x[self._order(x.shape[0])]

    def bytes(self, length):
        """``length`` random bytes (drawn on the device; Python ``bytes``)."""
        b = self.randint(0, 256, (operator.index(length),), _numpy.uint8)
        return b.get().tobytes()
