"""``cuprum.fft`` against ``numpy.fft`` on random inputs: every transform, lengths that are
powers of two, primes and neither, ``n`` / ``s`` cutting and padding (``-1`` entries
included), ``axes`` in any order and more than three of them, every ``norm``, views,
empty batches, CuPy's result dtypes (single precision stays single), ``out=``, the
frequency helpers, the plan cache, and NumPy's errors."""

import numpy as np
import pytest

import cuprum as cp

RNG = np.random.default_rng(41)


def rand(shape, dtype):
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def single(dtype):
    return np.dtype(dtype) in (np.float16, np.float32, np.complex64)


def close(got, want, dtype):
    got = got.get()
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    t = (3e-5 if single(dtype) else 1e-11) * scale * max(1.0, np.log2(max(want.size, 2)))
    np.testing.assert_allclose(got, want, rtol=0, atol=t)


def want_dtype(dtype, real_out=False):
    if real_out:
        return np.float32 if single(dtype) else np.float64
    return np.complex64 if single(dtype) else np.complex128


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128, np.int32])
@pytest.mark.parametrize("n", [1, 2, 3, 8, 17, 100, 243, 1024])
@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_complex_1d_matches_numpy(name, n, dtype):
    x = rand((3, n), dtype) if np.dtype(dtype).kind != "i" else RNG.integers(-9, 9, (3, n), dtype)
    got = getattr(cp.fft, name)(cp.asarray(x))
    assert got.dtype == want_dtype(dtype)
    close(got, getattr(np.fft, name)(x.astype(np.complex128)), dtype)


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("n", [None, 1, 5, 16, 33])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_n_axis_and_norm(norm, n, axis):
    x = rand((6, 10), np.complex128)
    for name in ["fft", "ifft", "rfft", "hfft", "ihfft"]:
        src = x.real.copy() if name in ("rfft", "ihfft") else x
        if name == "hfft" and n == 1:
            continue
        got = getattr(cp.fft, name)(cp.asarray(src), n=n, axis=axis, norm=norm)
        want = getattr(np.fft, name)(src, n=n, axis=axis, norm=norm)
        close(got, want, np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [2, 7, 8, 31, 64])
def test_real_roundtrip(n, dtype):
    x = rand((4, n), dtype)
    f = cp.fft.rfft(cp.asarray(x))
    assert f.dtype == want_dtype(dtype)
    close(f, np.fft.rfft(x.astype(np.float64)), dtype)
    back = cp.fft.irfft(f, n=n)
    assert back.dtype == want_dtype(dtype, real_out=True)
    close(back, x.astype(np.float64), dtype)
    # The default length 2 (m - 1), with the Nyquist and zero imaginary parts dropped.
    z = rand((4, n // 2 + 1), np.complex128)
    close(cp.fft.irfft(cp.asarray(z)), np.fft.irfft(z), np.float64)


@pytest.mark.parametrize(
    "shape,s,axes",
    [
        ((4, 6), None, None),
        ((4, 6), (8, 3), None),
        ((3, 4, 5), None, (0, 2)),
        ((3, 4, 5), (2, 7), (2, 0)),
        ((3, 4, 5), (-1, 6), (1, 2)),
        ((2, 3, 4, 5, 2), None, None),
        ((2, 3, 4, 5, 2), None, (4, 0, 2, 1)),
        ((5, 6), (3,), None),
    ],
)
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_nd_transforms(shape, s, axes, norm):
    x = rand(shape, np.complex128)
    r = x.real.copy()
    # `s` alone takes the last len(s) axes (CuPy's rule; NumPy 2 wants them spelled out).
    np_axes = (
        axes if axes is not None or s is None else tuple(range(len(shape) - len(s), len(shape)))
    )
    for name, src in [("fftn", x), ("ifftn", x), ("rfftn", r)]:
        got = getattr(cp.fft, name)(cp.asarray(src), s=s, axes=axes, norm=norm)
        want = getattr(np.fft, name)(src, s=s, axes=np_axes, norm=norm)
        close(got, want, np.float64)
    spec = np.fft.rfftn(r, axes=np_axes)
    picked = np_axes if np_axes is not None else range(len(shape))
    rs = None if s is None else tuple(shape[a] if n == -1 else n for a, n in zip(picked, s))
    got = cp.fft.irfftn(cp.asarray(spec), s=rs, axes=axes, norm=norm)
    close(got, np.fft.irfftn(spec, s=rs, axes=np_axes, norm=norm), np.float64)


def test_2d_defaults_and_single_precision():
    x = rand((3, 8, 6), np.float32)
    for name in ["fft2", "ifft2", "rfft2"]:
        got = getattr(cp.fft, name)(cp.asarray(x))
        assert got.dtype == np.complex64
        close(got, getattr(np.fft, name)(x.astype(np.float64)), np.float32)
    spec = np.fft.rfft2(x.astype(np.float64)).astype(np.complex64)
    got = cp.fft.irfft2(cp.asarray(spec), s=(8, 6))
    assert got.dtype == np.float32
    close(got, x.astype(np.float64), np.float32)
    h = cp.fft.fft(cp.asarray(np.ones(4, np.float16)))
    assert h.dtype == np.complex64


def test_views_and_other_frameworks_inputs():
    x = rand((6, 8), np.complex128)
    a = cp.asarray(x)
    close(cp.fft.fft(a.T), np.fft.fft(x.T), np.float64)
    close(cp.fft.fft(a[::2, 1::3], axis=0), np.fft.fft(x[::2, 1::3], axis=0), np.float64)
    close(cp.fft.fftn(a[:, ::-1]), np.fft.fftn(x[:, ::-1]), np.float64)
    close(cp.fft.fft(x.tolist()), np.fft.fft(x), np.float64)
    # The input is left as it was (C2R transforms overwrite their input on a GPU).
    spec = cp.asarray(np.fft.rfft2(x.real))
    before = spec.get()
    cp.fft.irfft2(spec)
    np.testing.assert_array_equal(spec.get(), before)


def test_empty_batches_and_out():
    e = cp.zeros((0, 4), dtype=cp.float32)
    f = cp.fft.fft(e)
    assert f.shape == (0, 4) and f.dtype == np.complex64
    assert cp.fft.rfft(e).shape == (0, 3)
    x = rand((5,), np.complex128)
    out = cp.empty(5, dtype=cp.complex128)
    r = cp.fft.fft(cp.asarray(x), out=out)
    assert r is out
    close(out, np.fft.fft(x), np.float64)
    with pytest.raises(ValueError, match="shape"):
        cp.fft.fft(cp.asarray(x), out=cp.empty(4, dtype=cp.complex128))


def test_frequency_helpers():
    for n in [1, 4, 5, 8]:
        for d in [1.0, 0.1]:
            np.testing.assert_allclose(cp.fft.fftfreq(n, d).get(), np.fft.fftfreq(n, d))
            np.testing.assert_allclose(cp.fft.rfftfreq(n, d).get(), np.fft.rfftfreq(n, d))
    assert cp.fft.fftfreq(4).dtype == np.float64
    x = np.arange(30).reshape(5, 6)
    for axes in [None, 0, (1,), (0, 1)]:
        np.testing.assert_array_equal(
            cp.fft.fftshift(cp.asarray(x), axes=axes).get(), np.fft.fftshift(x, axes=axes)
        )
        np.testing.assert_array_equal(
            cp.fft.ifftshift(cp.asarray(x), axes=axes).get(), np.fft.ifftshift(x, axes=axes)
        )


def test_plan_cache_config():
    cache = cp.fft.config.get_plan_cache()
    size = cache.get_size()
    try:
        cache.set_size(2)
        assert cp.fft.config.get_plan_cache_size() == 2
        for n in [3, 5, 7, 9]:
            cp.fft.fft(cp.ones(n, dtype=cp.complex64))
        assert cache.get_curr_size() <= 2
        cache.clear()
        assert cache.get_curr_size() == 0
        with pytest.raises(ValueError):
            cache.set_size(-1)
    finally:
        cache.set_size(size)
    with pytest.warns(DeprecationWarning, match="enable_nd_planning"):
        assert cp.fft.config.enable_nd_planning is True


def test_errors_match_numpy():
    a = cp.ones((2, 2), dtype=cp.float32)
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(0\) specified."):
        cp.fft.fft(a, n=0)
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(-2\) specified."):
        cp.fft.rfftn(a, s=(2, -2))
    with pytest.raises(np.exceptions.AxisError):
        cp.fft.fft(a, axis=2)
    with pytest.raises(ValueError, match="Shape and axes have different lengths."):
        cp.fft.fftn(a, s=(2, 2), axes=(0,))
    with pytest.raises(ValueError, match="Duplicate axes not allowed."):
        cp.fft.fftn(a, axes=(0, -2))
    with pytest.raises(ValueError, match="Invalid norm value both"):
        cp.fft.fft(a, norm="both")
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(0\) specified."):
        cp.fft.irfft(cp.ones(1, dtype=cp.complex64))
    with pytest.raises(ValueError, match="at least one axis"):
        cp.fft.fft(cp.asarray(1.0))
    # No axes: the complex transforms give the input back, the real ones cannot halve.
    assert cp.fft.fftn(a, axes=()) is a
    with pytest.raises(IndexError):
        cp.fft.rfftn(a, axes=())


def test_float16_follows_numpy():
    x = np.ones(6, np.float16)
    for name in ["fft", "rfft", "irfft", "hfft", "ihfft", "irfft2", "irfftn"]:
        y = x.reshape(2, 3) if name.endswith(("2", "n")) else x
        assert getattr(cp.fft, name)(cp.asarray(y)).dtype == getattr(np.fft, name)(y).dtype
    y = x.reshape(2, 3)
    assert cp.fft.irfftn(cp.asarray(y), axes=(0,)).dtype == np.fft.irfftn(y, axes=(0,)).dtype
