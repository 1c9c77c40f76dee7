"""NumPy's and CuPy's new random API: ``default_rng``, ``Generator`` and the bit generators
``XORWOW``, ``MRG32k3a`` and ``Philox4x3210``.

Decision: every bit generator draws from cuprum's counter-based Philox stream (the one
``_cuprum.Generator`` runs on the GPU and on the host device alike), keyed by the seed and
by the generator's kind, so ``default_rng(s)`` repeats its numbers for ``s`` on any device.
CuPy's own ``default_rng`` numbers depend on the GPU's SM count and never match NumPy's, so
no program can rely on them; the distributions and their arguments are NumPy's.

The distributions are built from uniform and normal draws on the device: inverse transforms
(``_ComposedDistributions``), Marsaglia and Tsang's rejection method for gamma values (and
from them beta, chi-square, F and Dirichlet values), Knuth's product method for Poisson
values of small means and Hörmann's PTRS rejection method for large ones, and for binomial
values Devroye's order-statistic halving (each step draws the median order statistic of the
remaining trials as a beta value and recurses into one half) down to a small mean, then
inversion. Rejection methods redraw only the rejected elements, so a call takes a few
rounds of launches.
"""

from __future__ import annotations

import functools
import operator

from cuprum._lazy import numpy as _numpy
from cuprum.random._bit_generator import XORWOW, BitGenerator
from cuprum.random._composed import _check, _ComposedDistributions, _params, _shape_of


def _cp():
    import cuprum

    return cuprum


def _as_int(x):
    return int(x) if isinstance(x, (float, _numpy.floating)) else operator.index(x)


def _float_dtype(dtype):
    d = _numpy.dtype(dtype)
    if d not in (_numpy.float32, _numpy.float64):
        raise TypeError(f"Unsupported dtype {d.name} for the distribution (float32 or float64)")
    return d


def _put(out, r):
    """``r`` written into ``out`` (NumPy's ``out=``: a C-contiguous array of ``r``'s
    dtype and shape), or ``r``."""
    if out is None:
        return r
    if out.dtype != r.dtype:
        raise TypeError(f"Supplied output array has the wrong type: {out.dtype}, not {r.dtype}")
    if not out.flags.c_contiguous:
        raise ValueError("Supplied output array is not contiguous")
    if out.shape != r.shape:
        raise ValueError(f"size must match out.shape when used together: {out.shape}, {r.shape}")
    out[...] = r
    return out


@functools.cache
def _ptrs_accept_kernel():
    # Hörmann's PTRS acceptance test for Poisson values of mean lam >= 10.
    return _cp().ElementwiseKernel(
        "float64 u, float64 v, float64 lam",
        "int64 k, bool ok",
        "double slam = sqrt(lam), loglam = log(lam);"
        " double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;"
        " double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);"
        " double U = u - 0.5, us = 0.5 - fabs(U);"
        " double kk = floor((2.0 * a / us + b) * U + lam + 0.43); k = (long long)kk;"
        " if (us >= 0.07 && v <= vr) { ok = true; }"
        " else if (kk < 0.0 || (us < 0.013 && v > us)) { ok = false; }"
        " else { ok = log(v) + log(invalpha) - log(a / (us * us) + b)"
        " <= -lam + kk * loglam - lgamma(kk + 1.0); }",
        "cuprum_poisson_ptrs",
    )


class Generator(_ComposedDistributions):
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
            raise NotImplementedError("integers takes scalar bounds in cuprum")
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

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """A sample of ``a`` (an int: ``arange(a)``): with replacement, or (``replace``
        False) distinct elements; ``p``, the probabilities of ``a``'s elements."""
        cp = _cp()
        pop = cp.arange(operator.index(a)) if _numpy.isscalar(a) else cp.asarray(a)
        if pop.ndim == 0:
            raise ValueError("a must be a positive integer or at least 1-dimensional")
        n = pop.shape[axis]
        shape = _shape_of(size) if size is not None else ()
        count = int(_numpy.prod(shape, dtype=_numpy.int64))
        if p is not None:
            w = cp.asarray(p, dtype="float64")
            if w.shape != (n,):
                raise ValueError("a and p must have same size")
            _check(w < 0, "probabilities are not non-negative")
            if abs(float(w.sum()) - 1.0) > 1e-8:
                raise ValueError("probabilities do not sum to 1")
            if replace:
                cdf = cp.cumsum(w)
                cdf /= cdf[-1]
                u = self.random_sample((count,), _numpy.float64)
                idx = cp.minimum(cp.searchsorted(cdf, u, side="right"), n - 1)
            else:
                if count > int(cp.count_nonzero(w)):
                    raise ValueError("Fewer non-zero entries in p than size")
                # Efraimidis and Spirakis: the largest u ** (1 / w) keys, without repeats
                keys = cp.log(self._uniform_open((n,))) / w
                idx = cp.argsort(-keys)[:count]
        elif replace:
            if n == 0 and count:
                raise ValueError("a cannot be empty unless no samples are taken")
            idx = self.randint(0, n, (count,)) if count else cp.zeros((0,), _numpy.int64)
        else:
            if count > n:
                raise ValueError("Cannot take a larger sample than population when replace=False")
            idx = self._order(n)[:count]
        picked = cp.take(pop, idx, axis=axis)
        return picked.reshape(pop.shape[:axis] + shape + pop.shape[axis + 1 :])

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

    # -- rejection and composed distributions --------------------------------------------

    def _std_gamma(self, shape_param, shape):
        """Standard gamma values of ``shape_param`` (a float or a float64 array) in
        ``shape``: Marsaglia and Tsang's method, boosted below 1."""
        cp = _cp()
        k = cp.broadcast_to(cp.asarray(shape_param, dtype="float64"), shape).ravel()
        small = k < 1.0
        ka = cp.where(small, k + 1.0, k)
        d = ka - 1.0 / 3.0
        c = 1.0 / cp.sqrt(9.0 * d)
        out = cp.zeros(k.shape, _numpy.float64)
        todo = cp.flatnonzero(k > 0)
        while todo.size:
            n = todo.size
            x = self._generator.normal(0.0, 1.0, (n,), _numpy.dtype(_numpy.float64))
            u = self._uniform_open((n,))
            dd, cc = d[todo], c[todo]
            v = (1.0 + cc * x) ** 3
            safe = cp.where(v > 0, v, 1.0)
            ok = (v > 0) & (cp.log(u) < 0.5 * x * x + dd - dd * safe + dd * cp.log(safe))
            out[todo[ok]] = (dd * v)[ok]
            todo = todo[~ok]
        if bool(small.any()):
            u = self._uniform_open(k.shape)
            boost = cp.where(small, u ** (1.0 / cp.where(small, k, 1.0)), 1.0)
            out *= boost
        return out.reshape(shape)

    def standard_gamma(self, shape, size=None, dtype="float64", out=None):
        """Gamma values of scale 1 and ``shape``."""
        (k,) = _params(shape)
        _check(k < 0, "shape < 0")
        r = self._std_gamma(k, _shape_of(size, k)).astype(_float_dtype(dtype))
        return _put(out, r)

    def gamma(self, shape, scale=1.0, size=None):
        """Gamma values of ``shape`` and ``scale``."""
        k, s = _params(shape, scale)
        _check(k < 0, "shape < 0")
        _check(s < 0, "scale < 0")
        return self._std_gamma(k, _shape_of(size, k, s)) * s

    def beta(self, a, b, size=None):
        """Beta values of ``a`` and ``b``: ``X / (X + Y)`` of gamma values."""
        a, b = _params(a, b)
        _check(a <= 0, "a <= 0")
        _check(b <= 0, "b <= 0")
        shape = _shape_of(size, a, b)
        x, y = self._std_gamma(a, shape), self._std_gamma(b, shape)
        return x / (x + y)

    def chisquare(self, df, size=None):
        """Chi-square values of ``df`` degrees of freedom: twice gamma values of ``df/2``."""
        (df,) = _params(df)
        _check(df <= 0, "df <= 0")
        return 2.0 * self._std_gamma(df / 2.0, _shape_of(size, df))

    def f(self, dfnum, dfden, size=None):
        """F values: the ratio of chi-square values over their degrees of freedom."""
        n, m = _params(dfnum, dfden)
        _check(n <= 0, "dfnum <= 0")
        _check(m <= 0, "dfden <= 0")
        shape = _shape_of(size, n, m)
        return (self.chisquare(n, shape) / n) / (self.chisquare(m, shape) / m)

    def dirichlet(self, alpha, size=None):
        """Dirichlet values of ``alpha`` (the last axis): gamma values, normalised."""
        cp = _cp()
        al = cp.asarray(alpha, dtype="float64")
        if al.ndim > 1:
            raise ValueError("alpha must be a one-dimensional sequence of floats")
        _check(al < 0, "alpha < 0")
        shape = (_shape_of(size) if size is not None else ()) + al.shape
        g = self._std_gamma(cp.broadcast_to(al, shape), shape)
        return g / g.sum(axis=-1, keepdims=True)

    def standard_exponential(self, size=None, dtype="float64", method="zig", out=None):
        """Exponential values of scale 1 (by inversion, whatever ``method`` names)."""
        shape = out.shape if out is not None and size is None else _shape_of(size)
        return _put(out, self._std_exp(shape).astype(_float_dtype(dtype)))

    def logseries(self, p, size=None):
        """Logarithmic series values of ``p`` (Kemp's method; NumPy's)."""
        cp = _cp()
        (p,) = _params(p)
        bad = (p < 0) | (p >= 1) | cp.isnan(p) if not isinstance(p, float) else not 0 <= p < 1
        _check(bad, "p < 0, p >= 1 or p is NaN")
        shape = _shape_of(size, p)
        pp = cp.broadcast_to(cp.asarray(p, dtype="float64"), shape).ravel()
        r = cp.log1p(-pp)
        out = cp.ones(pp.shape, _numpy.int64)
        todo = cp.arange(pp.size)
        while todo.size:
            n = todo.size
            v = self.random_sample((n,), _numpy.float64)
            u = self.random_sample((n,), _numpy.float64)
            pt, rt = pp[todo], r[todo]
            q = -cp.expm1(rt * u)
            k = cp.floor(1.0 + cp.log(v) / cp.log(cp.where(q > 0, q, 0.5)))
            deep = (v < pt) & (v <= q * q)
            retry = deep & ((k < 1) | (v == 0) | ~cp.isfinite(k))
            val = cp.where(deep, k, cp.where((v < pt) & (v < q), 2.0, 1.0))
            done = ~retry
            out[todo[done]] = val[done].astype(_numpy.int64)
            todo = todo[retry]
        return out.reshape(shape)

    def hypergeometric(self, ngood, nbad, nsample, size=None):
        """The good items among ``nsample`` drawn without replacement from ``ngood`` good
        and ``nbad`` bad ones: each draw simulated (the fewer of the drawn and the left
        items), up to 10^4 draws an element; larger samples are drawn by NumPy on the host
        from this generator's bits."""
        cp = _cp()
        g, b, m = (cp.asarray(x) for x in (ngood, nbad, nsample))
        for x, name in ((g, "ngood"), (b, "nbad"), (m, "nsample")):
            if x.dtype.kind not in "iu":
                x = x.astype(_numpy.int64)
            _check(x < 0, f"{name} < 0")
        total = g.astype(_numpy.int64) + b
        _check(m > total, "ngood + nbad < nsample")
        shape = _shape_of(size, g, b, m)
        g, b, m, total = (
            cp.broadcast_to(x.astype(_numpy.int64), shape).ravel() for x in (g, b, m, total)
        )
        left = m > total // 2  # draw the items left behind instead
        draws = cp.where(left, total - m, m)
        most = int(draws.max()) if draws.size else 0
        if most > 10_000:
            seed = int(self.randint(0, 2**63 - 1, (), _numpy.int64))
            host = _numpy.random.default_rng(seed).hypergeometric(g.get(), b.get(), m.get())
            return cp.asarray(host).reshape(shape)
        good, bad = g.astype(_numpy.float64), b.astype(_numpy.float64)
        count = cp.zeros(g.shape, _numpy.int64)
        for step in range(most):
            u = self.random_sample(g.shape, _numpy.float64)
            live = draws > step
            pick = live & (u * (good + bad) < good)
            count += pick
            good -= pick
            bad -= live & ~pick
        return cp.where(left, g - count, count).reshape(shape)

    def poisson(self, lam=1.0, size=None):
        """Poisson values of mean ``lam``: Knuth's product method below 10, PTRS above."""
        cp = _cp()
        (lam,) = _params(lam)
        _check(lam < 0, "lam < 0")
        shape = _shape_of(size, lam)
        lam = cp.broadcast_to(cp.asarray(lam, dtype="float64"), shape).ravel()
        out = cp.zeros(lam.shape, _numpy.int64)
        # small means: multiply uniforms until the product falls below exp(-lam)
        todo = cp.flatnonzero((lam > 0) & (lam < 10))
        limit = cp.exp(-lam[todo])
        prod = cp.ones(todo.shape, _numpy.float64)
        while todo.size:
            prod *= self._uniform_open((todo.size,))
            more = prod > limit
            out[todo[more]] += 1
            todo, prod, limit = todo[more], prod[more], limit[more]
        todo = cp.flatnonzero(lam >= 10)
        while todo.size:
            u = self.random_sample((todo.size,), _numpy.float64)
            v = self._uniform_open((todo.size,))
            k, ok = _ptrs_accept_kernel()(u, v, lam[todo])
            out[todo[ok]] = k[ok]
            todo = todo[~ok]
        return out.reshape(shape)

    def binomial(self, n, p, size=None):
        """Binomial values of ``n`` trials of probability ``p``."""
        cp = _cp()
        n, p = _params(n, p)
        _check(n < 0, "n < 0")
        bad = (p < 0) | (p > 1) | cp.isnan(p) if not isinstance(p, float) else not 0 <= p <= 1
        _check(bad, "p < 0, p > 1 or p is NaN")
        shape = _shape_of(size, n, p)
        nn = cp.broadcast_to(cp.asarray(n, dtype="float64"), shape).ravel().copy()
        pp = cp.broadcast_to(cp.asarray(p, dtype="float64"), shape).ravel().copy()
        flip = pp > 0.5
        pp = cp.where(flip, 1.0 - pp, pp)
        acc = cp.zeros(nn.shape, _numpy.float64)
        # halve the trials while the mean is large: the i-th of n uniforms (i the middle)
        # is a beta value y; below p, the first i trials succeed and the rest succeed with
        # (p - y) / (1 - y); else only the first i - 1 may, with p / y.
        big = cp.flatnonzero(nn * pp > 30)
        while big.size:
            m, q = nn[big], pp[big]
            i = cp.floor((m + 1.0) / 2.0)
            y = self._std_gamma(i, i.shape)
            y = y / (y + self._std_gamma(m + 1.0 - i, i.shape))
            low = y < q
            acc[big] += cp.where(low, i, 0.0)
            nn[big] = cp.where(low, m - i, i - 1.0)
            pp[big] = cp.where(low, (q - y) / (1.0 - y), q / y)
            big = big[nn[big] * pp[big] > 30]
        # inversion for the small means left
        todo = cp.flatnonzero((nn > 0) & (pp > 0))
        q = 1.0 - pp[todo]
        r = pp[todo] / q
        m = nn[todo]
        f = q**m  # the probability of k = 0
        u = self.random_sample((todo.size,), _numpy.float64)
        k = cp.zeros(todo.shape, _numpy.float64)
        while todo.size:
            more = (u > f) & (k < m)
            u = cp.where(more, u - f, u)
            f = cp.where(more, f * r * (m - k) / (k + 1.0), f)
            k = cp.where(more, k + 1.0, k)
            done = ~more
            acc[todo[done]] += k[done]
            todo, u, f, k, m, r = (t[more] for t in (todo, u, f, k, m, r))
        res = cp.where(
            flip, cp.broadcast_to(cp.asarray(n, _numpy.float64), shape).ravel() - acc, acc
        )
        return res.astype(_numpy.int64).reshape(shape)


def default_rng(seed=None):
    """A ``Generator`` (of ``XORWOW``'s name) seeded with ``seed``; a ``Generator`` given
    is returned as it is, a bit generator is wrapped."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, BitGenerator):
        return Generator(seed)
    return Generator(XORWOW(seed))
