"""``cuprum.random``: CuPy's legacy random API (``seed``, ``rand``, ``randn``, ``random``,
``uniform``, ``normal``, ``randint``, ``RandomState``; the distributions, ``permutation``,
``shuffle`` and ``bytes`` composed from those draws in :mod:`cuprum.random._composed` and,
by rejection, in :mod:`cuprum.random._rejection`: gamma, beta, binomial, Poisson,
hypergeometric, multinomial, multivariate normal …) on the current device, from its
generator (``get_random_state``; ``set_random_state`` replaces it, ``reset_states`` forgets
every device's).

On a GPU the numbers are CuPy's: the generator is cuRAND's default (XORWOW), seeded and
drawn from with the same calls in the same order as CuPy's ``RandomState``, so
``seed(s)`` followed by the same draws gives CuPy's values bit for bit. On the host device
the same rules run on cuprum's own Philox generator: the same distributions and shapes, a
program's own repeatable numbers, not CuPy's. Distributions and shapes are CuPy's:
``size=None`` gives a 0-d array, ``rand``/``randn``/``random``/``normal``/``uniform`` take
float32 or float64.

The new API (``default_rng``, ``Generator`` over the bit generators ``XORWOW``,
``MRG32k3a`` and ``Philox4x3210``; :mod:`cuprum.random._generator_api`) draws from cuprum's
Philox stream on every device: a seed repeats its numbers anywhere (CuPy's own differ with
the GPU's SM count).
"""

from __future__ import annotations

import os as _os

from cuprum import _cuprum
from cuprum._lazy import numpy as _numpy
from cuprum.random._bit_generator import (  # noqa: F401
    XORWOW,
    BitGenerator,
    MRG32k3a,
    Philox4x3210,
)
from cuprum.random._generator_api import Generator, default_rng  # noqa: F401
from cuprum.random._rejection import _RejectionDistributions


def _shape(size):
    if size is None:
        return ()
    if isinstance(size, (int, _numpy.integer)):
        return (int(size),)
    return tuple(int(n) for n in size)


def _float_dtype(dtype):
    d = _numpy.dtype(dtype)
    if d not in (_numpy.float32, _numpy.float64):
        raise TypeError("cupy.random only supports float32 and float64")
    return d


def _seed_value(seed):
    if seed is None:
        return int.from_bytes(_os.urandom(8), "little")
    if isinstance(seed, _numpy.ndarray):
        import hashlib

        return int(hashlib.md5(seed.tobytes()).hexdigest()[:16], 16)
    s = _numpy.asarray(seed)
    if s.dtype.kind not in "biu":
        raise TypeError("Seed must be an integer.")
    s = int(s)
    if s < 0 or s >= 2**64:
        raise ValueError(f"Seed must be between 0 and 2**64 - 1, got {s}")
    return s


class RandomState(_RejectionDistributions):
    """A generator on the current device (CuPy's ``RandomState``)."""

    _LEGACY = True  # NumPy's legacy argument checks (``hypergeometric``'s nsample >= 1)

    def __init__(self, seed=None, method=None):
        self._generator = _cuprum.Generator(_seed_value(seed), True)

    def seed(self, seed=None):
        """Restarts the stream from ``seed`` (random when ``None``)."""
        self._generator.seed(_seed_value(seed))

    def random_sample(self, size=None, dtype=float):
        """Uniform values in ``[0, 1)``."""
        return self._generator.uniform(0.0, 1.0, _shape(size), _float_dtype(dtype))

    random = ranf = sample = random_sample

    def rand(self, *size, dtype=float):
        """Uniform values in ``[0, 1)`` of shape ``size``."""
        return self.random_sample(size or None, dtype)

    def randn(self, *size, dtype=float):
        """Standard normal values of shape ``size``."""
        return self.normal(0.0, 1.0, size or None, dtype)

    def standard_normal(self, size=None, dtype=float):
        """Standard normal values."""
        return self.normal(0.0, 1.0, size, dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=float):
        """Normal values of mean ``loc`` and standard deviation ``scale`` (scalars or
        arrays, as CuPy: an array ``scale`` scales standard normal values, an array ``loc``
        alone is added to values drawn with the scalar ``scale``)."""
        d = _float_dtype(dtype)
        if _numpy.isscalar(loc) and _numpy.isscalar(scale):
            return self._generator.normal(float(loc), float(scale), _shape(size), d)
        import cuprum

        shape = (
            _shape(size)
            if size is not None
            else _numpy.broadcast_shapes(_numpy.shape(loc), _numpy.shape(scale))
        )
        if _numpy.isscalar(scale):
            z = self._generator.normal(0.0, float(scale), shape, d)
            return (z + cuprum.asarray(loc)).astype(d)
        z = self._generator.normal(0.0, 1.0, shape, d)
        return (z * cuprum.asarray(scale) + loc).astype(d)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=float):
        """Uniform values in ``[low, high)`` (scalars or arrays)."""
        d = _float_dtype(dtype)
        if _numpy.isscalar(low) and _numpy.isscalar(high):
            return self._generator.uniform(float(low), float(high), _shape(size), d)
        import cuprum

        low = cuprum.asarray(low, d)
        high = cuprum.asarray(high, d)
        shape = _shape(size) if size is not None else _numpy.broadcast_shapes(low.shape, high.shape)
        x = self._generator.uniform(0.0, 1.0, shape, d)
        return (low + x * (high - low)).astype(d)

    def randint(self, low, high=None, size=None, dtype="l"):
        """Integers in ``[low, high)`` (``[0, low)`` when ``high`` is not given)."""
        if high is None:
            low, high = 0, low
        if not (_numpy.isscalar(low) and _numpy.isscalar(high)):
            return self._randint_arrays(low, high, size, dtype)
        return self._generator.randint(int(low), int(high), _shape(size), _numpy.dtype(dtype))

    def tomaxint(self, size=None):
        """Integers in ``[0, the largest int64]``."""
        return self.randint(0, 2**63 - 1, size, _numpy.int64)

    def random_integers(self, low, high=None, size=None):
        """Integers in ``[low, high]`` (``[1, low]`` when ``high`` is not given)."""
        if high is None:
            low, high = 1, low
        return self.randint(low, int(high) + 1, size)


_states: dict = {}


def get_random_state():
    """The current device's generator (seeded from ``CUPY_SEED`` or ``CUPRUM_SEED`` when
    set, else at random)."""
    from cuprum import cuda

    device = cuda.Device().id
    state = _states.get(device)
    if state is None:
        env = _os.environ.get("CUPRUM_SEED", _os.environ.get("CUPY_SEED"))
        state = _states[device] = RandomState(None if env is None else int(env))
    return state


def set_random_state(rs):
    """Makes ``rs`` (a ``RandomState``) the current device's generator."""
    if not isinstance(rs, RandomState):
        raise TypeError(f"Random state must be an instance of RandomState. Actual: {type(rs)}")
    from cuprum import cuda

    _states[cuda.get_device_id()] = rs


def reset_states():
    """Forgets every device's generator: the next draw starts a new one (seeded as
    ``get_random_state`` seeds it)."""
    _states.clear()


def seed(seed=None):
    """Reseeds the current device's generator."""
    get_random_state().seed(seed)


def rand(*size, dtype=float):
    """Uniform values in ``[0, 1)`` of shape ``size``."""
    return get_random_state().rand(*size, dtype=dtype)


def randn(*size, dtype=float):
    """Standard normal values of shape ``size``."""
    return get_random_state().randn(*size, dtype=dtype)


def random_sample(size=None, dtype=float):
    """Uniform values in ``[0, 1)``."""
    return get_random_state().random_sample(size, dtype)


random = ranf = sample = random_sample


def standard_normal(size=None, dtype=float):
    """Standard normal values."""
    return get_random_state().standard_normal(size, dtype)


def normal(loc=0.0, scale=1.0, size=None, dtype=float):
    """Normal values."""
    return get_random_state().normal(loc, scale, size, dtype)


def uniform(low=0.0, high=1.0, size=None, dtype=float):
    """Uniform values in ``[low, high)``."""
    return get_random_state().uniform(low, high, size, dtype)


def randint(low, high=None, size=None, dtype="l"):
    """Integers in ``[low, high)``."""
    return get_random_state().randint(low, high, size, dtype)


def random_integers(low, high=None, size=None):
    """Integers in ``[low, high]``."""
    return get_random_state().random_integers(low, high, size)


def choice(a, size=None, replace=True, p=None):
    """A sample of ``a``."""
    return get_random_state().choice(a, size, replace, p)


# the distributions composed from the draws above (cuprum.random._composed)


def bytes(length):
    """``RandomState.bytes`` of the current device's generator."""
    return get_random_state().bytes(length)


def exponential(scale=1.0, size=None, dtype=float):
    """``RandomState.exponential`` of the current device's generator."""
    return get_random_state().exponential(scale, size, dtype)


def geometric(p, size=None, dtype=int):
    """``RandomState.geometric`` of the current device's generator."""
    return get_random_state().geometric(p, size, dtype)


def gumbel(loc=0.0, scale=1.0, size=None, dtype=float):
    """``RandomState.gumbel`` of the current device's generator."""
    return get_random_state().gumbel(loc, scale, size, dtype)


def laplace(loc=0.0, scale=1.0, size=None, dtype=float):
    """``RandomState.laplace`` of the current device's generator."""
    return get_random_state().laplace(loc, scale, size, dtype)


def logistic(loc=0.0, scale=1.0, size=None, dtype=float):
    """``RandomState.logistic`` of the current device's generator."""
    return get_random_state().logistic(loc, scale, size, dtype)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=float):
    """``RandomState.lognormal`` of the current device's generator."""
    return get_random_state().lognormal(mean, sigma, size, dtype)


def pareto(a, size=None, dtype=float):
    """``RandomState.pareto`` of the current device's generator."""
    return get_random_state().pareto(a, size, dtype)


def permutation(x):
    """``RandomState.permutation`` of the current device's generator."""
    return get_random_state().permutation(x)


def power(a, size=None, dtype=float):
    """``RandomState.power`` of the current device's generator."""
    return get_random_state().power(a, size, dtype)


def rayleigh(scale=1.0, size=None, dtype=float):
    """``RandomState.rayleigh`` of the current device's generator."""
    return get_random_state().rayleigh(scale, size, dtype)


def shuffle(x):
    """``RandomState.shuffle`` of the current device's generator."""
    return get_random_state().shuffle(x)


def standard_cauchy(size=None, dtype=float):
    """``RandomState.standard_cauchy`` of the current device's generator."""
    return get_random_state().standard_cauchy(size, dtype)


def standard_exponential(size=None, dtype=float):
    """``RandomState.standard_exponential`` of the current device's generator."""
    return get_random_state().standard_exponential(size, dtype)


def triangular(left, mode, right, size=None, dtype=float):
    """``RandomState.triangular`` of the current device's generator."""
    return get_random_state().triangular(left, mode, right, size, dtype)


def wald(mean, scale, size=None, dtype=float):
    """``RandomState.wald`` of the current device's generator."""
    return get_random_state().wald(mean, scale, size, dtype)


def weibull(a, size=None, dtype=float):
    """``RandomState.weibull`` of the current device's generator."""
    return get_random_state().weibull(a, size, dtype)


def beta(a, b, size=None, dtype=float):
    """``RandomState.beta`` of the current device's generator."""
    return get_random_state().beta(a, b, size, dtype)


def binomial(n, p, size=None, dtype=int):
    """``RandomState.binomial`` of the current device's generator."""
    return get_random_state().binomial(n, p, size, dtype)


def chisquare(df, size=None, dtype=float):
    """``RandomState.chisquare`` of the current device's generator."""
    return get_random_state().chisquare(df, size, dtype)


def dirichlet(alpha, size=None, dtype=float):
    """``RandomState.dirichlet`` of the current device's generator."""
    return get_random_state().dirichlet(alpha, size, dtype)


def f(dfnum, dfden, size=None, dtype=float):
    """``RandomState.f`` of the current device's generator."""
    return get_random_state().f(dfnum, dfden, size, dtype)


def gamma(shape, scale=1.0, size=None, dtype=float):
    """``RandomState.gamma`` of the current device's generator."""
    return get_random_state().gamma(shape, scale, size, dtype)


def hypergeometric(ngood, nbad, nsample, size=None, dtype=int):
    """``RandomState.hypergeometric`` of the current device's generator."""
    return get_random_state().hypergeometric(ngood, nbad, nsample, size, dtype)


def logseries(p, size=None, dtype=int):
    """``RandomState.logseries`` of the current device's generator."""
    return get_random_state().logseries(p, size, dtype)


def multinomial(n, pvals, size=None):
    """``RandomState.multinomial`` of the current device's generator."""
    return get_random_state().multinomial(n, pvals, size)


def multivariate_normal(
    mean, cov, size=None, check_valid="ignore", tol=1e-8, method="cholesky", dtype=float
):
    """``RandomState.multivariate_normal`` of the current device's generator."""
    return get_random_state().multivariate_normal(mean, cov, size, check_valid, tol, method, dtype)


def negative_binomial(n, p, size=None, dtype=int):
    """``RandomState.negative_binomial`` of the current device's generator."""
    return get_random_state().negative_binomial(n, p, size, dtype)


def noncentral_chisquare(df, nonc, size=None, dtype=float):
    """``RandomState.noncentral_chisquare`` of the current device's generator."""
    return get_random_state().noncentral_chisquare(df, nonc, size, dtype)


def noncentral_f(dfnum, dfden, nonc, size=None, dtype=float):
    """``RandomState.noncentral_f`` of the current device's generator."""
    return get_random_state().noncentral_f(dfnum, dfden, nonc, size, dtype)


def poisson(lam=1.0, size=None, dtype=int):
    """``RandomState.poisson`` of the current device's generator."""
    return get_random_state().poisson(lam, size, dtype)


def standard_gamma(shape, size=None, dtype=float):
    """``RandomState.standard_gamma`` of the current device's generator."""
    return get_random_state().standard_gamma(shape, size, dtype)


def standard_t(df, size=None, dtype=float):
    """``RandomState.standard_t`` of the current device's generator."""
    return get_random_state().standard_t(df, size, dtype)


def vonmises(mu, kappa, size=None, dtype=float):
    """``RandomState.vonmises`` of the current device's generator."""
    return get_random_state().vonmises(mu, kappa, size, dtype)


def zipf(a, size=None, dtype=int):
    """``RandomState.zipf`` of the current device's generator."""
    return get_random_state().zipf(a, size, dtype)
