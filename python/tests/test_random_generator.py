"""The new random API (``default_rng``, ``Generator``, the bit generators) and the legacy
one's distributions drawn by rejection (``cuprum.random.gamma`` …): a seed repeats
its numbers, and every distribution's values are NumPy's distribution — a two-sample
Kolmogorov-Smirnov test against NumPy's own ``Generator`` at a significance of 10^-4, with
seeds fixed so that the tests are repeatable — with NumPy's errors for bad arguments."""

import numpy as np
import pytest

import cuprum as cp

N = 20000


def ks_agrees(ours, theirs, crit=2.3):
    """Whether the two samples' empirical distributions lie within the two-sample KS bound
    of significance about 10^-4 (``crit`` is its coefficient)."""
    a = np.sort(np.asarray(ours, dtype=np.float64).ravel())
    b = np.sort(np.asarray(theirs, dtype=np.float64).ravel())
    grid = np.concatenate([a, b])
    d = np.max(
        np.abs(
            np.searchsorted(a, grid, side="right") / a.size
            - np.searchsorted(b, grid, side="right") / b.size
        )
    )
    return d <= crit * np.sqrt((a.size + b.size) / (a.size * b.size)), d


CASES = [
    ("random", (), {}),
    ("uniform", (-2.0, 5.0), {}),
    ("standard_normal", (), {}),
    ("normal", (3.0, 0.5), {}),
    ("integers", (-7, 100), {}),
    ("standard_exponential", (), {}),
    ("exponential", (2.5,), {}),
    ("standard_gamma", (0.3,), {}),
    ("standard_gamma", (1.0,), {}),
    ("gamma", (5.0, 2.0), {}),
    ("beta", (0.7, 3.0), {}),
    ("chisquare", (3.0,), {}),
    ("f", (4.0, 7.0), {}),
    ("poisson", (3.0,), {}),
    ("poisson", (40.0,), {}),
    ("binomial", (10, 0.3), {}),
    ("binomial", (1000, 0.6), {}),
    ("binomial", (10**6, 0.01), {}),
    ("geometric", (0.2,), {}),
    ("hypergeometric", (30, 20, 12), {}),
    ("logseries", (0.7,), {}),
    ("power", (0.5,), {}),
    ("laplace", (1.0, 2.0), {}),
    ("lognormal", (0.0, 0.5), {}),
    ("negative_binomial", (5, 0.4), {}),
    ("standard_t", (5.0,), {}),
    ("noncentral_chisquare", (3.0, 2.0), {}),
    ("noncentral_f", (3.0, 5.0, 2.0), {}),
    ("vonmises", (0.5, 2.0), {}),
    ("zipf", (2.5,), {}),
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_each_distribution_is_numpys(k):
    name, args, kw = CASES[k]
    ours = getattr(cp.random.default_rng(100 + k), name)(*args, size=N, **kw)
    theirs = getattr(np.random.default_rng(100 + k), name)(*args, size=N, **kw)
    assert ours.shape == (N,) and ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    ok, d = ks_agrees(ours.get(), theirs)
    assert ok, (name, args, d)


def _mean_within(x, mean, var):
    """Sample means along axis 0 within five standard errors of ``mean`` (a fixed seed is
    one draw: a tolerance of two standard errors fails one seed in twenty)."""
    n = x.shape[0]
    err = 5 * np.sqrt(np.asarray(var, dtype=float) / n)
    assert (np.abs(x.mean(axis=0) - mean) <= err).all(), (x.mean(axis=0), mean, err)


def test_array_parameters_broadcast():
    g = cp.random.default_rng(3)
    lam = np.array([0.5, 5.0, 50.0])
    _mean_within(g.poisson(cp.asarray(lam), size=(4000, 3)).get(), lam, lam)
    n, p = np.array([5, 500]), np.array([[0.9], [0.1]])
    b = g.binomial(cp.asarray(n), cp.asarray(p), size=(3000, 2, 2)).get()
    _mean_within(b, n * p, n * p * (1 - p))
    a = g.standard_gamma(cp.asarray([0.0, 0.5, 2.0]), size=(4000, 3)).get()
    assert (a[:, 0] == 0).all()
    _mean_within(a[:, 1:], [0.5, 2.0], [0.5, 2.0])
    dr = g.dirichlet([1.0, 2.0, 7.0], size=3000).get()
    np.testing.assert_allclose(dr.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(dr.mean(axis=0), [0.1, 0.2, 0.7], atol=0.01)
    h = g.hypergeometric(10**6, 10**6, 40000, size=5)  # beyond the simulated draws
    assert h.shape == (5,) and (abs(h.get() - 20000) < 1000).all()


def test_a_seed_repeats_its_numbers():
    a = cp.random.default_rng(12).standard_normal(1000).get()
    b = cp.random.default_rng(12).standard_normal(1000).get()
    c = cp.random.default_rng(13).standard_normal(1000).get()
    np.testing.assert_array_equal(a, b)
    assert (a != c).any()
    g = cp.random.Generator(cp.random.Philox4x3210(12))
    first = g.random(10).get()
    assert (first != cp.random.Generator(cp.random.MRG32k3a(12)).random(10).get()).any()
    g.bit_generator = cp.random.Philox4x3210(12)  # a new bit generator restarts the stream
    np.testing.assert_array_equal(g.random(10).get(), first)
    assert cp.random.default_rng(g) is g
    seq = np.random.SeedSequence(99)
    np.testing.assert_array_equal(
        cp.random.default_rng(seq).integers(0, 10**9, 8).get(),
        cp.random.default_rng(np.random.SeedSequence(99)).integers(0, 10**9, 8).get(),
    )
    assert cp.random.XORWOW(1).random_raw(4).dtype == np.uint32


def test_sampling_and_permuting():
    g = cp.random.default_rng(5)
    s = g.choice(50, 50, replace=False).get()
    assert sorted(s.tolist()) == list(range(50))
    w = np.array([0.0, 0.1, 0.2, 0.7])
    x = g.choice(4, 20000, p=w).get()
    np.testing.assert_allclose(np.bincount(x, minlength=4) / 20000, w, atol=0.015)
    y = g.choice(4, 3, replace=False, p=w).get()
    assert len(set(y.tolist())) == 3 and 0 not in y.tolist()
    rows = cp.arange(12).reshape(3, 4)
    p = g.permuted(rows, axis=1).get()
    assert [sorted(r) for r in p.tolist()] == rows.get().tolist()
    assert sorted(g.permutation(10).get().tolist()) == list(range(10))
    out = cp.empty((3, 2))
    assert g.random(out=out) is out
    assert g.standard_normal(size=(3, 2), out=cp.empty((3, 2))).shape == (3, 2)


def test_bad_arguments_are_numpys_errors():
    g = cp.random.default_rng(0)
    with pytest.raises(ValueError):
        g.integers(5, 5)
    with pytest.raises(ValueError):
        g.poisson(-1.0)
    with pytest.raises(ValueError):
        g.binomial(10, 1.5)
    with pytest.raises(ValueError):
        g.hypergeometric(3, 4, 10)
    with pytest.raises(ValueError):
        g.choice(3, 5, replace=False)
    with pytest.raises(TypeError):
        g.random(size=(3, 2), out=cp.empty((3, 2), np.float32))
    with pytest.raises(ValueError):
        g.random(size=(3, 2), out=cp.empty((4, 6))[::2, ::3][:, :2])
    with pytest.raises(TypeError):
        cp.random.Generator(object())


@pytest.mark.parametrize("k", range(len(CASES)))
def test_the_legacy_functions_draw_numpys_distributions(k):
    name, args, kw = CASES[k]
    if not hasattr(np.random, name) or name in ("random", "integers"):
        pytest.skip("not a legacy name")
    cp.random.seed(200 + k)
    ours = getattr(cp.random, name)(*args, size=N, **kw)
    theirs = getattr(np.random.default_rng(200 + k), name)(*args, size=N, **kw)
    assert ours.shape == (N,) and ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    ok, d = ks_agrees(ours.get(), theirs)
    assert ok, (name, args, d)


def test_multinomial_and_multivariate_normal():
    cp.random.seed(4)
    m = cp.random.multinomial(100, [0.2, 0.3, 0.5], size=5000).get()
    assert m.shape == (5000, 3) and (m.sum(axis=1) == 100).all()
    np.testing.assert_allclose(m.mean(axis=0), [20, 30, 50], rtol=0.02)
    cov = np.array([[1.0, 0.5], [0.5, 2.0]])
    for method in ("cholesky", "eigh"):
        v = cp.random.default_rng(5).multivariate_normal([1.0, -2.0], cov, 20000, method=method)
        np.testing.assert_allclose(v.get().mean(axis=0), [1.0, -2.0], atol=0.04)
        np.testing.assert_allclose(np.cov(v.get().T), cov, atol=0.06)
    with pytest.raises(ValueError):
        cp.random.multinomial(10, [0.7, 0.7, 0.1])
    with pytest.raises(ValueError):
        cp.random.multivariate_normal([0.0], [[1.0, 0.0]])


def test_legacy_choice_randint_with_arrays_and_legacy_checks():
    rs = cp.random.RandomState(8)
    s = rs.choice(20, 20, replace=False).get()
    assert sorted(s.tolist()) == list(range(20))
    x = rs.choice([10, 20, 30], 30000, p=[0.5, 0.0, 0.5]).get()
    assert set(x.tolist()) == {10, 30} and abs((x == 10).mean() - 0.5) < 0.02
    assert rs.choice(0, 0).shape == (0,)
    for bad in (3.1, None):
        with pytest.raises(ValueError):
            rs.choice(bad, 1)
    with pytest.raises(ValueError):  # the legacy API takes 1-d populations
        rs.choice(cp.zeros((2, 2)), 1)
    r = rs.randint(cp.asarray([[0], [3]]), cp.asarray([5, 10, 200]), size=(4000, 2, 3)).get()
    assert (r.min(axis=0) == [[0, 0, 0], [3, 3, 3]]).all()
    assert (r.max(axis=0) == [[4, 9, 199], [4, 9, 199]]).all()
    with pytest.raises(ValueError):
        rs.randint(cp.asarray([0, 100]), 5)
    g = cp.random.default_rng(9).integers([0, 10], [3, 20], size=(5000, 2), endpoint=True).get()
    assert g[:, 0].min() == 0 and g[:, 0].max() == 3 and g[:, 1].min() == 10 and g[:, 1].max() == 20
    with pytest.raises(ValueError):
        rs.hypergeometric(10, 10, 0)  # NumPy's legacy check: nsample >= 1
    assert cp.random.default_rng(1).hypergeometric(10, 10, 0, size=3).tolist() == [0, 0, 0]
    assert rs.tomaxint(4).dtype == np.int64
