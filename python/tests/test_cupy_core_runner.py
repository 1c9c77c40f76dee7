"""``scripts/cupy-core-tests`` end to end on a small test file of our own, laid out as
CuPy's tests are: ``import cupy`` gives cuprum, CuPy's internals are stand-ins, and each
test lands in its column (passed, failed with a category, not applicable, skipped).
CuPy's own tests are not in this repository; the runner is pointed at them on the GPU
machine. Runs on the host device (the runner's ``--device host``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[2] / "scripts" / "cupy-core-tests"

TESTS = """
import subprocess
import sys

import numpy
import pytest

import cupy
from cupy import _core, testing
from cupy._core._routines_math import _scan_for_test
from cupy.cuda import runtime
from cupy.cuda.cufft import Plan1d


class TestKernels:
    @testing.for_dtypes([numpy.float32, numpy.int64])
    @testing.numpy_cupy_array_equal()
    def test_kernel(self, xp, dtype):
        x = testing.shaped_arange((2, 3), xp, dtype)
        if xp is numpy:
            return x * 2
        return cupy.ElementwiseKernel("T x", "T y", "y = x * 2", "twice")(x)

    def test_alias(self):
        import cuprum

        assert cupy is cuprum and runtime.is_hip is False
        assert cupy.testing is cuprum.testing

    def test_internal(self):
        _scan_for_test(cupy.zeros(3))

    def test_private_attribute(self):
        cupy.ElementwiseKernel("T x", "T y", "y = x", "k")._cached_codes

    def test_missing(self):
        Plan1d(16, 1, 1)

    def test_wrong(self):
        assert int(cupy.arange(3).sum()) == 4

    @testing.multi_gpu(2)
    def test_two_gpus(self):
        pass

    def test_child_process(self):
        code = "import cupy, cuprum, sys; assert cupy is cuprum; print('ok')"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.stdout.strip() == "ok", out.stderr
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("tests")
    pkg = root / "cupy_tests" / "core_tests"
    pkg.mkdir(parents=True)
    (root / "cupy_tests" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "test_userkernel.py").write_text(TESTS)
    out = tmp_path_factory.mktemp("out")
    env = dict(os.environ)
    import cuprum

    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(cuprum.__file__))  # where cuprum is
    done = subprocess.run(
        [sys.executable, str(RUNNER), "--tests", str(root), "--device", "host", "--out", str(out)]
        + ["--files", "cupy_tests/core_tests/test_userkernel.py"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert (out / "summary.txt").exists(), done.stdout + done.stderr
    return json.loads((out / "results.json").read_text())


def _outcome(results, name):
    (rec,) = [t for t in results["tests"] if t["test"].endswith("::" + name)]
    return rec


def test_outcomes(results):
    assert results["real_cupy_imported"] == []
    assert results["totals"] == {
        "passed": 3,
        "failed": 2,
        "skipped": 1,
        "not applicable": 2,
        "GPU only": 0,
    }
    assert _outcome(results, "test_kernel")["outcome"] == "passed"
    assert _outcome(results, "test_child_process")["outcome"] == "passed"
    assert _outcome(results, "test_internal")["outcome"] == "not applicable"
    assert "_scan_for_test" in _outcome(results, "test_internal")["detail"]
    assert "_cached_codes" in _outcome(results, "test_private_attribute")["detail"]
    missing = _outcome(results, "test_missing")
    assert missing["outcome"] == "failed" and missing["category"] == "missing feature"
    wrong = _outcome(results, "test_wrong")
    assert wrong["outcome"] == "failed" and wrong["category"] == "failure"
    assert _outcome(results, "test_two_gpus")["outcome"] == "skipped"
    causes = {c["category"] for c in results["failure_causes"]}
    assert causes == {"missing feature", "failure"}
