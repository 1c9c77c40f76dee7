"""The seed documents' CuPy programs (``seeds/``) run on cuprum with only their import lines
changed, and print what CuPy printed (``seeds/recorded_cupy.json``, recorded with CuPy 14.2
on an H200 by ``seeds/run_recorded.py``; timings masked).

A program whose output depends on unseeded random numbers is checked for its exit status and
the shape of its output (the same lines, numbers aside). On the host device (CI) only the
programs light enough for a CPU run (``on_host`` in the manifest); the GPU runs them all.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import pytest
import tomllib

SEEDS = Path(__file__).resolve().parent / "seeds"
MANIFEST = tomllib.loads((SEEDS / "manifest.toml").read_text())
RECORDED = json.loads((SEEDS / "recorded_cupy.json").read_text())


def _runner():
    spec = importlib.util.spec_from_file_location("run_recorded", SEEDS / "run_recorded.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RUNNER = _runner()


def _on_host():
    return os.environ.get("CUPRUM_DEVICE") == "host"  # set by conftest.py without a GPU


NUMBER = re.compile(r"-?\d+(\.\d+)?(e[+-]?\d+)?")


def _numbers_masked(text):
    return NUMBER.sub("<n>", text)


def _same_up_to_rounding(got, want):
    """The same text with numbers equal to float32's precision: the host device's libm
    rounds some float32 functions an ulp apart from CUDA's (and NumPy prints the digits)."""
    if _numbers_masked(got).split() != _numbers_masked(want).split():
        return False
    a = [float(m.group()) for m in NUMBER.finditer(got)]
    b = [float(m.group()) for m in NUMBER.finditer(want)]
    return len(a) == len(b) and all(abs(x - y) <= 1e-6 * max(1.0, abs(y)) for x, y in zip(a, b))


@pytest.mark.parametrize("name", list(MANIFEST))
def test_seed_program_prints_what_cupy_printed(name, tmp_path):
    entry = MANIFEST[name]
    if _on_host() and not entry.get("on_host", True):
        pytest.skip("too heavy for the host device: the GPU run covers it")
    copy = RUNNER.as_cuprum(SEEDS / name)
    try:
        rc, out, err, _seconds, timed_out = RUNNER.run_one(sys.executable, copy, 600)
    finally:
        copy.unlink(missing_ok=True)
    assert not timed_out, err
    want = RECORDED[name]
    stdout = RUNNER.mask_timings(out, entry.get("timing_lines", ""))
    if entry.get("cuprum_runs"):
        assert rc == 0, err
        return
    assert rc == want["rc"], f"exit {rc} (CuPy: {want['rc']})\n{err}"
    if rc != 0:
        # Both refuse the program: cuprum with the same exception class.
        assert "CompileException" in err, err
        return
    if entry["deterministic_output"] and not _on_host():
        assert stdout == want["stdout"]
    elif entry["deterministic_output"]:
        assert _same_up_to_rounding(stdout, want["stdout"]), (stdout, want["stdout"])
    else:
        assert _numbers_masked(stdout) == _numbers_masked(want["stdout"])
