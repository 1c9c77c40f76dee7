"""The test decorators: run a test body once with NumPy and once with cuprum and compare
(``numpy_cupy_*``), or once per dtype, dtype combination or memory order (``for_*``).

A decorated test keeps its other parameters: the names a decorator fills in (``xp``,
``dtype``, ``order`` …) are taken out of the signature pytest sees, so they are never
looked up as fixtures. Looping decorators run every case, then fail with the first
failure, noting every case that failed; a case that skips is left out, and the test skips
only when every case did.
"""

from __future__ import annotations

import functools
import inspect
import os
import random
import unittest
import warnings

import numpy

import cuprum
from cuprum.testing import _array

try:  # pytest's skip is a BaseException: caught beside unittest's
    import pytest

    _SKIPS: tuple = (unittest.SkipTest, pytest.skip.Exception)
except ImportError:  # pragma: no cover  (cuprum.testing without pytest)
    _SKIPS = (unittest.SkipTest,)

try:
    from numpy.exceptions import AxisError as _AxisError
except ImportError:  # NumPy < 1.25
    _AxisError = numpy.AxisError

# ---------------------------------------------------------------------------- dtypes

_complex_dtypes = (numpy.complex64, numpy.complex128)
_regular_float_dtypes = (numpy.float64, numpy.float32)
_float_dtypes = _regular_float_dtypes + (numpy.float16,)
_signed_dtypes = tuple(numpy.dtype(c).type for c in "bhilq")
_unsigned_dtypes = tuple(numpy.dtype(c).type for c in "BHILQ")
_int_dtypes = _signed_dtypes + _unsigned_dtypes
_int_bool_dtypes = _int_dtypes + (numpy.bool_,)
_regular_dtypes = _regular_float_dtypes + _int_bool_dtypes
_dtypes = _float_dtypes + _int_bool_dtypes


def _make_all_dtypes(no_float16, no_bool, no_complex):
    dtypes = _regular_float_dtypes if no_float16 else _float_dtypes
    dtypes += _int_dtypes if no_bool else _int_bool_dtypes
    if not no_complex:
        dtypes += _complex_dtypes
    return dtypes


# ---------------------------------------------------------------------------- signatures


def _wraps_partial(wrapped, *names):
    """A decorator making its function look like ``wrapped`` without the parameters
    ``names`` (which the wrapper fills in itself)."""

    def decorator(impl):
        impl = functools.wraps(wrapped)(impl)
        sig = inspect.signature(wrapped)
        kept = [p for p in sig.parameters.values() if p.name not in names]
        impl.__signature__ = sig.replace(parameters=kept)
        return impl

    return decorator


def _wraps_partial_xp(wrapped, name, sp_name=None, scipy_name=None):
    """``_wraps_partial`` for the module parameters of the ``numpy_cupy_*`` decorators."""
    return _wraps_partial(wrapped, *[n for n in (name, sp_name, scipy_name) if n is not None])


def _note(error, text):
    if hasattr(error, "add_note"):  # Python 3.11+
        error.add_note(text)


# ---------------------------------------------------------------------------- one body, two modules


def _modules(xp, name, sp_name, scipy_name, kw):
    kw = dict(kw)
    kw[name] = xp
    if sp_name or scipy_name:
        if xp is numpy:
            import scipy
            import scipy.sparse

            if sp_name:
                kw[sp_name] = scipy.sparse
            if scipy_name:
                kw[scipy_name] = scipy
        else:
            raise NotImplementedError("cuprum has no counterpart of scipy (cupyx.scipy)")
    return kw


def _call(impl, args, kw):
    """``impl(*args, **kw)`` as ``(result, error)``. An error raised while binding the
    arguments (before the body ran) is the caller's mistake and propagates."""
    try:
        return impl(*args, **kw), None
    except (Exception,) + _SKIPS as e:
        if e.__traceback__ is not None and e.__traceback__.tb_next is None:
            raise
        return None, e


def _run_both(impl, args, kw, name, sp_name, scipy_name):
    c_result, c_error = _call(impl, args, _modules(cuprum, name, sp_name, scipy_name, kw))
    n_result, n_error = _call(impl, args, _modules(numpy, name, sp_name, scipy_name, kw))
    return c_result, c_error, n_result, n_error


# The public exception classes an error is compared by: NumPy's and cuprum's errors are
# "the same" when each of these classes holds for both or for neither.
_ERROR_CLASSES = (
    AttributeError,
    Exception,
    IndexError,
    TypeError,
    ValueError,
    NotImplementedError,
    DeprecationWarning,
    _AxisError,
    numpy.linalg.LinAlgError,
)


def _describe(error):
    return f"{type(error).__module__}.{type(error).__qualname__}: {error}"


def _check_errors(c_error, n_error, accept_error):
    """Decides a run in which cuprum, NumPy or both raised. Both skipped alike: skip.
    Both raised compatible errors that ``accept_error`` names: pass. Anything else fails
    with both errors in the message (cuprum's error chained)."""
    if isinstance(c_error, _SKIPS) and isinstance(n_error, _SKIPS):
        if type(c_error) is not type(n_error) or c_error.args != n_error.args:
            raise AssertionError("numpy and cuprum were skipped for different reasons")
        raise n_error
    if accept_error is True:
        accept_error = Exception
    elif not accept_error:
        accept_error = ()
    if c_error is None:
        raise AssertionError(f"Only numpy raises error\n\n{_describe(n_error)}") from n_error
    if n_error is None:
        raise AssertionError(f"Only cupy raises error\n\n{_describe(c_error)}") from c_error
    if not all(isinstance(c_error, k) == isinstance(n_error, k) for k in _ERROR_CLASSES):
        raise AssertionError(
            "Different types of errors occurred\n\n"
            f"cupy\n{_describe(c_error)}\n\nnumpy\n{_describe(n_error)}"
        ) from c_error
    if not (isinstance(c_error, accept_error) and isinstance(n_error, accept_error)):
        raise AssertionError(  # noqa: TRY004  (a test failure, not a caller's bad type)
            "Both cupy and numpy raise exceptions\n\n"
            f"cupy\n{_describe(c_error)}\n\nnumpy\n{_describe(n_error)}"
        ) from c_error


def _as_arrays(c_out, n_out):
    """The pair of results as (cuprum array or NumPy value, NumPy value) to compare, or
    ``AssertionError`` when their kinds differ (polynomials compare by coefficients)."""
    if isinstance(c_out, cuprum.poly1d) and isinstance(n_out, numpy.poly1d):
        return c_out.coeffs, n_out.coeffs
    if isinstance(c_out, cuprum.ndarray) and isinstance(n_out, (numpy.ndarray, numpy.generic)):
        return c_out, n_out
    if isinstance(c_out, numpy.generic) and isinstance(n_out, numpy.generic):
        return c_out, n_out
    if numpy.isscalar(c_out) and numpy.isscalar(n_out):
        return cuprum.array(c_out), numpy.array(n_out)
    raise AssertionError(
        "numpy and cupy returns different type of return value:\n"
        f"cupy: {type(c_out)}\nnumpy: {type(n_out)}"
    )


def _contiguity(a):
    """``(c_contiguous, f_contiguous)`` of an array, from its flags when it has them, else
    from its shape and strides (NumPy's rule: extents of 1 do not count)."""
    flags = getattr(a, "flags", None)
    if flags is not None and hasattr(flags, "c_contiguous"):
        return bool(flags.c_contiguous), bool(flags.f_contiguous)
    shape, strides, itemsize = a.shape, a.strides, a.itemsize
    if 0 in shape:
        return True, True

    def packed(axes):
        step = itemsize
        for ax in axes:
            if shape[ax] != 1:
                if strides[ax] != step:
                    return False
                step *= shape[ax]
        return True

    n = len(shape)
    return packed(range(n - 1, -1, -1)), packed(range(n))


def _signed_counterpart(dtype):
    return numpy.dtype(numpy.dtype(dtype).char.lower()).type


def _is_dtype_value(v):
    if isinstance(v, (numpy.dtype, str)):
        return True
    return isinstance(v, type) and issubclass(v, numpy.generic)


def _mixes_signed_and_unsigned(kw):
    vs = {v for v in kw.values() if _is_dtype_value(v)}
    return any(d in vs for d in _unsigned_dtypes) and any(
        d in vs for d in _float_dtypes + _signed_dtypes
    )


def _positive_masks(impl, args, kw, name, sp_name, scipy_name):
    """Where a result of unsigned dtype is defined: the body rerun with every unsigned
    dtype parameter replaced by its signed twin; the elements that come out negative
    there are the ones whose unsigned value is left to the platform (NumPy's CPUs and
    GPUs wrap negative values differently)."""
    kw = {k: (_signed_counterpart(v) if v in _unsigned_dtypes else v) for k, v in kw.items()}
    result, error = _call(impl, args, _modules(cuprum, name, sp_name, scipy_name, kw))
    if error is not None:
        raise error
    if not isinstance(result, (tuple, list)):
        result = (result,)
    return [cuprum.asnumpy(r) >= 0 for r in result]


def _make_decorator(
    check, name, type_check, contiguous_check, accept_error, sp_name=None, scipy_name=None
):
    def decorator(impl):
        @_wraps_partial_xp(impl, name, sp_name, scipy_name)
        def test_func(*args, **kw):
            c_result, c_error, n_result, n_error = _run_both(
                impl, args, kw, name, sp_name, scipy_name
            )
            if c_error is not None or n_error is not None:
                _check_errors(c_error, n_error, accept_error)
                return
            if c_result is None or n_result is None:
                raise AssertionError(
                    "the test body must return what to compare "
                    f"(cupy returned {c_result!r}, numpy {n_result!r})"
                )
            c_list = c_result if isinstance(c_result, (tuple, list)) else (c_result,)
            n_list = n_result if isinstance(n_result, (tuple, list)) else (n_result,)
            assert len(c_list) == len(n_list), "cupy and numpy return different numbers of results"
            pairs = [_as_arrays(c, n) for c, n in zip(c_list, n_list)]
            if type_check:
                for c, n in pairs:
                    if c.dtype != n.dtype:
                        raise AssertionError(
                            f"ndarrays of different dtypes are returned.\ncupy: {c.dtype}\n"
                            f"numpy: {n.dtype}"
                        )
            if contiguous_check:
                for c, n in zip(c_list, n_list):
                    if isinstance(n, numpy.ndarray) and isinstance(c, cuprum.ndarray):
                        (cc, cf), (nc, nf) = _contiguity(c), _contiguity(n)
                        if nc and not cc:
                            raise AssertionError(
                                "The state of c_contiguous flag is false. "
                                f"(cupy_result:{cc} numpy_result:{nc})"
                            )
                        if nf and not cf:
                            raise AssertionError(
                                "The state of f_contiguous flag is false. "
                                f"(cupy_result:{cf} numpy_result:{nf})"
                            )
            for c, n in pairs:
                assert c.shape == n.shape, f"shapes differ: cupy {c.shape}, numpy {n.shape}"
            masks = [None] * len(pairs)
            if _mixes_signed_and_unsigned(kw):
                unsigned = [c.dtype.type in _unsigned_dtypes for c, _ in pairs]
                if any(unsigned):
                    found = _positive_masks(impl, args, kw, name, sp_name, scipy_name)
                    masks = [m if u else None for m, u in zip(found, unsigned)]
            for (c, n), mask in zip(pairs, masks):
                if mask is not None:
                    if c.shape == ():
                        if not mask.any():
                            continue
                    else:
                        c, n = cuprum.asnumpy(c)[mask], numpy.asarray(n)[mask]
                check(c, n)

        return test_func

    return decorator


def _tolerance_for(dtype, tol):
    if not isinstance(tol, dict):
        return tol
    found = tol.get(dtype.type, tol.get("default"))
    if found is None:
        raise TypeError(f"Can not find tolerance for {dtype.type}")
    return found


def _check_tolerance_keys(*tols):
    for tol in tols:
        if isinstance(tol, dict):
            for k in tol:
                if not (isinstance(k, type) or k == "default"):
                    raise TypeError(
                        "Keys of the tolerance dictionary need to be type objects as "
                        "`numpy.float32` and `cupy.float32` or `'default'` string."
                    )


def numpy_cupy_allclose(
    rtol=1e-7,
    atol=0,
    err_msg="",
    verbose=True,
    name="xp",
    type_check=True,
    accept_error=False,
    sp_name=None,
    scipy_name=None,
    contiguous_check=True,
    *,
    _check_sparse_format=True,
):
    """Runs the test body with ``xp=numpy`` and ``xp=cuprum`` and checks the returned
    arrays are close (``assert_allclose``), of one dtype (``type_check``), one shape, and
    as contiguous as NumPy's (``contiguous_check``).

    ``rtol``/``atol`` may be dicts from dtype type (``numpy.float16`` …) or ``'default'``
    to a tolerance. ``accept_error``: when both runs raise compatible errors of these
    classes (``True``: any) the test passes. Returning a tuple or list compares item by
    item. Where the dtype parameters mix signed and unsigned types, elements of unsigned
    results that are negative in the signed rerun are not compared.
    """
    _check_tolerance_keys(rtol, atol)
    if not type_check and (isinstance(rtol, dict) or isinstance(atol, dict)):
        raise TypeError(
            "When `type_check` is `False`, `rtol` and `atol` must be supplied as float."
        )

    def check(c, n):
        _array.assert_allclose(
            c,
            n,
            _tolerance_for(c.dtype, rtol),
            _tolerance_for(c.dtype, atol),
            err_msg=err_msg,
            verbose=verbose,
        )

    return _make_decorator(
        check, name, type_check, contiguous_check, accept_error, sp_name, scipy_name
    )


def numpy_cupy_array_almost_equal(
    decimal=6,
    err_msg="",
    verbose=True,
    name="xp",
    type_check=True,
    accept_error=False,
    sp_name=None,
    scipy_name=None,
):
    """As ``numpy_cupy_allclose``, comparing with ``assert_array_almost_equal``."""

    def check(c, n):
        _array.assert_array_almost_equal(c, n, decimal, err_msg, verbose)

    return _make_decorator(check, name, type_check, False, accept_error, sp_name, scipy_name)


def numpy_cupy_array_almost_equal_nulp(
    nulp=1, name="xp", type_check=True, accept_error=False, sp_name=None, scipy_name=None
):
    """As ``numpy_cupy_allclose``, comparing with ``assert_array_almost_equal_nulp``."""

    def check(c, n):
        _array.assert_array_almost_equal_nulp(c, n, nulp)

    return _make_decorator(check, name, type_check, False, accept_error, sp_name, scipy_name)


def numpy_cupy_array_max_ulp(
    maxulp=1,
    dtype=None,
    name="xp",
    type_check=True,
    accept_error=False,
    sp_name=None,
    scipy_name=None,
):
    """As ``numpy_cupy_allclose``, comparing with ``assert_array_max_ulp``."""

    def check(c, n):
        _array.assert_array_max_ulp(c, n, maxulp, dtype)

    return _make_decorator(check, name, type_check, False, accept_error, sp_name, scipy_name)


def numpy_cupy_array_equal(
    err_msg="",
    verbose=True,
    name="xp",
    type_check=True,
    accept_error=False,
    sp_name=None,
    scipy_name=None,
    strides_check=False,
):
    """As ``numpy_cupy_allclose``, requiring equal elements (``assert_array_equal``),
    and equal strides with ``strides_check``."""

    def check(c, n):
        _array.assert_array_equal(c, n, err_msg, verbose, strides_check=strides_check)

    return _make_decorator(check, name, type_check, False, accept_error, sp_name, scipy_name)


def numpy_cupy_array_list_equal(err_msg="", verbose=True, name="xp", sp_name=None, scipy_name=None):
    """Deprecated (as in CuPy): ``numpy_cupy_array_equal`` over returned lists."""
    warnings.warn(
        "numpy_cupy_array_list_equal is deprecated. Use numpy_cupy_array_equal instead.",
        DeprecationWarning,
        stacklevel=2,
    )

    def check(c, n):
        _array.assert_array_equal(c, n, err_msg, verbose)

    return _make_decorator(check, name, False, False, False, sp_name, scipy_name)


def numpy_cupy_array_less(
    err_msg="",
    verbose=True,
    name="xp",
    type_check=True,
    accept_error=False,
    sp_name=None,
    scipy_name=None,
):
    """As ``numpy_cupy_allclose``, requiring cuprum's result below NumPy's
    (``assert_array_less``)."""

    def check(c, n):
        _array.assert_array_less(c, n, err_msg, verbose)

    return _make_decorator(check, name, type_check, False, accept_error, sp_name, scipy_name)


def numpy_cupy_equal(name="xp", sp_name=None, scipy_name=None):
    """Runs the body with both modules and requires ``==`` results (for non-array
    results: shapes, lists, Python values)."""

    def decorator(impl):
        @_wraps_partial_xp(impl, name, sp_name, scipy_name)
        def test_func(*args, **kw):
            c_result, c_error, n_result, n_error = _run_both(
                impl, args, kw, name, sp_name, scipy_name
            )
            if c_error is not None or n_error is not None:
                _check_errors(c_error, n_error, False)
                return
            if c_result != n_result:
                raise AssertionError(f"Results are not equal:\ncupy: {c_result}\nnumpy: {n_result}")

        return test_func

    return decorator


def numpy_cupy_raises(name="xp", sp_name=None, scipy_name=None, accept_error=Exception):
    """Deprecated (as in CuPy): both runs must raise compatible errors of
    ``accept_error``."""
    warnings.warn("cupy.testing.numpy_cupy_raises is deprecated.", DeprecationWarning, stacklevel=2)

    def decorator(impl):
        @_wraps_partial_xp(impl, name, sp_name, scipy_name)
        def test_func(*args, **kw):
            _, c_error, _, n_error = _run_both(impl, args, kw, name, sp_name, scipy_name)
            if c_error is None and n_error is None:
                raise AssertionError("Both cupy and numpy are expected to raise errors, but not")
            _check_errors(c_error, n_error, accept_error)

        return test_func

    return decorator


# ---------------------------------------------------------------------------- loops


def _run_cases(impl, args, kw, cases):
    """Runs ``impl`` once per case (a dict of keyword arguments). Every case runs; the
    first failure is raised afterwards, noting all failing cases. Skipped cases are left
    out; when every case skipped, the first skip is raised."""
    failures, skips = [], []
    for case in cases:
        k = dict(kw)
        k.update(case)
        try:
            impl(*args, **k)
        except _SKIPS as e:
            skips.append(e)
        except Exception as e:  # noqa: BLE001  (every case runs; the first failure is raised)
            failures.append((case, e))
    if failures:
        first = failures[0][1]
        listed = "; ".join(
            ", ".join(f"{n} = {_case_value(v)}" for n, v in case.items())
            for case, _ in failures[:8]
        )
        more = f" … and {len(failures) - 8} more" if len(failures) > 8 else ""
        _note(first, f"failed for {len(failures)} of {len(cases)} cases: {listed}{more}")
        raise first
    if skips and len(skips) == len(cases):
        raise skips[0]


def _case_value(v):
    if isinstance(v, type):
        return v.__name__
    return repr(v)


def for_dtypes(dtypes, name="dtype"):
    """Runs the test once per dtype in ``dtypes``, passing it (as a NumPy scalar type) in
    the keyword ``name``."""
    cases = [{name: numpy.dtype(d).type} for d in dtypes]

    def decorator(impl):
        @_wraps_partial(impl, name)
        def test_func(*args, **kw):
            _run_cases(impl, args, kw, cases)

        return test_func

    return decorator


def for_all_dtypes(name="dtype", no_float16=False, no_bool=False, no_complex=False):
    """``for_dtypes`` over float16 (unless ``no_float16``), float32, float64, the signed
    and unsigned integers (``bhilq``, ``BHILQ``), bool (unless ``no_bool``) and
    complex64/complex128 (unless ``no_complex``)."""
    return for_dtypes(_make_all_dtypes(no_float16, no_bool, no_complex), name=name)


def for_float_dtypes(name="dtype", no_float16=False):
    """``for_dtypes`` over float16 (unless ``no_float16``), float32 and float64."""
    return for_dtypes(_regular_float_dtypes if no_float16 else _float_dtypes, name=name)


def for_signed_dtypes(name="dtype"):
    """``for_dtypes`` over the signed integers ``bhilq``."""
    return for_dtypes(_signed_dtypes, name=name)


def for_unsigned_dtypes(name="dtype"):
    """``for_dtypes`` over the unsigned integers ``BHILQ``."""
    return for_dtypes(_unsigned_dtypes, name=name)


def for_int_dtypes(name="dtype", no_bool=False):
    """``for_dtypes`` over the signed and unsigned integers and bool (unless
    ``no_bool``)."""
    return for_dtypes(_int_dtypes if no_bool else _int_bool_dtypes, name=name)


def for_complex_dtypes(name="dtype"):
    """``for_dtypes`` over complex64 and complex128."""
    return for_dtypes(_complex_dtypes, name=name)


def _combinations(types, names, full, seed_text):
    if full is None:
        full = int(os.environ.get("CUPY_TEST_FULL_COMBINATION", "0")) != 0
    if full:
        from cuprum.testing._parameterized import product

        return product({n: types for n in names})
    # A subset in which every type appears for every name at least once: the types in
    # order, then shuffled per name, zipped (as CuPy). The shuffle is seeded by the
    # test's name, so a rerun (or another machine) tests the same combinations.
    rng = random.Random(seed_text)
    columns = []
    for _ in names:
        shuffled = list(types)
        rng.shuffle(shuffled)
        columns.append(list(types) + shuffled)
    seen, combos = set(), []
    for row in zip(*columns):
        if row not in seen:
            seen.add(row)
            combos.append(dict(zip(names, row)))
    return combos


def for_dtypes_combination(types, names=("dtype",), full=None):
    """Runs the test over combinations of ``types`` for the keywords ``names``: all of
    them when ``full`` (or ``CUPY_TEST_FULL_COMBINATION=1``), else a subset in which
    each type appears for each name (reproducible: seeded by the test's name)."""
    types = list(types)
    if len(types) == 1:
        (name,) = names
        return for_dtypes(types, name)

    def decorator(impl):
        cases = _combinations(types, tuple(names), full, f"{impl.__module__}.{impl.__qualname__}")

        @_wraps_partial(impl, *names)
        def test_func(*args, **kw):
            _run_cases(impl, args, kw, cases)

        return test_func

    return decorator


def for_all_dtypes_combination(
    names=("dtypes",), no_float16=False, no_bool=False, full=None, no_complex=False
):
    """``for_dtypes_combination`` over the dtypes of ``for_all_dtypes``."""
    return for_dtypes_combination(_make_all_dtypes(no_float16, no_bool, no_complex), names, full)


def for_signed_dtypes_combination(names=("dtype",), full=None):
    """``for_dtypes_combination`` over the signed integers."""
    return for_dtypes_combination(_signed_dtypes, names=names, full=full)


def for_unsigned_dtypes_combination(names=("dtype",), full=None):
    """``for_dtypes_combination`` over the unsigned integers."""
    return for_dtypes_combination(_unsigned_dtypes, names=names, full=full)


def for_int_dtypes_combination(names=("dtype",), no_bool=False, full=None):
    """``for_dtypes_combination`` over the integers and bool (unless ``no_bool``)."""
    return for_dtypes_combination(_int_dtypes if no_bool else _int_bool_dtypes, names, full)


def for_orders(orders, name="order"):
    """Runs the test once per memory order in ``orders``, passed in the keyword
    ``name``."""
    cases = [{name: o} for o in orders]

    def decorator(impl):
        @_wraps_partial(impl, name)
        def test_func(*args, **kw):
            _run_cases(impl, args, kw, cases)

        return test_func

    return decorator


def for_CF_orders(name="order"):
    """``for_orders`` over ``None``, ``'C'``, ``'F'``, ``'c'`` and ``'f'``."""
    return for_orders([None, "C", "F", "c", "f"], name)


def for_contiguous_axes(name="axis"):
    """Runs the test once per tuple of axes that is contiguous in the test's ``order``
    keyword for its ``shape`` keyword: the trailing axes for C order (``(n-1,)``,
    ``(n-2, n-1)`` …), the leading ones for F order."""

    def decorator(impl):
        @_wraps_partial(impl, name)
        def test_func(*args, **kw):
            ndim, order = len(kw["shape"]), kw["order"]
            if order in ("c", "C"):
                cases = [{name: tuple(range(i, ndim))} for i in range(ndim - 1, -1, -1)]
            elif order in ("f", "F"):
                cases = [{name: tuple(range(i + 1))} for i in range(ndim)]
            else:
                raise ValueError("Please specify the array order.")
            _run_cases(impl, args, kw, cases)

        return test_func

    return decorator
