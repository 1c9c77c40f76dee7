"""What CuPy's kernel tests reach for beyond cuprum's API, as stand-ins.

Three kinds, each listed in the summary (``alias.added``):

- **Environment answers** the tests ask to decide skips: ``cupy.cuda.runtime.is_hip``
  (False), CUDA versions, the compute capability, ``getDevice``, NVRTC's version, where
  nvcc is. On a GPU they are the machine's; on cuprum's host device they are what its
  kernels see (``__CUDA_ARCH__`` 800: compute capability 8.0, cooperative launch).
- **Inert settings and classes** that test fixtures patch or construct: CuPy's kernel
  cache backend and environment switch (``cupy.cuda.compiler``), reduction accelerators
  (cuprum has no CUB switch: the lists are kept and change nothing),
  ``JitifyException``, ``PerformanceWarning``.
- **Names mapped to cuprum's equivalent**: ``cupy.exceptions`` (NumPy's exception
  classes, as CuPy's are), ``cupy._util.clear_memo`` (``cuprum.clear_memo``),
  ``cupy.cuda.driver.CUDADriverError`` (``cuprum.CuprumError``, which cuprum raises for
  driver errors), ``cupy.cuda.compiler.CompileException`` (cuprum's).

Everything else under CuPy's names is a stand-in (``alias.Stand``): a test that uses one
is "not applicable" (a private name) or fails as a missing feature (a public one).
"""

from __future__ import annotations

import ctypes
import importlib
import os
import shutil
import subprocess
import sys

from cupy_core_tests import alias
from cupy_core_tests.alias import add, stand_module

# The host device compiles kernels with __CUDA_ARCH__ 800 (include/cuprum/host/prelude.h).
HOST_COMPUTE_CAPABILITY = "80"
CUDA_DEV_ATTR_COOPERATIVE_LAUNCH = 95


def _cuprum():
    import cuprum

    return cuprum


def _on_host():
    cp = _cuprum()
    return "host" in str(cp._cuprum.config().get("Device", ""))


def compute_capability():
    """The current device's compute capability as CuPy gives it (``'90'``)."""
    if _on_host():
        return HOST_COMPUTE_CAPABILITY
    return str(_cuprum()._cuprum.config().get("Device 0 Compute Capability", "0"))


def _nvrtc_path():
    found = str(_cuprum()._cuprum.config().get("NVRTC", ""))
    return found.split(" (", 1)[0] if found.startswith("/") else None


def nvrtc_version():
    """``(major, minor)`` of the NVRTC cuprum loads (``(0, 0)`` when none is found)."""
    path = _nvrtc_path()
    if path is None:
        return (0, 0)
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return (0, 0)
    major, minor = ctypes.c_int(), ctypes.c_int()
    if lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) != 0:
        return (0, 0)
    return (major.value, minor.value)


def runtime_version():
    """CUDA's version as CuPy's ``runtimeGetVersion`` gives it (12040 for 12.4): cuprum
    has no CUDA runtime library, so NVRTC's version stands for it."""
    major, minor = nvrtc_version()
    return major * 1000 + minor * 10


def driver_version():
    """The driver's CUDA version (``cuDriverGetVersion``); on the host device, the same as
    ``runtime_version`` (no driver: nothing is older than the compiler)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return runtime_version()
    v = ctypes.c_int()
    if lib.cuDriverGetVersion(ctypes.byref(v)) != 0:
        return runtime_version()
    return v.value


def get_device():
    """The current device's id."""
    return _cuprum().cuda.Device().id


def get_device_count():
    """The number of devices cuprum sees (1 for the host device)."""
    return _cuprum()._cuprum.device_count()


def device_get_attribute(attribute, device):
    """``cudaDeviceGetAttribute``, for the attributes CuPy's tests ask about."""
    if attribute == CUDA_DEV_ATTR_COOPERATIVE_LAUNCH:
        return 1  # every GPU cuprum supports, and the host device
    raise alias.MissingInCuprum(f"cupy.cuda.runtime.deviceGetAttribute({attribute})")


def get_nvcc_path():
    """nvcc as cuprum's nvcc backend finds it: ``$NVCC``, else ``nvcc`` on ``PATH``;
    ``'nvcc'`` when there is none (so a test's ``.split()`` works, and running it says
    it is missing)."""
    return os.environ.get("NVCC") or shutil.which("nvcc") or "nvcc"


def run_cc(cmd, cwd, backend, log_stream=None):
    """Runs a compiler command and returns its output. A missing compiler asked for its
    ``--version`` answers ``release 0.0`` (a test file asks at import, to decide skips);
    any other use of a missing compiler raises ``MissingInCuprum``."""
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        if "--version" in cmd:
            return f"{cmd[0]}: not found; release 0.0"
        raise alias.MissingInCuprum(f"{backend} is not installed here ({cmd[0]})") from None
    if done.returncode != 0:
        raise RuntimeError(f"{backend} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    if log_stream is not None:
        log_stream.write(done.stdout)
    return done.stdout


def get_bool_env_variable(name, default):
    """CuPy's reading of a boolean environment switch: unset or empty gives ``default``,
    else whether it is the integer 1."""
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return int(value) == 1
    except ValueError:
        return False


class DiskKernelCacheBackend:
    """Inert stand-in of CuPy's disk kernel cache backend: tests construct one to patch
    into CuPy's compiler; cuprum keeps its own cache and never calls it."""

    def __init__(self, path):
        self._cache_dir = path

    def save(self, name, cubin, source):
        """Nothing: cuprum never stores through CuPy's cache backend."""

    def load(self, name):
        """Nothing stored here."""
        return


class JitifyException(Exception):
    """CuPy's exception of its Jitify backend (cuprum has no Jitify)."""


class PerformanceWarning(RuntimeWarning):
    """CuPy's warning of a slow path taken."""


_accelerators = {"reduction": [], "routine": []}


def _accelerator_module():
    def getter(kind):
        def get():
            return list(_accelerators[kind])

        get.__doc__ = f"The {kind} accelerators set (they change nothing in cuprum)."
        return get

    def setter(kind):
        def set_(names):
            _accelerators[kind] = list(names)

        set_.__doc__ = f"Keeps the {kind} accelerators (cuprum has no CUB switch)."
        return set_

    return {
        "ACCELERATOR_CUB": 1,
        "ACCELERATOR_CUTENSOR": 2,
        "ACCELERATOR_CUTLASS": 3,
        "get_reduction_accelerators": getter("reduction"),
        "set_reduction_accelerators": setter("reduction"),
        "get_routine_accelerators": getter("routine"),
        "set_routine_accelerators": setter("routine"),
    }


def _exceptions():
    try:
        import cuprum.exceptions as found

        return found
    except ImportError:
        pass
    import numpy

    try:
        import numpy.exceptions as npx
    except ImportError:  # NumPy < 1.25
        npx = numpy
    names = (
        "AxisError",
        "ComplexWarning",
        "ModuleDeprecationWarning",
        "TooHardError",
        "VisibleDeprecationWarning",
        "RankWarning",
    )
    return stand_module(
        "cupy.exceptions",
        "NumPy's exception classes (as CuPy's cupy.exceptions)",
        **{n: getattr(npx, n) for n in names if hasattr(npx, n)},
    )


def install(modules):
    """Registers the stand-ins (``modules``: cuprum's modules by name)."""
    cp = modules["cuprum"]
    cuda = modules["cuprum.cuda"]

    acc = _accelerator_module()
    accelerator = stand_module(
        "cupy._core._accelerator", "reduction/routine accelerator lists (inert)", **acc
    )
    core = stand_module(
        "cupy._core",
        "CuPy's core internals: the kernel classes are cuprum's, the rest stand-ins",
        ElementwiseKernel=cp.ElementwiseKernel,
        ReductionKernel=cp.ReductionKernel,
        _accelerator=accelerator,
        get_reduction_accelerators=acc["get_reduction_accelerators"],
        set_reduction_accelerators=acc["set_reduction_accelerators"],
        get_routine_accelerators=acc["get_routine_accelerators"],
        set_routine_accelerators=acc["set_routine_accelerators"],
    )
    util = stand_module(
        "cupy._util",
        "CuPy's utilities: clear_memo is cuprum's",
        clear_memo=cp.clear_memo,
        PerformanceWarning=PerformanceWarning,
    )
    exceptions = _exceptions()

    runtime = stand_module(
        "cupy.cuda.runtime",
        "CUDA runtime queries answered for cuprum's device",
        is_hip=False,
        getDevice=get_device,
        getDeviceCount=get_device_count,
        runtimeGetVersion=runtime_version,
        driverGetVersion=driver_version,
        deviceGetAttribute=device_get_attribute,
        cudaDevAttrCooperativeLaunch=CUDA_DEV_ATTR_COOPERATIVE_LAUNCH,
        streamLegacy=1,
        streamPerThread=2,
    )
    device = stand_module(
        "cupy.cuda.device",
        "the device module: Device is cuprum's",
        Device=cuda.Device,
        get_compute_capability=compute_capability,
    )
    driver = stand_module(
        "cupy.cuda.driver",
        "the driver module: CUDADriverError is cuprum.CuprumError",
        CUDADriverError=cp.CuprumError,
        _is_cuda_python=lambda: False,
        get_build_version=runtime_version,
    )
    compiler = stand_module(
        "cupy.cuda.compiler",
        "CuPy's compiler module: exceptions, compile_using_nvrtc, inert cache settings, _run_cc",
        CompileException=cp.CompileException,
        compile_using_nvrtc=cuda.compiler.compile_using_nvrtc,
        JitifyException=JitifyException,
        _get_bool_env_variable=get_bool_env_variable,
        _kernel_cache_backend=None,
        _empty_file_preprocess_cache={},
        _run_cc=run_cc,
        _get_arch=compute_capability,
    )
    # CuPy's optional libraries, off: the tests that need them skip, the rest of their
    # files (sums, searches, histograms …) run.
    cub = stand_module("cupy.cuda.cub", "CUB (not in cuprum: unavailable)", available=False)
    cutensor = stand_module(
        "cupy.cuda.cutensor",
        "cuTENSOR (not in cuprum: unavailable)",
        available=False,
        _try_reduction_routine=lambda *args, **kwargs: None,
    )
    cub_reduction = stand_module(
        "cupy._core._cub_reduction",
        "CuPy's CUB reductions (not in cuprum)",
        _CUB_REDUCE_SIZE_THRESHOLD=2**16,
        _SimpleCubReductionKernel_get_cached_function=None,
    )
    add(core, "_cub_reduction", cub_reduction)
    # Public CuPy modules cuprum does not have: every name in them is missing.
    memory = stand_module("cupy.cuda.memory", "CuPy's memory module (not in cuprum)")
    compiler_cache = stand_module(
        "cupy.cuda._compiler_cache",
        "CuPy's kernel cache backends (inert)",
        DiskKernelCacheBackend=DiskKernelCacheBackend,
    )
    nvrtc = stand_module(
        "cupy_backends.cuda.libs.nvrtc", "NVRTC's version", getVersion=nvrtc_version
    )
    libs = stand_module("cupy_backends.cuda.libs", "CuPy's library bindings", nvrtc=nvrtc)
    backends_cuda = stand_module("cupy_backends.cuda", "CuPy's CUDA bindings", libs=libs)
    backends = stand_module("cupy_backends", "CuPy's backends", cuda=backends_cuda)

    cupyx = stand_module("cupyx", "cupyx: cuprum's jit, profiler and error state where they exist")
    for sub in ("jit", "profiler"):
        if f"cuprum.{sub}" in modules:
            cupyx.__dict__[sub] = modules[f"cuprum.{sub}"]
            sys.modules[f"cupyx.{sub}"] = modules[f"cuprum.{sub}"]
    for name in (
        "errstate",
        "seterr",
        "geterr",
        "allow_synchronize",
        "DeviceSynchronized",
        "rsqrt",
        "scatter_add",
        "scatter_max",
        "scatter_min",
        "empty_pinned",
        "empty_like_pinned",
        "zeros_pinned",
        "zeros_like_pinned",
        "get_runtime_info",
    ):
        if hasattr(cp, name):
            cupyx.__dict__[name] = getattr(cp, name)
    # cuprum.linalg has every routine CuPy asks cuSOLVER about (geev, potrfBatched, ...)
    cusolver = stand_module(
        "cupyx.cusolver",
        "cuSOLVER's availability: cuprum's linalg routines exist on every device",
        check_availability=lambda name: True,
    )
    cupyx.__dict__["cusolver"] = cusolver

    def stacked_identity(batch_shape, n, dtype):
        x = cp.zeros(tuple(batch_shape) + (n, n), dtype)
        x[...] = cp.eye(n, dtype=dtype)
        return x

    linalg_util = stand_module(
        "cupy.linalg._util", "CuPy's linalg helper the tests use", stacked_identity=stacked_identity
    )

    # CuPy splits batched solves at cuBLAS's gesv limit; cuprum solves a whole stack at once:
    # the limit is kept (the tests set and restore it) and changes nothing
    gesv_limit = [256]

    def set_batched_gesv_limit(limit):
        gesv_limit[0] = int(limit)

    cublas = stand_module(
        "cupy.cublas",
        "cuBLAS's batched-solve limit: kept, unused (cuprum solves a whole stack at once)",
        get_batched_gesv_limit=lambda: gesv_limit[0],
        set_batched_gesv_limit=set_batched_gesv_limit,
    )

    for module in (
        accelerator,
        core,
        util,
        exceptions,
        runtime,
        device,
        driver,
        compiler,
        compiler_cache,
        memory,
        cub,
        cutensor,
        cub_reduction,
        nvrtc,
        libs,
        backends_cuda,
        backends,
        cupyx,
        cusolver,
        linalg_util,
        cublas,
    ):
        existing = sys.modules.setdefault(module.__name__, module)
        if existing is not module:
            # cuprum has the module (e.g. ``cuprum.cuda.compiler``): the stand-in's names
            # it lacks are added to it.
            for name, value in vars(module).items():
                if not name.startswith("__"):
                    add(existing, name, value)

    add(cp, "_core", core)
    add(cp, "_util", util)
    add(modules["cuprum.linalg"], "_util", linalg_util)
    add(cp, "cublas", cublas)
    add(cp, "exceptions", exceptions)
    for name, module in (
        ("runtime", runtime),
        ("device", device),
        ("driver", driver),
        ("compiler", compiler),
        ("_compiler_cache", compiler_cache),
        ("memory", memory),
        ("cub", cub),
        ("cutensor", cutensor),
    ):
        add(cuda, name, module)
    add(cuda, "get_nvcc_path", get_nvcc_path)
    # CuPy's goodness-of-fit check for its tests of random numbers: cuprum.testing's
    if "cuprum.testing" in modules:
        hyp = importlib.import_module("cuprum.testing._hypothesis")
        sys.modules.setdefault("cupy.testing._hypothesis", hyp)
        add(modules["cuprum.testing"], "_hypothesis", hyp)
    # CuPy's modules of its legacy random API: RandomState's (``_generator``) and the
    # module-level distributions (``_distributions``) are cuprum.random's own names
    if "cuprum.random" in modules:
        rnd = modules["cuprum.random"]
        for sub, doc in (
            ("_generator", "CuPy's RandomState module: cuprum.random's RandomState"),
            ("_distributions", "CuPy's distribution functions: cuprum.random's"),
        ):
            m = stand_module(
                f"cupy.random.{sub}",
                doc,
                **{n: getattr(rnd, n) for n in dir(rnd) if not n.startswith("__")},
            )
            sys.modules.setdefault(f"cupy.random.{sub}", m)
            add(rnd, sub, sys.modules[f"cupy.random.{sub}"])
