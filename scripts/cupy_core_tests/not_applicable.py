"""CuPy tests that do not apply to cuprum and cannot be told apart when they run: each
pattern (searched in the test's node id) with the reason. Tests that reach a CuPy internal
or a private attribute are found while they run (``plugin.classify``) and need no entry.
"""

from __future__ import annotations

JITIFY = (
    "Jitify: CuPy's header-preprocessing backend, deprecated in CuPy 14; cuprum compiles "
    "with NVRTC directly and refuses jitify=True, by design"
)

# Tests that CuPy refuses what NumPy accepts: cuprum does what NumPy does there (a CuPy
# program runs as before; one written for NumPy runs too).
AS_NUMPY = "CuPy refuses what NumPy accepts; cuprum does what NumPy does"
NUMPY_WIDER = [
    r"test_add_remove\.py::TestDelete::test_delete_array_like_input",  # a list
    r"test_sumprod\.py::TestCum(sum|prod)::test_cum(sum|prod)_(arraylike|numpy_array)",
    r"test_kind\.py::TestKind::test_require_incorrect_requirments",  # the 'W' flag
    r"test_iterate\.py::TestFlatiterSubscriptIndexError_param_[34]_",  # a.flat[[0]]
    r"test_piecewise\.py::TestPiecewise::test_(callable|mixed)_funclist",  # callables
    r"test_polynomial\.py::TestPoly::test_poly_2d_square",  # poly of a square matrix
    r"test_sort\.py::TestPartition_param_[01]_.*::test_partition_non_contiguous",
    r"test_histogram\.py::TestHistogramddErrors::test_histogramdd_disallow_arraylike_bins",
    r"test_generate\.py::TestR_::test_r_[345]",  # r_ with complex steps and strings
]

# CuPy's results that differ from NumPy's, where cuprum gives NumPy's (the guide's
# "Intentional differences").
WRAPS = "CuPy wraps an out-of-range index of an index array; cuprum raises NumPy's IndexError"
ADV = r"test_ndarray_adv_indexing\.py::TestArrayAdvanced"
AS_NUMPY_RESULTS = [
    (ADV + r"IndexingGetitemCupyIndices::test_adv_getitem_cupy_indices[45]", WRAPS),
    (ADV + r"IndexingSetitemCupyIndices::test_cupy_indices_integer_array_[23]", WRAPS),
    (
        r"test_ndarray_unary_op\.py::TestArrayBoolOp::test_bool_empty",
        (
            "CuPy keeps NumPy 1's deprecated truth of an empty array (False, warning); "
            "cuprum raises NumPy 2's ValueError"
        ),
    ),
    (
        r"test_distributions\.py::TestDistributionsLogseries::test_logseries_for_invalid_p",
        "CuPy refuses p = 0 in logseries; NumPy (and cuprum) give 1",
    ),
    (
        r"::TestHypergeometricValidation::test_hypergeometric_nsample_exceeds_total",
        "CuPy returns ngood for nsample > ngood + nbad; NumPy (and cuprum) raise ValueError",
    ),
]

NOT_APPLICABLE = (
    [(p, AS_NUMPY) for p in NUMPY_WIDER]
    + AS_NUMPY_RESULTS
    + [
        (
            r"test_numpy_interop\.py::TestAsnumpy::test_asnumpy_blocking\[False\]",
            (
                "expects the data race of a download that returns before it lands; cuprum's "
                "asnumpy/get return with the data in place (blocking=False changes nothing)"
            ),
        ),
        (
            r"test_raw\.py::TestCachePayload::",
            "CuPy's kernel-cache file format (cupy.cuda.compiler internals)",
        ),
        (
            r"test_raw\.py::TestRawNameExpressionCache::",
            (
                "CuPy's disk kernel cache: counts saves through cupy.cuda._compiler_cache, "
                "which cuprum does not use (cuprum has its own cache)"
            ),
        ),
        (
            r"test_raw\.py::TestRaw::.*\[NVRTC \((in-memory cache, )?(re-compile, )?jitify\)\]",
            JITIFY,
        ),
        (r"test_raw\.py::TestRawJitify::.*\[jitify\]", JITIFY),
        (r"test_raw\.py::test_jitify_deprecation_warning\[True", JITIFY),
    ]
)

# On cuprum's host device only (CUPRUM_DEVICE=host): tests of what only a GPU has. These
# run on a GPU; on the host device they are reported as "GPU only".
NVRTC_MESSAGES = (
    "expects NVRTC's error message; the host device compiles with the system C++ compiler "
    "(whose standard library has <type_traits>, and whose messages differ)"
)
NVRTC_WARNINGS = (
    "expects NVRTC's warnings in the compile log; the host device's C++ compiler runs "
    "without warnings and its log is empty"
)
NO_REGISTERS = "expects registers in the kernel's attributes; host code has none (num_regs 0)"
GPU_ONLY = [
    (r"test_raw\.py::TestRaw::test_compile_(kernel|module)\[", NVRTC_WARNINGS),
    (r"test_raw\.py::TestRaw::test_kernel_attributes\[", NO_REGISTERS),
    (r"test_raw\.py::TestRawJitify::test_jitify2\[no-jitify\]", NVRTC_MESSAGES),
    (r"test_raw\.py::TestRawJitify::test_jitify3\[no-jitify\]", NVRTC_MESSAGES),
    (r"test_raw\.py::TestRawJitify::test_jitify5\[no-jitify\]", NVRTC_MESSAGES),
    (
        r"test_init\.py::TestNotAvailable::",
        "hides the GPUs (CUDA_VISIBLE_DEVICES) and expects no device; the host device is one",
    ),
]
# Errors by which the host device says a kernel needs a GPU (pattern, reason).
GPU_ONLY_ERRORS = [
    (
        r"is GPU memory, but the call runs on the host device",
        "an object with __cuda_array_interface__ (GPU memory) read on the host device",
    ),
    (r"cannot run on the host device", "the host device cannot run it"),
    (
        r"the cooperative grid of \d+ blocks exceeds the limit",
        "a cooperative launch of more blocks than the host device runs at once",
    ),
    (
        r"compile_using_nvrtc compiles for a GPU",
        "compile_using_nvrtc without arch= compiles for the current GPU",
    ),
]
