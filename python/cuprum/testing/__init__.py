"""``cuprum.testing``: CuPy's testing helpers (``cupy.testing``) for cuprum arrays.

Assertions (``assert_allclose``, ``assert_array_equal`` …) accept cuprum arrays, NumPy
arrays and anything NumPy converts; decorators run a test body with ``xp=numpy`` and
``xp=cuprum`` and compare (``numpy_cupy_allclose``, ``numpy_cupy_array_equal`` …), or
repeat it over dtypes and orders (``for_all_dtypes``, ``for_dtypes_combination``,
``for_orders`` …); ``parameterize``/``product`` parameterise classes; ``shaped_arange``,
``shaped_random`` … make identical inputs for both modules, ``generate_matrix`` matrices of
given singular values; ``AssertFunctionIsCalled`` patches a function and counts its calls;
``slow``, ``multi_gpu`` and ``with_requires`` mark tests. The decorators need pytest.

A test written for ``cupy.testing`` runs unchanged with ``from cuprum import testing``.
"""

from __future__ import annotations

from cuprum.testing._array import (
    assert_allclose,
    assert_array_almost_equal,
    assert_array_almost_equal_nulp,
    assert_array_equal,
    assert_array_less,
    assert_array_list_equal,
    assert_array_max_ulp,
)
from cuprum.testing._attr import multi_gpu, slow
from cuprum.testing._helper import (
    AssertFunctionIsCalled,
    NumpyAliasBasicTestBase,
    NumpyAliasTestBase,
    NumpyAliasValuesTestBase,
    assert_warns,
    generate_matrix,
    installed,
    numpy_satisfies,
    shaped_arange,
    shaped_linspace,
    shaped_random,
    shaped_reverse_arange,
    with_requires,
)
from cuprum.testing._loops import (
    for_all_dtypes,
    for_all_dtypes_combination,
    for_CF_orders,
    for_complex_dtypes,
    for_contiguous_axes,
    for_dtypes,
    for_dtypes_combination,
    for_float_dtypes,
    for_int_dtypes,
    for_int_dtypes_combination,
    for_orders,
    for_signed_dtypes,
    for_signed_dtypes_combination,
    for_unsigned_dtypes,
    for_unsigned_dtypes_combination,
    numpy_cupy_allclose,
    numpy_cupy_array_almost_equal,
    numpy_cupy_array_almost_equal_nulp,
    numpy_cupy_array_equal,
    numpy_cupy_array_less,
    numpy_cupy_array_list_equal,
    numpy_cupy_array_max_ulp,
    numpy_cupy_equal,
    numpy_cupy_raises,
)
from cuprum.testing._parameterized import parameterize, product, product_dict
from cuprum.testing._random import fix_random, generate_seed

__all__ = [
    "AssertFunctionIsCalled",
    "NumpyAliasBasicTestBase",
    "NumpyAliasTestBase",
    "NumpyAliasValuesTestBase",
    "assert_allclose",
    "assert_array_almost_equal",
    "assert_array_almost_equal_nulp",
    "assert_array_equal",
    "assert_array_less",
    "assert_array_list_equal",
    "assert_array_max_ulp",
    "assert_warns",
    "fix_random",
    "for_CF_orders",
    "for_all_dtypes",
    "for_all_dtypes_combination",
    "for_complex_dtypes",
    "for_contiguous_axes",
    "for_dtypes",
    "for_dtypes_combination",
    "for_float_dtypes",
    "for_int_dtypes",
    "for_int_dtypes_combination",
    "for_orders",
    "for_signed_dtypes",
    "for_signed_dtypes_combination",
    "for_unsigned_dtypes",
    "for_unsigned_dtypes_combination",
    "generate_matrix",
    "generate_seed",
    "installed",
    "multi_gpu",
    "numpy_cupy_allclose",
    "numpy_cupy_array_almost_equal",
    "numpy_cupy_array_almost_equal_nulp",
    "numpy_cupy_array_equal",
    "numpy_cupy_array_less",
    "numpy_cupy_array_list_equal",
    "numpy_cupy_array_max_ulp",
    "numpy_cupy_equal",
    "numpy_cupy_raises",
    "numpy_satisfies",
    "parameterize",
    "product",
    "product_dict",
    "shaped_arange",
    "shaped_linspace",
    "shaped_random",
    "shaped_reverse_arange",
    "slow",
    "with_requires",
]
