"""CuPy's ``testing._hypothesis``: Pearson's chi-squared goodness-of-fit check that CuPy's
tests of random numbers use (``chi_square_test``)."""

from __future__ import annotations

import math

import numpy


def _lower_gamma_regularized(a, x):
    """P(a, x), the regularized lower incomplete gamma function (a series below a + 1, a
    continued fraction above, each to double precision)."""
    if x <= 0.0:
        return 0.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        k = a
        while abs(term) > abs(total) * 1e-16:
            k += 1.0
            term *= x / k
            total += term
        return total * math.exp(log_front)
    # Lentz's continued fraction for Q(a, x)
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return 1.0 - math.exp(log_front) * h


def _chi_square_critical(df, alpha):
    """The value a chi-squared variable of ``df`` degrees of freedom exceeds with
    probability ``alpha`` (bisection on its distribution function)."""
    lo, hi = 0.0, max(1.0, 10.0 * df + 100.0)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _lower_gamma_regularized(0.5 * df, 0.5 * mid) < 1.0 - alpha:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def chi_square_test(observed, expected, alpha=0.05, df=None):
    """Pearson's chi-squared test of ``observed`` counts against ``expected`` ones: True
    when the hypothesis that they follow the same distribution is **not** rejected at
    significance ``alpha`` (0.05 or 0.01, as CuPy's); ``df`` defaults to the number of
    categories minus one."""
    observed = numpy.asarray(observed)
    expected = numpy.asarray(expected)
    if df is None:
        df = observed.size - 1
    if alpha not in (0.01, 0.05):
        raise ValueError("support only alpha == 0.05 or 0.01")
    chi_square = numpy.sum((observed - expected) ** 2 / expected)
    return bool(chi_square < _chi_square_critical(df, alpha))
