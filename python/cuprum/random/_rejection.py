"""The distributions drawn by rejection and composition, shared by ``Generator`` and
``RandomState``: gamma values by Marsaglia and Tsang's method (and from them beta,
chi-square, F, Dirichlet, Student's t, negative binomial and noncentral chi-square and F
values), Poisson values by Knuth's product method below a mean of 10 and Hörmann's PTRS
above, binomial values by Devroye's order-statistic halving down to a small mean and then
inversion, hypergeometric values by simulated draws, logarithmic series values by Kemp's
method, multinomial values by successive binomial ones and multivariate normal ones through
the covariance's factor. Rejection methods redraw only the rejected elements, so a call
takes a few rounds of launches. Each draws from ``self._generator`` (``normal``) and the
composed draws (``random_sample``, ``_uniform_open``)."""

from __future__ import annotations

import functools
import operator

from cuprum._lazy import numpy as _numpy
from cuprum.random._composed import _check, _ComposedDistributions, _params, _shape_of


def _cp():
    import cuprum

    return cuprum


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


class _RejectionDistributions(_ComposedDistributions):
    """The rejection and composed distributions (module docs)."""

    def _randint_arrays(self, low, high, size, dtype):
        """Integers in ``[low, high)`` for array bounds (broadcast): uniform float64
        values scaled to each range (ranges below 2^53)."""
        cp = _cp()
        lo = cp.asarray(low).astype("int64")
        hi = cp.asarray(high).astype("int64")
        _check(lo >= hi, "low >= high")
        shape = _shape_of(size, lo, hi)
        u = self.random_sample(shape, "float64")
        span = (hi - lo).astype("float64")
        r = lo + cp.minimum(cp.floor(u * span), span - 1.0).astype("int64")
        return r.astype(dtype)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """A sample of ``a`` (an int: ``arange(a)``): with replacement, or (``replace``
        False) distinct elements; ``p``, the probabilities of ``a``'s elements."""
        cp = _cp()
        if a is None:
            raise ValueError("a must be an integer or an array, not None")
        if _numpy.isscalar(a):
            if not isinstance(a, (int, _numpy.integer)):
                raise ValueError(f"a must be an integer or an array, got {a!r}")
            if a < 0 or (a == 0 and size not in (0, None) and _numpy.prod(size) != 0):
                raise ValueError("a must be greater than 0 unless no samples are taken")
            pop = cp.arange(operator.index(a))
        else:
            pop = cp.asarray(a)
        if pop.ndim == 0:
            raise ValueError("a must be a positive integer or at least 1-dimensional")
        if getattr(self, "_LEGACY", False) and pop.ndim != 1:
            raise ValueError("a must be 1-dimensional")
        n = pop.shape[axis]
        shape = _shape_of(size) if size is not None else ()
        count = int(_numpy.prod(shape, dtype=_numpy.int64))
        if count == 0:
            picked = cp.take(pop, cp.zeros((0,), "int64"), axis=axis)
            return picked.reshape(pop.shape[:axis] + shape + pop.shape[axis + 1 :])
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
            if n == 0:
                raise ValueError("a cannot be empty unless no samples are taken")
            idx = self.randint(0, n, (count,))
        else:
            if count > n:
                raise ValueError("Cannot take a larger sample than population when replace=False")
            idx = self._order(n)[:count]
        picked = cp.take(pop, idx, axis=axis)
        return picked.reshape(pop.shape[:axis] + shape + pop.shape[axis + 1 :])

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

    def gamma(self, shape, scale=1.0, size=None, dtype=float):
        """Gamma values of ``shape`` and ``scale``."""
        k, s = _params(shape, scale)
        _check(k < 0, "shape < 0")
        _check(s < 0, "scale < 0")
        return (self._std_gamma(k, _shape_of(size, k, s)) * s).astype(dtype)

    def beta(self, a, b, size=None, dtype=float):
        """Beta values of ``a`` and ``b``: ``X / (X + Y)`` of gamma values."""
        a, b = _params(a, b)
        _check(a <= 0, "a <= 0")
        _check(b <= 0, "b <= 0")
        shape = _shape_of(size, a, b)
        x, y = self._std_gamma(a, shape), self._std_gamma(b, shape)
        return (x / (x + y)).astype(dtype)

    def chisquare(self, df, size=None, dtype=float):
        """Chi-square values of ``df`` degrees of freedom: twice gamma values of ``df/2``."""
        (df,) = _params(df)
        _check(df <= 0, "df <= 0")
        return (2.0 * self._std_gamma(df / 2.0, _shape_of(size, df))).astype(dtype)

    def f(self, dfnum, dfden, size=None, dtype=float):
        """F values: the ratio of chi-square values over their degrees of freedom."""
        n, m = _params(dfnum, dfden)
        _check(n <= 0, "dfnum <= 0")
        _check(m <= 0, "dfden <= 0")
        shape = _shape_of(size, n, m)
        return ((self.chisquare(n, shape) / n) / (self.chisquare(m, shape) / m)).astype(dtype)

    def dirichlet(self, alpha, size=None, dtype=float):
        """Dirichlet values of ``alpha`` (the last axis): gamma values, normalised."""
        cp = _cp()
        al = cp.asarray(alpha, dtype="float64")
        if al.ndim > 1:
            raise ValueError("alpha must be a one-dimensional sequence of floats")
        _check(al < 0, "alpha < 0")
        shape = (_shape_of(size) if size is not None else ()) + al.shape
        g = self._std_gamma(cp.broadcast_to(al, shape), shape)
        return (g / g.sum(axis=-1, keepdims=True)).astype(dtype)

    def logseries(self, p, size=None, dtype=int):
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
        return out.reshape(shape).astype(dtype)

    def hypergeometric(self, ngood, nbad, nsample, size=None, dtype=int):
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
        if getattr(self, "_LEGACY", False):
            _check(m < 1, "nsample < 1")
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
            return cp.asarray(host).reshape(shape).astype(dtype)
        good, bad = g.astype(_numpy.float64), b.astype(_numpy.float64)
        count = cp.zeros(g.shape, _numpy.int64)
        for step in range(most):
            u = self.random_sample(g.shape, _numpy.float64)
            live = draws > step
            pick = live & (u * (good + bad) < good)
            count += pick
            good -= pick
            bad -= live & ~pick
        return cp.where(left, g - count, count).reshape(shape).astype(dtype)

    def poisson(self, lam=1.0, size=None, dtype=int):
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
        return out.reshape(shape).astype(dtype)

    def binomial(self, n, p, size=None, dtype=int):
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
        return res.astype(dtype).reshape(shape)

    def negative_binomial(self, n, p, size=None, dtype=int):
        """The failures before the ``n``-th success of probability ``p``: Poisson values
        of a gamma-distributed mean (of ``n`` and ``(1 - p) / p``)."""
        n, p = _params(n, p)
        _check(n <= 0, "n <= 0")
        cp = _cp()
        bad = (p <= 0) | (p > 1) | cp.isnan(p) if not isinstance(p, float) else not 0 < p <= 1
        _check(bad, "p <= 0, p > 1 or p is NaN")
        shape = _shape_of(size, n, p)
        lam = self._std_gamma(n, shape) * ((1.0 - p) / p)
        return self.poisson(lam, shape, dtype)

    def standard_t(self, df, size=None, dtype=float):
        """Student's t values of ``df`` degrees of freedom: a normal value over the root
        of a chi-square value over ``df``."""
        (df,) = _params(df)
        _check(df <= 0, "df <= 0")
        shape = _shape_of(size, df)
        z = self._generator.normal(0.0, 1.0, shape, _numpy.dtype("float64"))
        return (z / _cp().sqrt(self.chisquare(df, shape) / df)).astype(dtype)

    def noncentral_chisquare(self, df, nonc, size=None, dtype=float):
        """Noncentral chi-square values: chi-square values of ``df + 2 K`` degrees of
        freedom, ``K`` Poisson of mean ``nonc / 2``."""
        df, nonc = _params(df, nonc)
        _check(df <= 0, "df <= 0")
        _check(nonc < 0, "nonc < 0")
        shape = _shape_of(size, df, nonc)
        k = self.poisson(nonc / 2.0, shape, _numpy.int64)
        return self.chisquare(df + 2.0 * k, shape, dtype)

    def noncentral_f(self, dfnum, dfden, nonc, size=None, dtype=float):
        """Noncentral F values: a noncentral chi-square value over ``dfnum`` by a
        chi-square value over ``dfden``."""
        n, m, nonc = _params(dfnum, dfden, nonc)
        _check(n <= 0, "dfnum <= 0")
        _check(m <= 0, "dfden <= 0")
        _check(nonc < 0, "nonc < 0")
        shape = _shape_of(size, n, m, nonc)
        top = self.noncentral_chisquare(n, nonc, shape, "float64") / n
        return (top / (self.chisquare(m, shape) / m)).astype(dtype)

    def vonmises(self, mu, kappa, size=None, dtype=float):
        """Von Mises values on ``[-pi, pi]`` around ``mu`` of concentration ``kappa``
        (Best and Fisher's rejection method; uniform where ``kappa`` is below 1e-8)."""
        cp = _cp()
        mu, kappa = _params(mu, kappa)
        _check(kappa < 0, "kappa < 0")
        shape = _shape_of(size, mu, kappa)
        k = cp.broadcast_to(cp.asarray(kappa, dtype="float64"), shape).ravel()
        r = 1.0 + cp.sqrt(1.0 + 4.0 * k * k)
        rho = (r - cp.sqrt(2.0 * r)) / (2.0 * cp.where(k > 0, k, 1.0))
        s = (1.0 + rho * rho) / (2.0 * cp.where(rho > 0, rho, 1.0))
        w = cp.zeros(k.shape, "float64")
        todo = cp.flatnonzero(k >= 1e-8)
        while todo.size:
            n = todo.size
            z = cp.cos(_numpy.pi * self.random_sample((n,), "float64"))
            st, kt = s[todo], k[todo]
            wt = (1.0 + st * z) / (st + z)
            y = kt * (st - wt)
            v = self._uniform_open((n,))
            ok = (y * (2.0 - y) - v >= 0) | (cp.log(cp.where(y > 0, y, 1.0) / v) + 1.0 - y >= 0)
            ok &= y > 0
            w[todo[ok]] = wt[ok]
            todo = todo[~ok]
        u = self.random_sample(k.shape, "float64")
        angle = cp.where(k >= 1e-8, cp.arccos(cp.clip(w, -1.0, 1.0)), _numpy.pi * (2.0 * u - 1.0))
        sign = cp.where(self.random_sample(k.shape, "float64") < 0.5, -1.0, 1.0)
        angle = cp.where(k >= 1e-8, sign * angle, angle)
        res = cp.broadcast_to(cp.asarray(mu, dtype="float64"), shape).ravel() + angle
        res = cp.mod(res + _numpy.pi, 2.0 * _numpy.pi) - _numpy.pi
        return res.reshape(shape).astype(dtype)

    def zipf(self, a, size=None, dtype=int):
        """Zipf values of exponent ``a`` > 1 (Devroye's rejection method)."""
        cp = _cp()
        (a,) = _params(a)
        _check(a <= 1, "a <= 1 or a is NaN")
        shape = _shape_of(size, a)
        am1 = cp.broadcast_to(cp.asarray(a, dtype="float64"), shape).ravel() - 1.0
        b = 2.0**am1
        out = cp.zeros(am1.shape, "int64")
        todo = cp.arange(am1.size)
        while todo.size:
            n = todo.size
            u = self._uniform_open((n,))
            v = self.random_sample((n,), "float64")
            e, bt = am1[todo], b[todo]
            x = cp.floor(u ** (-1.0 / e))
            fine = (x >= 1) & (x < 2.0**62)
            xs = cp.where(fine, x, 1.0)
            t = (1.0 + 1.0 / xs) ** e
            ok = fine & (v * xs * (t - 1.0) / (bt - 1.0) <= t / bt)
            out[todo[ok]] = xs[ok].astype("int64")
            todo = todo[~ok]
        return out.reshape(shape).astype(dtype)

    def multinomial(self, n, pvals, size=None):
        """Counts of ``n`` trials over the categories of probabilities ``pvals`` (the
        last category takes what the others leave): successive binomial values."""
        cp = _cp()
        pv = _numpy.asarray(pvals.get() if hasattr(pvals, "get") else pvals, dtype=_numpy.float64)
        if pv.ndim != 1:
            raise ValueError("pvals must be a 1-d sequence")
        if (pv < 0).any() or (pv > 1).any() or _numpy.isnan(pv).any():
            raise ValueError("pvals < 0, pvals > 1 or pvals contains NaNs")
        if pv[:-1].sum() > 1.0 + 1e-12:
            raise ValueError("sum(pvals[:-1]) > 1.0")
        shape = _shape_of(size) if size is not None else ()
        left = cp.full(shape, int(n), dtype="int64")
        rest = 1.0
        counts = []
        for p in pv[:-1]:
            q = min(max(float(p) / rest, 0.0), 1.0) if rest > 0 else 0.0
            c = self.binomial(left, q, shape, _numpy.int64) if q > 0 else cp.zeros(shape, "int64")
            counts.append(c)
            left = left - c
            rest -= float(p)
        counts.append(left)
        return cp.stack(counts, axis=-1)

    def multivariate_normal(
        self, mean, cov, size=None, check_valid="ignore", tol=1e-8, method="cholesky", dtype=float
    ):
        """Normal vectors of ``mean`` and covariance ``cov``: ``mean + z @ F.T`` with
        ``F F.T = cov`` (``method``: ``'cholesky'``, or ``'svd'``/``'eigh'`` for a
        semi-definite ``cov``); ``check_valid`` ``'warn'``/``'raise'`` checks that
        ``cov`` is positive semi-definite."""
        cp = _cp()
        m = cp.asarray(mean, dtype="float64")
        c = cp.asarray(cov, dtype="float64")
        if m.ndim != 1 or c.shape != (m.shape[0], m.shape[0]):
            raise ValueError("mean must be 1 dimensional and cov 2 dimensional and square")
        if check_valid not in ("ignore", "warn", "raise"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        if method == "cholesky":
            factor = cp.linalg.cholesky(c)
        else:
            w, v = cp.linalg.eigh(c)
            if check_valid != "ignore" and bool((w < -tol * float(cp.abs(w).max())).any()):
                message = "covariance is not symmetric positive-semidefinite."
                if check_valid == "raise":
                    raise ValueError(message)
                import warnings

                warnings.warn(message, RuntimeWarning, stacklevel=2)
            factor = v * cp.sqrt(cp.clip(w, 0.0, None))
        shape = (_shape_of(size) if size is not None else ()) + m.shape
        z = self._generator.normal(0.0, 1.0, shape, _numpy.dtype("float64"))
        return (m + z @ factor.T).astype(dtype)
