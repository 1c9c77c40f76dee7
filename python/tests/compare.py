"""What the package's tests share: ``same``, a cuprum result against NumPy's;
``same_error``, cuprum's error against NumPy's; ``random_values``, test data."""

from __future__ import annotations

import numpy as np
import pytest

import cuprum as cp


def same(got, want, rtol=None):
    """``got`` (cuprum) equals ``want`` (NumPy): shape, dtype and values (tuples and lists
    item by item; floats within ``rtol``, by default 1e-5 for 32-bit, 1e-12 for 64-bit)."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)), type(got)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, rtol)
        return
    assert isinstance(got, cp.ndarray), type(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    h = got.get()
    if want.dtype.kind in "fc":
        if rtol is None:
            rtol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(h, want, rtol=rtol, atol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(h, want)


def same_error(f, g, cls=ValueError):
    """``f()`` (cuprum) raises ``cls`` with the message of NumPy's ``g()``."""
    with pytest.raises(cls) as want:
        g()
    with pytest.raises(cls) as got:
        f()
    assert str(got.value) == str(want.value)


def random_values(rng, shape, dtype, unsigned=(1, 100), signed=(1, 50)):
    """Random non-zero values of ``dtype`` drawn from ``rng``: bools both ways, floats and
    complex numbers of magnitude ~10, unsigned integers in ``unsigned`` (``None``: as the
    signed ones, wrapped), signed integers in ``signed`` with random signs."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        x = rng.random(n) < 0.5
    elif dtype.kind == "f":
        x = rng.standard_normal(n) * 10
    elif dtype.kind == "c":
        x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 10
    elif dtype.kind == "u" and unsigned is not None:
        x = rng.integers(*unsigned, n)
    else:
        x = rng.integers(*signed, n) * rng.choice([-1, 1], n)
    return np.asarray(x).astype(dtype).reshape(shape)


def runs_in_a_fresh_python(code, env=None):
    """``code`` runs without an error in a new Python process (what importing does), with
    ``env`` added to the environment."""
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env=None if env is None else {**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
