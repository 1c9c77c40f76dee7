"""``cuprum.linalg``'s solvers, factorizations and spectral functions (and ``polyfit``,
``roots``, ``poly`` over them) against NumPy's LAPACK on random inputs: values to each
precision's tolerance, result dtypes and shapes, stacks, empty and 1x1 matrices, and
NumPy's / CuPy's errors. Factors whose signs or phases are free (QR's are LAPACK's and
compared directly; eigenvectors and singular vectors are not) are checked by what defines
them: orthonormality and reconstruction."""

import numpy as np
import pytest

import cuprum as cp

RNG = np.random.default_rng(29)
FLOATS = [np.float32, np.float64, np.complex64, np.complex128]


def rand(shape, dtype):
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def tol(dtype):
    return 2e-3 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9


def close(got, want, dtype, scale=1.0):
    got = got.get() if hasattr(got, "get") else np.asarray(got)
    t = tol(dtype) * scale
    np.testing.assert_allclose(got, want, rtol=t, atol=t)


def eye_like(m):
    return np.broadcast_to(np.eye(m.shape[-1]), m.shape)


def herm(x):
    return np.conj(np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (1, 1), (2, 2, 3, 3)])
def test_solve_inv_det_slogdet_match_numpy(dtype, shape):
    a = rand(shape, dtype)
    b = rand(shape[:-1] + (2,), dtype)
    x = cp.linalg.solve(cp.asarray(a), cp.asarray(b))
    assert x.dtype == dtype and x.shape == b.shape and x.flags.c_contiguous
    close(x, np.linalg.solve(a, b), dtype, 10)
    v = rand(shape[-1:], dtype)
    close(cp.linalg.solve(cp.asarray(a), cp.asarray(v)), np.linalg.solve(a, v), dtype, 10)
    inv = cp.linalg.inv(cp.asarray(a))
    assert inv.dtype == dtype and inv.flags.c_contiguous
    close(inv, np.linalg.inv(a), dtype, 10)
    d = cp.linalg.det(cp.asarray(a))
    assert d.dtype == dtype and d.shape == shape[:-2]
    close(d, np.linalg.det(a), dtype, 10)
    sign, logdet = cp.linalg.slogdet(cp.asarray(a))
    want = np.linalg.slogdet(a)
    assert sign.dtype == want.sign.dtype and logdet.dtype == want.logabsdet.dtype
    close(sign, want.sign, dtype, 10)
    close(logdet, want.logabsdet, dtype, 10)


def test_integers_and_bools_compute_in_float64():
    a = np.array([[3, 1], [1, 2]], dtype=np.int32)
    x = cp.linalg.solve(cp.asarray(a), cp.asarray([9, 8]))
    assert x.dtype == np.float64
    np.testing.assert_allclose(x.get(), [2.0, 3.0])
    assert cp.linalg.det(cp.asarray(np.eye(3, dtype=bool))).dtype == np.float64


def test_singular_matrices_give_numpys_det_and_no_error():
    z = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert float(cp.linalg.det(cp.asarray(z))) == 0.0
    sign, logdet = cp.linalg.slogdet(cp.asarray(z))
    assert float(sign) == 0.0 and float(logdet) == -np.inf
    # as CuPy's default (no device-side check): the solution is not finite
    assert not np.isfinite(cp.linalg.solve(cp.asarray(z), cp.asarray([1.0, 1.0])).get()).all()


def test_pivoting_handles_a_zero_leading_entry():
    a = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    np.testing.assert_allclose(cp.linalg.inv(cp.asarray(a)).get(), np.linalg.inv(a))
    np.testing.assert_allclose(float(cp.linalg.det(cp.asarray(a))), np.linalg.det(a))


def one_launch_both_ways(run, monkeypatch):
    """``run()``'s results (host arrays) from the one-launch kernels, staged in shared
    memory and working in global memory."""
    from cuprum import _linalg_solve as solver

    staged = [r.get() for r in run()]
    with monkeypatch.context() as m:
        m.setattr(solver, "_smem_room", lambda device: 0)
        unstaged = [r.get() for r in run()]
    return staged, unstaged


def composed(run, module, limit, monkeypatch):
    """``run()``'s results (host arrays) from the composed loops (``module.limit`` -1)."""
    with monkeypatch.context() as m:
        m.setattr(module, limit, -1)
        return [r.get() for r in run()]


def assert_all_close(gots, wants, t):
    for got, want in zip(gots, wants):
        np.testing.assert_allclose(got, want, rtol=t, atol=t)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_one_launch_elimination_is_the_composed_loop(dtype, monkeypatch):
    # Real matrices up to _GJ_MAX_N rows take one kernel (in shared memory where they
    # fit); it must give the composed loop's results: pivots chosen alike (ties, NaNs,
    # zero columns), a row count past the block's threads, batches, and the odd/even
    # swap count behind det's sign.
    from cuprum import _linalg_solve as solver

    cases = [
        rand((3, 300, 300), dtype),
        rand((2, 40, 40), dtype),
        np.ones((2, 4, 4), dtype),
        np.array([[[np.nan, 1], [1, 2]], [[0, 1], [1, 0]], [[-2, 1], [2, 1]]], dtype),
        np.array([[[1, 2, 0], [2, 4, 0], [0, 0, 0]]], dtype),
    ]
    for a in cases:

        def run(a=a):
            x = cp.asarray(a)
            b = cp.asarray(a[..., :2].copy())
            return [cp.linalg.solve(x, b), cp.linalg.det(x), cp.linalg.slogdet(x)[0]]

        slow = composed(run, solver, "_GJ_MAX_N", monkeypatch)
        for fast in one_launch_both_ways(run, monkeypatch):
            assert_all_close(fast, slow, tol(dtype) * 10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_one_launch_factorizations_are_the_composed_loops(dtype, monkeypatch):
    # Real matrices up to _MAX_ELEMENTS take one kernel for cholesky and for QR (geqrf and
    # orgqr, behind qr and svd's basis completion); they must give the composed loops'
    # results: tall, wide and square, more columns than warps, a row count past the
    # block's threads, batches, a zero column (tau 0), a NaN, and a matrix that is not
    # positive definite. (orgqr skips the identity's columns a reflector cannot reach, as
    # LAPACK's does and the composed loop does not, so a NaN spreads less: QR's NaN case
    # is not compared.)
    from cuprum import _linalg_factor as factor

    spd = rand((3, 300, 40), dtype)
    spd = (np.swapaxes(spd, 1, 2) @ spd).astype(dtype)
    zero_col = rand((2, 7, 5), dtype)
    zero_col[:, 2:, 1] = 0
    nan = rand((1, 4, 4), dtype)
    nan[0, 2, 1] = np.nan
    not_pd = np.array([[[1, 2], [2, 1]]], dtype)

    def qr(a):
        x = cp.asarray(a)
        return [*cp.linalg.qr(x, mode="raw"), *cp.linalg.qr(x, mode="complete")]

    def chol(a):
        return [cp.linalg.cholesky(cp.asarray(a))]

    qr_cases = [rand((2, 300, 40), dtype), rand((40, 300), dtype), rand((5, 9, 9), dtype), zero_col]
    cases = [(qr, c) for c in qr_cases] + [(chol, spd), (chol, nan), (chol, not_pd)]
    for f, a in cases:

        def run(f=f, a=a):
            return f(a)

        slow = composed(run, factor, "_MAX_ELEMENTS", monkeypatch)
        for fast in one_launch_both_ways(run, monkeypatch):
            assert_all_close(fast, slow, tol(dtype) * 50)


def _unsign(got, want):
    """``got``'s columns with the signs of ``want``'s (vectors are defined up to sign)."""
    sign = np.sign(np.sum(got * want, axis=-2, keepdims=True))
    return got * np.where(sign == 0, 1, sign)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_one_launch_eigh_is_the_composed_one(dtype, monkeypatch):
    # Real stacks run eigh in one kernel (the shift, the iteration, the order); it must
    # give the composed path's eigenvalues and vectors: either triangle (junk in the
    # other), ties (kept in index order), zero, NaN and 1x1; and NumPy's with more pairs
    # than warps.
    from cuprum import _linalg_svd as spectral

    nan = rand((1, 4, 4), dtype)
    nan[0, 2, 1] = np.nan
    cases = [rand((3, 5, 5), dtype), np.broadcast_to(np.eye(6, dtype=dtype), (2, 6, 6)).copy()]
    cases += [np.zeros((1, 3, 3), dtype), nan, rand((4, 1, 1), dtype)]
    t = tol(dtype) * 50
    for x in cases:
        for uplo in ("L", "U"):

            def run(x=x, uplo=uplo):
                w, v = cp.linalg.eigh(cp.asarray(x), UPLO=uplo)
                return [w, v, cp.linalg.eigvalsh(cp.asarray(x), UPLO=uplo)]

            slow = composed(run, spectral, "_EIGH_MAX_N", monkeypatch)
            for fast in one_launch_both_ways(run, monkeypatch):
                fast[1] = _unsign(fast[1], slow[1])
                assert_all_close(fast, slow, t)
    a = rand((70, 70), dtype)
    h = a + a.T
    want = np.linalg.eigvalsh(h.astype(np.float64))
    for w, v, w2 in one_launch_both_ways(
        lambda: [*cp.linalg.eigh(cp.asarray(h)), cp.linalg.eigvalsh(cp.asarray(h))], monkeypatch
    ):
        close(w, want, dtype, 100)
        close(w2, want, dtype, 100)
        close(h @ v, v * w[None, :], dtype, 100)
    with pytest.raises(ValueError, match="UPLO argument must be 'L' or 'U'"):
        cp.linalg.eigh(cp.asarray(cases[0]), UPLO="X")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_one_launch_svd_is_the_composed_one(dtype, monkeypatch):
    # Real stacks run the iteration, the singular values' order and U's normalisation in
    # one kernel: the composed path's factors (up to signs) for tall, wide and square
    # stacks, a rank-deficient matrix (U completed), ties, zeros; NumPy's values and a
    # reconstruction with more pairs than warps.
    from cuprum import _linalg_svd as spectral

    deficient = np.array([[[1.0, 2, 3], [2, 4, 6], [1, 0, 1], [3, 2, 5]]], dtype)
    cases = [rand((2, 9, 7), dtype), rand((3, 4, 7), dtype), rand((2, 5, 5), dtype)]
    cases += [deficient, np.eye(4, dtype=dtype)[None], np.zeros((1, 3, 2), dtype)]
    cases.append(rand((2, 1, 4), dtype))
    t = tol(dtype) * 50
    for x in cases:
        for full in (True, False):

            def run(x=x, full=full):
                u, s, vh = cp.linalg.svd(cp.asarray(x), full_matrices=full)
                return [s, u, vh, cp.linalg.svd(cp.asarray(x), compute_uv=False)]

            slow = composed(run, spectral, "_EIGH_MAX_N", monkeypatch)
            for s, u, vh, values in one_launch_both_ways(run, monkeypatch):
                assert u.shape == slow[1].shape and vh.shape == slow[2].shape
                assert_all_close([s, values], [slow[0], slow[0]], t)
                k = s.shape[-1]
                close((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], x, dtype, 50)
                close(herm(u) @ u, eye_like(herm(u) @ u), dtype, 50)
    a = rand((75, 70), dtype)
    want = np.linalg.svd(a.astype(np.float64), compute_uv=False)
    for u, s, vh in one_launch_both_ways(
        lambda: cp.linalg.svd(cp.asarray(a), full_matrices=False), monkeypatch
    ):
        close(s, want, dtype, 100)
        close((u * s[None, :]) @ vh, a, dtype, 100)


def test_one_block_pays_for_stacks_and_small_matrices(monkeypatch):
    from cuprum import _linalg_solve as solver

    monkeypatch.setattr(solver, "_sm_count", lambda device: 132)
    # (the H100's times: 1024x1024 float64 solve 311 ms in one block, 187 ms composed)
    assert not solver.one_block_pays(1, 1024**3, 3.3e9, 1024, 170e-6)
    assert solver.one_block_pays(1, 256**3, 3.3e9, 256, 170e-6)
    # a wave of blocks per 132 matrices
    assert solver.one_block_pays(132, 512**3, 3.3e9, 512, 170e-6)
    assert not solver.one_block_pays(133 * 3, 512**3, 3.3e9, 512, 170e-6)

    class Kernel:  # an H100's float64 Jacobi kernel allows 896 threads
        max_threads_per_block = 896

    assert [solver.allowed_threads(Kernel, t) for t in (1024, 896, 512, 64)] == [512, 896, 512, 64]
    assert [solver.block_threads(r, 512) for r in (1, 2, 3, 8, 16, 1000)] == [
        64,
        64,
        128,
        256,
        512,
        512,
    ]


def test_tensorsolve_tensorinv_and_negative_matrix_powers():
    a = RNG.standard_normal((6, 4, 2, 3, 4))
    b = RNG.standard_normal((6, 4))
    got = cp.linalg.tensorsolve(cp.asarray(a), cp.asarray(b))
    np.testing.assert_allclose(got.get(), np.linalg.tensorsolve(a, b), rtol=1e-8)
    a = RNG.standard_normal((3, 4, 4, 3))
    b = RNG.standard_normal((4, 3))
    got = cp.linalg.tensorsolve(cp.asarray(a), cp.asarray(b), axes=(0, 2))
    np.testing.assert_allclose(got.get(), np.linalg.tensorsolve(a, b, axes=(0, 2)), rtol=1e-8)
    t = RNG.standard_normal((4, 6, 8, 3))
    np.testing.assert_allclose(
        cp.linalg.tensorinv(cp.asarray(t), 2).get(), np.linalg.tensorinv(t, 2), rtol=1e-8
    )
    m = RNG.standard_normal((2, 3, 3))
    np.testing.assert_allclose(
        cp.linalg.matrix_power(cp.asarray(m), -3).get(),
        np.linalg.matrix_power(m, -3),
        rtol=1e-8,
    )


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4), (1, 1)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
def test_qr_is_lapacks(dtype, shape, mode):
    a = rand(shape, dtype)
    got = cp.linalg.qr(cp.asarray(a), mode=mode)
    want = np.linalg.qr(a, mode=mode)
    got = got if isinstance(got, tuple) else (got,)
    want = tuple(want) if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        close(g, w, dtype, 10)


@pytest.mark.parametrize("dtype", FLOATS)
def test_cholesky_reads_the_lower_triangle(dtype):
    a = rand((3, 4, 4), dtype)
    h = (a @ herm(a) + 4 * np.eye(4)).astype(dtype)
    junk = h + np.triu(rand((4, 4), dtype), 1)  # the upper triangle is never read
    got = cp.linalg.cholesky(cp.asarray(junk))
    assert got.dtype == dtype
    close(got, np.linalg.cholesky(h), dtype, 10)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (5, 5), (2, 4, 3), (1, 1), (1, 4)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_reconstructs_with_numpys_singular_values(dtype, shape, full):
    a = rand(shape, dtype)
    u, s, vh = cp.linalg.svd(cp.asarray(a), full_matrices=full)
    wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
    assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wvh.shape)
    assert (u.dtype, s.dtype, vh.dtype) == (wu.dtype, ws.dtype, wvh.dtype)
    close(s, ws, dtype, 10)
    u, s, vh = u.get(), s.get(), vh.get()
    k = s.shape[-1]
    close((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, dtype, 10)
    close(herm(u) @ u, eye_like(herm(u) @ u), dtype, 10)
    close(vh @ herm(vh), eye_like(vh @ herm(vh)), dtype, 10)
    close(cp.linalg.svd(cp.asarray(a), compute_uv=False), ws, dtype, 10)


def test_svd_of_a_rank_deficient_matrix_completes_u():
    a = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1], [3, 2, 5]])
    u, s, vh = cp.linalg.svd(cp.asarray(a))
    np.testing.assert_allclose(s.get(), np.linalg.svd(a, compute_uv=False), atol=1e-12)
    u = u.get()
    np.testing.assert_allclose(u.T @ u, np.eye(4), atol=1e-12)
    np.testing.assert_allclose((u[:, :3] * s.get()) @ vh.get(), a, atol=1e-12)
    assert int(cp.linalg.matrix_rank(cp.asarray(a))) == 2


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_and_eigvalsh(dtype, uplo):
    a = rand((3, 5, 5), dtype)
    h = a + herm(a)
    w, v = cp.linalg.eigh(cp.asarray(a), UPLO=uplo)  # one triangle of a, made Hermitian
    ww, wv = np.linalg.eigh(a, UPLO=uplo)
    assert w.dtype == ww.dtype and v.dtype == wv.dtype
    close(w, ww, dtype, 10)
    w, v = cp.linalg.eigh(cp.asarray(h), UPLO=uplo)
    w, v = w.get(), v.get()
    close(h @ v, v * w[..., None, :], dtype, 100)
    close(herm(v) @ v, eye_like(v), dtype, 10)
    close(cp.linalg.eigvalsh(cp.asarray(h), UPLO=uplo), np.linalg.eigvalsh(h), dtype, 10)


def test_eigh_of_degenerate_and_float16_matrices():
    w, v = cp.linalg.eigh(cp.asarray(np.eye(4) * 3.0))
    np.testing.assert_allclose(w.get(), [3.0] * 4)
    np.testing.assert_allclose(v.get().T @ v.get(), np.eye(4), atol=1e-12)
    w, v = cp.linalg.eigh(cp.asarray(np.array([[2.0, 1.0], [1.0, 3.0]], dtype=np.float16)))
    assert w.dtype == np.float16 and v.dtype == np.float16
    np.testing.assert_allclose(w.get(), [1.382, 3.618], rtol=2e-3)


@pytest.mark.parametrize("dtype", FLOATS)
def test_pinv_lstsq_rank_cond_and_svd_norms(dtype):
    a = rand((6, 4), dtype)
    close(cp.linalg.pinv(cp.asarray(a)), np.linalg.pinv(a), dtype, 100)
    for b in (rand((6, 2), dtype), rand((6,), dtype)):
        x, res, rank, s = cp.linalg.lstsq(cp.asarray(a), cp.asarray(b), rcond=None)
        wx, wres, wrank, ws = np.linalg.lstsq(a, b, rcond=None)
        close(x, wx, dtype, 100)
        close(res, wres, dtype, 100)
        assert int(rank) == wrank and res.shape == wres.shape
        close(s, ws, dtype, 10)
    assert int(cp.linalg.matrix_rank(cp.asarray(a))) == 4
    close(cp.linalg.cond(cp.asarray(a)), np.linalg.cond(a), dtype, 100)
    sq = rand((3, 3), dtype)
    for p in (None, 1, -1, 2, -2, np.inf, "fro"):
        close(cp.linalg.cond(cp.asarray(sq), p), np.linalg.cond(sq, p), dtype, 100)
    for o in (2, -2, "nuc"):
        close(cp.linalg.norm(cp.asarray(a), o), np.linalg.norm(a, o), dtype, 10)


def test_empty_matrices():
    assert cp.linalg.inv(cp.zeros((0, 3, 3))).shape == (0, 3, 3)
    np.testing.assert_array_equal(cp.linalg.det(cp.zeros((2, 0, 0))).get(), [1.0, 1.0])
    u, s, vh = cp.linalg.svd(cp.zeros((3, 0)))
    assert (u.shape, s.shape, vh.shape) == ((3, 3), (0,), (0, 0))
    x, res, rank, s = cp.linalg.lstsq(cp.zeros((3, 0)), cp.ones(3), rcond=None)
    assert x.shape == (0,) and res.get().tolist() == [3.0] and int(rank) == 0
    assert cp.linalg.qr(cp.zeros((0, 2)), mode="r").shape == (0, 2)


def test_polyfit_roots_and_poly_of_a_matrix():
    x = np.linspace(0, 1, 20)
    y = 3 * x**2 - x + 0.5 + 0.01 * RNG.standard_normal(20)
    np.testing.assert_allclose(
        cp.polyfit(cp.asarray(x), cp.asarray(y), 2).get(), np.polyfit(x, y, 2), rtol=1e-9
    )
    yy = np.stack([y, 2 * y], axis=1)
    w = RNG.random(20) + 0.5
    got = cp.polyfit(cp.asarray(x), cp.asarray(yy), 3, w=cp.asarray(w))
    np.testing.assert_allclose(got.get(), np.polyfit(x, yy, 3, w=w), rtol=1e-8, atol=1e-10)
    c, res, rank, s, rcond = cp.polyfit(cp.asarray(x), cp.asarray(y), 2, full=True)
    wc, wres, wrank, ws, wrcond = np.polyfit(x, y, 2, full=True)
    np.testing.assert_allclose(c.get(), wc, rtol=1e-9)
    np.testing.assert_allclose(res.get(), wres, rtol=1e-8)
    np.testing.assert_allclose(s.get(), ws, rtol=1e-9)
    assert int(rank) == wrank and rcond == wrcond
    c, cov = cp.polyfit(cp.asarray(x), cp.asarray(y), 2, cov=True)
    wc, wcov = np.polyfit(x, y, 2, cov=True)
    np.testing.assert_allclose(c.get(), wc, rtol=1e-9)
    np.testing.assert_allclose(cov.get(), wcov, rtol=1e-7)
    np.testing.assert_allclose(cp.roots(cp.asarray([3.0, 0.0, -3.0])).get(), [-1.0, 1.0])
    np.testing.assert_allclose(cp.roots(cp.asarray([2.0, 1.0])).get(), [-0.5])
    np.testing.assert_allclose(cp.poly1d([1.0, 0.0, -1.0]).roots.get(), [-1.0, 1.0])
    m = np.array([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(cp.poly(cp.asarray(m)).get(), np.poly(m))
    np.testing.assert_allclose(cp.add(cp.poly1d([1.0, 2.0]), 1).get(), [2.0, 3.0])


def test_errors():
    la = np.linalg.LinAlgError
    with pytest.raises(la, match="1-dimensional array given. Array must be at least two"):
        cp.linalg.inv(cp.ones(3))
    with pytest.raises(la, match="Last 2 dimensions of the array must be square"):
        cp.linalg.det(cp.ones((2, 3)))
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        cp.linalg.solve(cp.ones((2, 2), dtype=cp.float16), cp.ones(2, dtype=cp.float16))
    with pytest.raises(ValueError, match="b must have at least one dimension"):
        cp.linalg.solve(cp.ones((2, 2)), cp.asarray(1.0))
    with pytest.raises(ValueError, match=r"b must have \(M,\) for one-dimensional b"):
        cp.linalg.solve(cp.ones((2, 2)), cp.ones(3))
    with pytest.raises(ValueError, match=r"\(\.\.\., M, K\) for multidimensional b"):
        cp.linalg.solve(cp.ones((2, 2)), cp.ones((3, 1)))
    with pytest.raises(ValueError, match="Unrecognized mode 'x'"):
        cp.linalg.qr(cp.ones((2, 2)), mode="x")
    with pytest.raises(ValueError, match="The deprecated mode 'full' is not supported"):
        cp.linalg.qr(cp.ones((2, 2)), mode="full")
    with pytest.raises(ValueError, match="UPLO argument must be 'L' or 'U'"):
        cp.linalg.eigh(cp.ones((2, 2)), UPLO="X")
    with pytest.raises(la, match="Incompatible dimensions"):
        cp.linalg.lstsq(cp.ones((3, 2)), cp.ones(4))
    with pytest.raises(la, match="cond is not defined on empty arrays"):
        cp.linalg.cond(cp.ones((0, 0)))
    with pytest.raises(ValueError, match="Invalid ind argument"):
        cp.linalg.tensorinv(cp.ones((2, 2)), 0)
    with pytest.raises(TypeError, match="expected 1D vector for x"):
        cp.polyfit(cp.ones((2, 2)), cp.ones(2), 1)


@pytest.mark.parametrize("dtype", FLOATS)
def test_eig_and_eigvals_are_lapacks_in_complex(dtype):
    a = rand((2, 4, 4), dtype)
    w, v = cp.linalg.eig(cp.asarray(a))
    cdt = np.dtype(np.dtype(dtype).char.upper())
    assert w.dtype == cdt and v.dtype == cdt and w.shape == (2, 4) and v.shape == (2, 4, 4)
    ww, wv = np.linalg.eig(a)
    close(w, ww, dtype)
    close(v, wv, dtype)
    close(cp.linalg.eigvals(cp.asarray(a)), np.linalg.eigvals(a), dtype)
    w, v = cp.linalg.eig(cp.zeros((0, 3, 3), dtype=dtype))
    assert w.shape == (0, 3) and v.shape == (0, 3, 3) and w.dtype == dtype


def test_roots_and_poly_of_general_polynomials_and_matrices():
    for p in ([1.0, 2.0, 3.0], [1.0, -6.0, 11.0, -6.0], [2, 0, 0, -16]):
        got = cp.roots(cp.asarray(p)).get()
        want = np.roots(p)
        assert got.dtype == want.dtype, (p, got.dtype, want.dtype)
        np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(want), atol=1e-10)
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(cp.poly(cp.asarray(m)).get(), np.poly(m))


def test_the_array_apis_linalg_functions():
    x = rand((2, 3, 4), np.float64)
    for axis in (None, 1, (0, 2), -1):
        for keepdims in (False, True):
            for o in (2, 1, np.inf, 3):
                got = cp.linalg.vector_norm(cp.asarray(x), axis=axis, keepdims=keepdims, ord=o)
                want = np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=o)
                assert got.shape == want.shape
                np.testing.assert_allclose(got.get(), want, rtol=1e-12)
    for o in ("fro", "nuc", 1, 2, -np.inf):
        got = cp.linalg.matrix_norm(cp.asarray(x), ord=o, keepdims=True)
        np.testing.assert_allclose(got.get(), np.linalg.matrix_norm(x, ord=o, keepdims=True))
    np.testing.assert_allclose(cp.linalg.svdvals(cp.asarray(x)).get(), np.linalg.svdvals(x))
    np.testing.assert_allclose(
        cp.linalg.trace(cp.asarray(x), offset=1).get(), np.linalg.trace(x, offset=1)
    )
    np.testing.assert_allclose(
        cp.linalg.diagonal(cp.asarray(x), offset=-1).get(), np.linalg.diagonal(x, offset=-1)
    )
    v, w = rand((3,), np.complex128), rand((5,), np.complex128)
    np.testing.assert_allclose(cp.linalg.outer(cp.asarray(v), cp.asarray(w)).get(), np.outer(v, w))
    with pytest.raises(ValueError, match="Input arrays must be one-dimensional"):
        cp.linalg.outer(cp.ones((2, 2)), cp.ones(2))
    z = rand((4, 3), np.complex128)
    np.testing.assert_allclose(
        cp.linalg.vecdot(cp.asarray(z), cp.asarray(z[0])).get(), np.linalg.vecdot(z, z[0])
    )
    chain = [rand((5,), np.float64), rand((5, 30), np.float64), rand((30, 2), np.float64)]
    chain.append(rand((2,), np.float64))
    for k in (2, 3, 4):
        parts = chain[:k] if k < 4 else chain
        got = cp.linalg.multi_dot([cp.asarray(p) for p in parts])
        np.testing.assert_allclose(got.get(), np.linalg.multi_dot(parts), rtol=1e-12)
    assert cp.linalg.multi_dot(
        [cp.asarray(chain[1]), cp.asarray(chain[2]), cp.ones((2, 3))]
    ).shape == (5, 3)


def test_errstate_linalg_raise_checks_singular_and_indefinite_matrices():
    z = cp.asarray([[1.0, 2.0], [2.0, 4.0]])
    assert cp.geterr()["linalg"] == "ignore"
    with cp.errstate(linalg="raise"):
        assert cp.geterr()["linalg"] == "raise"
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            cp.linalg.solve(z, cp.ones(2))
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            cp.linalg.inv(z)
        with pytest.raises(np.linalg.LinAlgError, match="Matrix is not positive definite"):
            cp.linalg.cholesky(cp.asarray([[1.0, 2.0], [2.0, 1.0]]))
        np.testing.assert_allclose(cp.linalg.inv(cp.asarray([[2.0]])).get(), [[0.5]])
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            cp.linalg.solve(z, cp.empty((2, 0)))  # no right-hand sides: a is checked
        assert float(cp.linalg.det(z)) == 0.0  # det never raises (NumPy's)
    assert cp.geterr()["linalg"] == "ignore"
    assert not np.isfinite(cp.linalg.inv(z).get()).all()
    old = cp.seterr(divide="ignore", linalg="raise")
    assert old["divide"] == "warn" and cp.geterr()["divide"] == "ignore"
    cp.seterr(**old)
    assert cp.geterr() == old
    with pytest.raises(NotImplementedError, match="'ignore' or 'raise'"):
        cp.seterr(linalg="warn")
    with pytest.raises(ValueError, match="invalid value for over"):
        cp.seterr(over="loud")
