"""Test inputs (``shaped_arange``, ``shaped_random`` …) and requirement checks
(``installed``, ``with_requires``).

Inputs are made on the host with NumPy and then handed to the array module, so NumPy and
cuprum runs of one test get identical data.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import unittest
import warnings

import numpy


def _module(xp):
    if xp is None:
        import cuprum

        return cuprum
    return xp


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _to(xp, host, order="C"):
    xp = _module(xp)
    if xp is numpy:
        return numpy.array(host, order=order)
    return xp.array(host, order=order)


def _counting(values, dtype):
    """``values`` (1, 2, … or their reverse) as ``dtype``: bools alternate (even →
    ``True``), complex values have equal real and imaginary parts."""
    if dtype == numpy.bool_:
        values = values % 2 == 0
    elif dtype.kind == "c":
        values = values + values * 1j
    return values.astype(dtype)


def shaped_arange(shape, xp=None, dtype=numpy.float32, order="C"):
    """An array of ``shape`` holding 1, 2, …, N (row-major) as ``dtype``, from ``xp``
    (cuprum by default) in memory ``order``. Bools are ``True`` at even values; complex
    values are ``k + kj``."""
    dtype = numpy.dtype(dtype)
    a = _counting(numpy.arange(1, math.prod(_shape(shape)) + 1), dtype).reshape(shape)
    return _to(xp, a, order)


def shaped_reverse_arange(shape, xp=None, dtype=numpy.float32):
    """As ``shaped_arange``, counting down: N, …, 2, 1."""
    dtype = numpy.dtype(dtype)
    size = math.prod(_shape(shape))
    a = _counting(numpy.arange(size, 0, -1), dtype).reshape(shape)
    return _to(xp, a)


def shaped_random(shape, xp=None, dtype=numpy.float32, scale=10, seed=0, order="C"):
    """An array of ``shape`` drawn uniformly from ``[0, scale)`` by NumPy's
    ``RandomState(seed)`` and converted to ``dtype`` (so integer values are truncated).
    Bools are fair coin flips; complex values have independent real and imaginary parts,
    each in ``[0, scale)``."""
    rng = numpy.random.RandomState(seed)
    dtype = numpy.dtype(dtype)
    if dtype == numpy.bool_:
        a = rng.randint(2, size=shape)
    elif dtype.kind == "c":
        a = (rng.rand(*shape) + 1j * rng.rand(*shape)) * scale
    else:
        a = rng.rand(*shape) * scale
    return _to(xp, numpy.asarray(a, dtype=dtype), order)


def shaped_linspace(start, stop, shape, xp=None, dtype=numpy.float32):
    """``numpy.linspace(start, stop, prod(shape))`` reshaped to ``shape`` as ``dtype``,
    the ends first clipped into what the dtype holds as CuPy's helper does: into ``[0, 1]``
    for bools, from 0 up for unsigned integers."""
    dtype = numpy.dtype(dtype)
    size = math.prod(_shape(shape))
    if dtype == numpy.bool_:
        start, stop = (min(max(x, 0), 1) for x in (start, stop))
    elif dtype.kind == "u":
        start, stop = max(start, 0), max(stop, 0)
    a = numpy.linspace(start, stop, size)
    return _to(xp, a.astype(dtype).reshape(shape))


def installed(*specifiers):
    """Whether every requirement (``'numpy>=1.24'``, ``'scipy'`` …) is met by an
    installed distribution."""
    import importlib.metadata

    from packaging.requirements import Requirement

    for spec in specifiers:
        req = Requirement(spec)
        try:
            found = importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            dists = importlib.metadata.packages_distributions().get(req.name)
            if not dists:
                return False
            found = importlib.metadata.version(dists[0])
        if req.specifier and not req.specifier.contains(found, prereleases=True):
            return False
    return True


def numpy_satisfies(version_range):
    """Whether the installed NumPy is in ``version_range`` (``'>=2.0'``)."""
    return installed(f"numpy{version_range}")


def with_requires(*requirements):
    """Marks a test (or class) to be skipped unless ``installed(*requirements)``."""
    import pytest

    return pytest.mark.skipif(
        not installed(*requirements), reason=f"requires: {','.join(requirements)}"
    )


@contextlib.contextmanager
def assert_warns(expected):
    """A context in which a warning of class ``expected`` must be raised (CuPy's
    ``testing.assert_warns``)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        yield seen
    if not any(issubclass(w.category, expected) for w in seen):
        raise AssertionError(f"{expected.__name__} not triggered")


class NumpyAliasTestBase(unittest.TestCase):
    """Tests of a cuprum function that stands for the NumPy function of the same name
    (CuPy's ``testing.NumpyAliasTestBase``): a subclass sets ``func``, the name."""

    func = None

    @property
    def cupy_func(self):
        import cuprum

        return getattr(cuprum, self.func)

    @property
    def numpy_func(self):
        return getattr(numpy, self.func)


class NumpyAliasBasicTestBase(NumpyAliasTestBase):
    """The alias takes NumPy's signature and has a docstring of its own."""

    def test_argspec(self):
        assert inspect.signature(self.cupy_func) == inspect.signature(self.numpy_func)

    def test_docstring(self):
        doc = getattr(self.cupy_func, "__doc__", None)
        assert doc
        assert doc is not self.numpy_func.__doc__


class NumpyAliasValuesTestBase(NumpyAliasTestBase):
    """The alias gives NumPy's value for ``self.args`` (set by ``setUp``)."""

    def test_values(self):
        assert self.cupy_func(*self.args) == self.numpy_func(*self.args)


def generate_matrix(shape, xp=None, dtype=numpy.float32, *, singular_values=None):
    """A random matrix (or stack of them, ``shape[:-2]``) of ``dtype`` (float or complex)
    whose singular values are ``singular_values`` (broadcast to ``shape[:-2]`` + the
    smaller of the last two extents): random orthonormal factors made with NumPy on the
    host, multiplied around the values, then handed to ``xp`` (CuPy's test helper)."""
    shape = _shape(shape)
    if len(shape) < 2:
        raise ValueError(f"shape {shape} is invalid for matrices: too few axes")
    if singular_values is None:
        raise TypeError("singular_values is not given")
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "fc":
        raise TypeError(f"dtype {dtype} is not supported")
    sv = singular_values.get() if hasattr(singular_values, "get") else singular_values
    sv = numpy.asarray(sv)
    if sv.dtype.kind == "c":
        raise TypeError("singular_values is not real")
    if (sv < 0).any():
        raise ValueError("negative singular value is given")
    *batch, m, n = shape
    k = min(m, n)
    sv = numpy.broadcast_to(sv, (*batch, k))
    if 0 in shape:
        return _to(xp, numpy.zeros(shape, dtype))

    def orthonormal(rows):
        g = numpy.random.standard_normal((*batch, rows, k))
        if dtype.kind == "c":
            g = g + 1j * numpy.random.standard_normal((*batch, rows, k))
        return numpy.linalg.qr(g)[0]

    u, v = orthonormal(m), orthonormal(n)
    a = (u * sv[..., None, :]) @ numpy.swapaxes(v, -1, -2).conj()
    return _to(xp, a.astype(dtype))


class AssertFunctionIsCalled:
    """A context that patches the function ``mock_mod`` (a dotted name, as
    ``unittest.mock.patch`` takes it, with its keyword arguments: ``wraps=`` keeps the
    function running) and, when the block ends without an error, asserts it was called
    ``times_called`` times (CuPy's test helper)."""

    def __init__(self, mock_mod, **kwargs):
        from unittest import mock

        self._times = kwargs.pop("times_called", 1)
        self._patch = mock.patch(mock_mod, **kwargs)
        self._mock = None

    def __enter__(self):
        self._mock = self._patch.__enter__()
        return self._mock

    def __exit__(self, *exc):
        self._patch.__exit__(*exc)
        if exc[0] is None:
            calls = self._mock.call_count
            assert calls == self._times, (
                f"expected {self._times} call(s) of the patched function, got {calls}"
            )
        return False
