"""NumPy's array assertions over cuprum arrays: each argument goes through
``cuprum.asnumpy`` (a device array is downloaded, anything else is NumPy's), then NumPy's
``numpy.testing`` function of the same name decides."""

from __future__ import annotations

import numpy
import numpy.testing

from cuprum import _cuprum

_NUMPY2 = numpy.lib.NumpyVersion(numpy.__version__) >= "2.0.0"


def _host(a):
    """``a`` as NumPy data (a device array downloaded; lists, scalars and NumPy arrays as
    ``numpy.asarray`` makes them)."""
    return _cuprum.asnumpy(a)


def _strict(kwargs, strict):
    # NumPy 1.x's assert_allclose and assert_array_less have no ``strict``.
    if strict:
        kwargs["strict"] = True
    return kwargs


def assert_allclose(
    actual, desired, rtol=1e-7, atol=0, equal_nan=True, err_msg="", verbose=True, *, strict=False
):
    """Raises ``AssertionError`` unless ``actual`` and ``desired`` are equal within
    ``atol + rtol * abs(desired)`` (NaNs equal by default); ``strict`` also compares
    shapes and dtypes. See ``numpy.testing.assert_allclose``."""
    kwargs = {
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "err_msg": err_msg,
        "verbose": verbose,
    }
    numpy.testing.assert_allclose(_host(actual), _host(desired), **_strict(kwargs, strict))


def assert_array_almost_equal(actual, desired, decimal=6, err_msg="", verbose=True):
    """Raises ``AssertionError`` unless every element differs by less than
    ``1.5 * 10**-decimal``. See ``numpy.testing.assert_array_almost_equal``."""
    numpy.testing.assert_array_almost_equal(
        _host(actual), _host(desired), decimal=decimal, err_msg=err_msg, verbose=verbose
    )


def assert_array_almost_equal_nulp(x, y, nulp=1):
    """Raises ``AssertionError`` unless the arrays agree within ``nulp`` units in the last
    place, relative to their spacing. See ``numpy.testing.assert_array_almost_equal_nulp``."""
    numpy.testing.assert_array_almost_equal_nulp(_host(x), _host(y), nulp=nulp)


def assert_array_max_ulp(a, b, maxulp=1, dtype=None):
    """Raises ``AssertionError`` unless every pair of elements is at most ``maxulp`` units
    in the last place apart (after converting to ``dtype`` when given). See
    ``numpy.testing.assert_array_max_ulp``."""
    numpy.testing.assert_array_max_ulp(_host(a), _host(b), maxulp=maxulp, dtype=dtype)


def assert_array_equal(
    actual, desired, err_msg="", verbose=True, *, strict=False, strides_check=False
):
    """Raises ``AssertionError`` unless the arrays have equal elements (NumPy's
    broadcasting and NaN rules); ``strict`` also compares shapes and dtypes,
    ``strides_check`` the two arrays' strides. See ``numpy.testing.assert_array_equal``."""
    kwargs = {"err_msg": err_msg, "verbose": verbose}
    numpy.testing.assert_array_equal(_host(actual), _host(desired), **_strict(kwargs, strict))
    if strides_check and actual.strides != desired.strides:
        lines = ["Strides are not equal:" + (f" {err_msg}" if err_msg else "")]
        if verbose:
            lines += [f" x: {actual.strides}", f" y: {desired.strides}"]
        raise AssertionError("\n".join(lines))


def assert_array_list_equal(xlist, ylist, err_msg="", verbose=True):
    """Compares two lists (or two tuples) of arrays pair by pair with
    ``assert_array_equal``; their types and lengths must match."""
    if type(xlist) is not type(ylist):
        raise AssertionError(
            "Matching types of list or tuple are expected, but were different types "
            f"(xlist:{type(xlist)} ylist:{type(ylist)})"
        )
    if type(xlist) not in (list, tuple):
        raise AssertionError(f"List or tuple is expected, but was {type(xlist)}")
    if len(xlist) != len(ylist):
        raise AssertionError("List size is different")
    for x, y in zip(xlist, ylist):
        numpy.testing.assert_array_equal(_host(x), _host(y), err_msg=err_msg, verbose=verbose)


def assert_array_less(x, y, err_msg="", verbose=True, *, strict=False):
    """Raises ``AssertionError`` unless every element of ``x`` is less than the matching
    one of ``y``. See ``numpy.testing.assert_array_less``."""
    kwargs = {"err_msg": err_msg, "verbose": verbose}
    if _NUMPY2:
        kwargs = _strict(kwargs, strict)
    numpy.testing.assert_array_less(_host(x), _host(y), **kwargs)
