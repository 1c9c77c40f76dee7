"""What the package's tests share: ``same``, a cuprum result against NumPy's."""

from __future__ import annotations

import numpy as np

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
