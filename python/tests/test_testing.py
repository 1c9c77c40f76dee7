"""``cuprum.testing``: the assertions take cuprum and NumPy arrays, the ``numpy_cupy_*``
decorators run a body with both modules and compare, the ``for_*`` decorators repeat it,
``parameterize`` makes classes, and the ``shaped_*`` inputs are the same for both
modules. Runs on the GPU when there is one, else on the host device (``conftest.py``)."""

from __future__ import annotations

import inspect
import unittest

import numpy as np
import pytest

import cuprum as cp
from cuprum import testing

# ---------------------------------------------------------------------------- assertions


def test_assertions_take_device_and_host_arrays():
    a = cp.arange(6, dtype=cp.float32).reshape(2, 3)
    testing.assert_array_equal(a, np.arange(6, dtype=np.float32).reshape(2, 3))
    testing.assert_allclose(a + 1 + 1e-6, a + 1, rtol=1e-5)
    testing.assert_array_almost_equal(a, a.get() + 1e-8)
    testing.assert_array_less(a, a + 1)
    testing.assert_array_list_equal([a, a], [a.get(), a.get()])
    with pytest.raises(AssertionError):
        testing.assert_array_equal(a, a + 1)
    with pytest.raises(AssertionError):
        testing.assert_allclose(a, a * 2)
    with pytest.raises(AssertionError, match="Strides"):
        testing.assert_array_equal(a, np.asfortranarray(a.get()), strides_check=True)
    with pytest.raises(AssertionError, match="types"):
        testing.assert_array_list_equal([a], (a,))


# ---------------------------------------------------------------------------- numpy_cupy_*


class TestNumpyCupy:
    @testing.numpy_cupy_array_equal()
    def test_equal(self, xp):
        return xp.arange(10, dtype=xp.int32) * 3

    @testing.numpy_cupy_allclose(rtol={np.float32: 1e-6, "default": 1e-12})
    def test_close_with_tolerance_per_dtype(self, xp):
        return xp.sqrt(xp.arange(1, 9, dtype=xp.float32))

    @testing.numpy_cupy_allclose(accept_error=ValueError)
    def test_both_raise_accepted(self, xp):
        raise ValueError("both")

    def test_module_passed_and_hidden_from_pytest(self):
        seen = []

        @testing.numpy_cupy_equal()
        def body(xp):
            seen.append(xp)
            return 1

        body()
        assert seen == [cp, np]
        assert "xp" not in inspect.signature(body).parameters

    def test_dtype_mismatch_fails(self):
        @testing.numpy_cupy_array_equal()
        def body(xp):
            return xp.zeros(3, dtype=xp.float32 if xp is cp else xp.float64)

        with pytest.raises(AssertionError, match="different dtypes"):
            body()

    def test_value_mismatch_fails(self):
        @testing.numpy_cupy_allclose()
        def body(xp):
            return xp.arange(3) + (1 if xp is cp else 0)

        with pytest.raises(AssertionError):
            body()

    def test_only_one_raises_fails(self):
        @testing.numpy_cupy_array_equal()
        def body(xp):
            if xp is cp:
                raise TypeError("only cuprum")
            return xp.zeros(1)

        with pytest.raises(AssertionError, match="Only cupy raises") as info:
            body()
        assert isinstance(info.value.__cause__, TypeError)

    def test_unaccepted_error_fails(self):
        @testing.numpy_cupy_array_equal()
        def body(xp):
            raise ValueError("both")

        with pytest.raises(AssertionError, match="Both cupy and numpy raise"):
            body()

    def test_tuples_compared_item_by_item(self):
        @testing.numpy_cupy_array_equal()
        def body(xp):
            a = xp.arange(4)
            return a, a * 2

        body()

    @pytest.mark.parametrize("changed, fails", [(slice(0, 5), False), (slice(6, 7), True)])
    def test_negative_values_of_unsigned_results_not_compared(self, changed, fails):
        # int8 values -5..2 cast to uint8 are defined only where the rerun with int8 for
        # uint8 is not negative (elements 5..7); elements 0..4 may differ from NumPy's.
        @testing.for_dtypes_combination([np.int8, np.uint8], names=("a", "b"), full=True)
        @testing.numpy_cupy_array_equal()
        def body(xp, a, b):
            r = (xp.arange(8, dtype=a) - 5).astype(b)
            if xp is cp and a == np.int8 and b == np.uint8:
                r[changed] = 99
            return r

        if fails:
            with pytest.raises(AssertionError):
                body()
        else:
            body()


# ---------------------------------------------------------------------------- loops


def test_for_all_dtypes_runs_every_dtype():
    seen = []

    @testing.for_all_dtypes()
    def body(dtype):
        seen.append(dtype)

    body()
    assert len(seen) == 16 and np.float16 in seen and np.complex128 in seen and np.bool_ in seen
    assert "dtype" not in inspect.signature(body).parameters


def test_for_dtypes_options():
    seen = []
    testing.for_all_dtypes(name="t", no_float16=True, no_bool=True, no_complex=True)(
        lambda t: seen.append(t)
    )()
    assert np.float16 not in seen and np.bool_ not in seen and np.complex64 not in seen
    seen.clear()
    testing.for_int_dtypes(no_bool=True)(lambda dtype: seen.append(dtype))()
    assert len(seen) == 10
    seen.clear()
    testing.for_float_dtypes()(lambda dtype: seen.append(dtype))()
    assert seen == [np.float64, np.float32, np.float16]


def test_a_failing_case_fails_after_all_ran():
    seen = []

    @testing.for_dtypes([np.int8, np.int16, np.int32])
    def body(dtype):
        seen.append(dtype)
        assert dtype != np.int16

    with pytest.raises(AssertionError) as info:
        body()
    assert seen == [np.int8, np.int16, np.int32]
    if hasattr(info.value, "__notes__"):
        assert "dtype = int16" in info.value.__notes__[0]


def test_all_cases_skipped_skips():
    @testing.for_dtypes([np.int8, np.int16])
    def body(dtype):
        pytest.skip("not here")

    with pytest.raises(pytest.skip.Exception):
        body()


def test_combinations_cover_every_type_per_name_reproducibly():
    def collect():
        seen = []

        @testing.for_all_dtypes_combination(names=("x", "y"))
        def body(x, y):
            seen.append((x, y))

        body()
        return seen

    first = collect()
    assert first == collect()
    types = testing._loops._make_all_dtypes(False, False, False)
    assert {x for x, _ in first} == set(types) and {y for _, y in first} == set(types)
    assert len(first) <= 2 * len(types)
    full = []
    testing.for_dtypes_combination([np.int8, np.float32], names=("x", "y"), full=True)(
        lambda x, y: full.append((x, y))
    )()
    assert len(full) == 4


def test_for_orders():
    seen = []
    testing.for_CF_orders()(lambda order: seen.append(order))()
    assert seen == [None, "C", "F", "c", "f"]


def test_for_contiguous_axes():
    seen = []

    @testing.for_contiguous_axes()
    def body(shape, order, axis):
        seen.append(axis)

    body(shape=(2, 3, 4), order="C")
    assert seen == [(2,), (1, 2), (0, 1, 2)]
    seen.clear()
    body(shape=(2, 3, 4), order="F")
    assert seen == [(0,), (0, 1), (0, 1, 2)]


# ---------------------------------------------------------------------------- inputs


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint16, np.bool_, np.complex64])
def test_shaped_inputs_equal_for_both_modules(dtype):
    for make in (testing.shaped_arange, testing.shaped_reverse_arange, testing.shaped_random):
        a, b = make((2, 3), cp, dtype), make((2, 3), np, dtype)
        assert isinstance(a, cp.ndarray) and isinstance(b, np.ndarray)
        assert a.dtype == b.dtype == np.dtype(dtype) and a.shape == b.shape == (2, 3)
        testing.assert_array_equal(a, b)


def test_shaped_values():
    assert testing.shaped_arange((4,), np, np.int32).tolist() == [1, 2, 3, 4]
    assert testing.shaped_reverse_arange((3,), np).tolist() == [3.0, 2.0, 1.0]
    assert testing.shaped_arange((4,), np, np.bool_).tolist() == [False, True, False, True]
    assert testing.shaped_arange((2,), np, np.complex64).tolist() == [1 + 1j, 2 + 2j]
    r = testing.shaped_random((1000,), np, np.float64, scale=3, seed=5)
    assert 0 <= r.min() and r.max() < 3
    np.testing.assert_array_equal(r, testing.shaped_random((1000,), np, np.float64, 3, 5))
    assert testing.shaped_arange((2, 2), cp).dtype == np.float32  # cuprum by default


def test_installed():
    assert testing.installed("numpy>=1.0")
    assert not testing.installed("numpy<1.0")
    assert not testing.installed("surely-not-a-package-name")


# ---------------------------------------------------------------------------- parameterize


def test_product():
    assert testing.product({"b": [1, 2], "a": ["x"]}) == [{"a": "x", "b": 1}, {"a": "x", "b": 2}]
    assert testing.product_dict([{"a": 1}, {"a": 2}], [{"b": 3}]) == [
        {"a": 1, "b": 3},
        {"a": 2, "b": 3},
    ]


@testing.parameterize(*testing.product({"n": [1, 2], "f": [abs]}))
class TestParameterizedUnittest(unittest.TestCase):
    def test_attributes(self):
        assert self.n in (1, 2)
        assert self.f(-3) == 3


def test_unittest_classes_generated():
    names = [n for n in globals() if n.startswith("TestParameterizedUnittest_param_")]
    assert len(names) == 2
    assert globals()["TestParameterizedUnittest"] is None


@testing.parameterize({"shape": (2,)}, {"shape": (3, 1)})
class TestParameterizedPytest:
    def test_attributes(self):
        assert self.shape in ((2,), (3, 1))

    @testing.for_dtypes([np.float32, np.int64])
    @testing.numpy_cupy_array_equal()
    def test_with_decorators(self, xp, dtype):
        return testing.shaped_arange(self.shape, xp, dtype) * 2


@pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")
def test_marks():
    @testing.slow
    def a():
        pass

    @testing.multi_gpu(2)
    def b():
        pass

    assert [m.name for m in a.pytestmark] == ["slow"]
    assert {m.name for m in b.pytestmark} == {"multi_gpu", "skipif"}


def test_generate_matrix_has_the_singular_values_asked_for():
    for dtype, shape, sv in (
        (np.float64, (4, 3), [3.0, 2.0, 0.5]),
        (np.complex64, (2, 3, 5), [[1.0, 2.0, 4.0], [0.1, 0.2, 0.3]]),
        (np.float32, (3, 3), 1.5),
    ):
        a = testing.generate_matrix(shape, dtype=dtype, singular_values=sv)
        assert isinstance(a, cp.ndarray) and a.shape == shape and a.dtype == dtype
        s = np.linalg.svd(a.get().astype(np.complex128), compute_uv=False)
        want = np.sort(np.broadcast_to(sv, s.shape), axis=-1)[..., ::-1]
        np.testing.assert_allclose(s, want, rtol=1e-5)
    with pytest.raises(TypeError):
        testing.generate_matrix((2, 2))
    with pytest.raises(ValueError):
        testing.generate_matrix((2,), singular_values=1)
    with pytest.raises(TypeError):
        testing.generate_matrix((2, 2), dtype=np.int32, singular_values=1)
    with pytest.raises(ValueError):
        testing.generate_matrix((2, 2), singular_values=[1, -1])


def test_assert_function_is_called_counts_the_calls():
    with testing.AssertFunctionIsCalled("cuprum.zeros", wraps=cp.zeros, times_called=2):
        cp.zeros(3)
        cp.zeros(4)
    with pytest.raises(AssertionError), testing.AssertFunctionIsCalled("cuprum.zeros"):
        pass
    # an error inside is the block's own, not a count
    with pytest.raises(KeyError), testing.AssertFunctionIsCalled("cuprum.zeros"):
        raise KeyError("inner")
    assert not hasattr(cp.zeros, "call_count")
