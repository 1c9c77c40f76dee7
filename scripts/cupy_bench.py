"""CuPy's side of `cuprum bench`: the same workloads under the same names, timed the same way
(cupyx.profiler.benchmark, medians), printed as JSON lines {name, gpu_us, cpu_us}. With
--torch, PyTorch's twins instead (the rows that name one), timed with CUDA events around
each call (medians, after 3 warm-up calls).

    python3 scripts/cupy_bench.py [--torch] [--repeat N] [--filter TEXT]... [--kernels DIR] [--list]

A workload runs when its name contains one of the --filter texts (all run without one); a
bare number as the first argument is the repeat count. `--list` prints the names (no CuPy
or PyTorch needed). `cuprum bench --vs-cupy` / `--vs-torch` run a copy of this script
shipped in the binary, with the seed kernels written to --kernels (default:
examples/kernels beside this script).
"""
import argparse
import json
import os
import sys

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "kernels")

# (names, setup): setup(b) makes the arrays and times each of its names through b.
WORKLOADS = []
# The same for PyTorch's twins (--torch).
TORCH_WORKLOADS = []

cp = None  # cupy, imported by main() so that --list and --help work without it
jit = None  # cupyx.jit
torch = None  # PyTorch, imported by main() with --torch


def workload(*names):
    def add(setup):
        WORKLOADS.append((names, setup))
        return setup
    return add


def torch_workload(*names):
    def add(setup):
        TORCH_WORKLOADS.append((names, setup))
        return setup
    return add


class Bench:
    def __init__(self, repeat, filters, kernels):
        self.repeat = repeat
        self.filters = filters or []
        self.kernels = kernels

    def want(self, name):
        return not self.filters or any(f in name for f in self.filters)

    def seed(self, file):
        with open(os.path.join(self.kernels, file)) as f:
            return f.read()

    def run(self, name, f, args=()):
        """Times f(*args) and prints its JSON line."""
        if not self.want(name):
            return
        from cupyx.profiler import benchmark
        import numpy
        r = benchmark(f, args, n_repeat=self.repeat, n_warmup=3, max_duration=2.0)
        gpu = float(numpy.median(r.gpu_times[0])) * 1e6
        cpu = float(numpy.median(r.cpu_times)) * 1e6
        print(json.dumps({"name": name, "gpu_us": gpu, "cpu_us": cpu}), flush=True)

    def run_ew(self, name, k, *args):
        """Times k(*args) after one call outside the timing (which compiles it)."""
        if self.want(name):
            k(*args)
            self.run(name, k, args)


def rand(shape, dtype=None):
    """Uniform in [0.5, 1.5): never zero (as cuprum's inputs)."""
    return cp.random.uniform(0.5, 1.5, shape, dtype=dtype or cp.float32)


@workload("copy_1GiB_f32")
def copy(b):
    src = cp.ones(1 << 28, dtype=cp.float32)
    dst = cp.empty_like(src)
    b.run("copy_1GiB_f32", lambda: dst.__setitem__(Ellipsis, src))


@workload("alloc_empty_1M_f32")
def alloc(b):
    b.run("alloc_empty_1M_f32", lambda: cp.empty(1_000_000, dtype=cp.float32))


@workload("raw_add4_overhead", "raw_add100M_f32")
def raw_add(b):
    add = cp.RawKernel(b.seed("vector_add_f32.cu"), "vector_add")
    for name, m in [("raw_add4_overhead", 4), ("raw_add100M_f32", 100_000_000)]:
        if b.want(name):
            a = cp.random.random(m, dtype=cp.float32)
            c = cp.random.random(m, dtype=cp.float32)
            z = cp.empty_like(a)
            b.run(name, add, (((m + 255) // 256,), (256,), (a, c, z, cp.int32(m))))
            del a, c, z


PRIME_N = 1_000_000


@workload("prime1M_raw")
def prime_raw(b):
    prime = cp.RawKernel(b.seed("prime_factor_sum.cu"), "primeFactorizationSum")
    a = cp.empty(PRIME_N - 1, dtype=cp.int64)
    b.run("prime1M_raw", prime, (((PRIME_N - 1 + 255) // 256,), (256,), (a, cp.int32(PRIME_N - 1))))


@workload("prime1M_jit")
def prime_jit(b):
    """The seed's cupyx.jit version (experimental in CuPy: a failure skips the row)."""
    try:
        @jit.rawkernel()
        def primeFactorizationSum(A, n):
            idx = jit.blockDim.x * jit.blockIdx.x + jit.threadIdx.x
            if idx >= n:
                return
            num = cp.int64(idx) + 2
            total = cp.int64(0)
            if num % 2 == 0:
                count = 0
                while num % 2 == 0:
                    num //= 2
                    count += 1
                total += count * 2
            i = cp.int64(3)
            while i * i <= num:
                if num % i == 0:
                    count = 0
                    while num % i == 0:
                        num //= i
                        count += 1
                    total += count * i
                i += 2
            if num > 1:
                total += num
            A[idx] = total

        a = cp.empty(PRIME_N - 1, dtype=cp.int64)
        grid = ((PRIME_N - 1 + 255) // 256,)
        b.run_ew("prime1M_jit", primeFactorizationSum, grid, (256,), (a, PRIME_N - 1))
    except Exception as e:  # noqa: BLE001 (CuPy's JIT raises many kinds)
        print(f"prime1M_jit skipped: {type(e).__name__}: {e}", file=sys.stderr)


@workload("jit_add100M_f32", "jit_add4_overhead")
def jit_add(b):
    """cuprum's vector_add written in Rust, as cupyx.jit (experimental in CuPy: a failure
    skips the rows)."""
    try:
        @jit.rawkernel()
        def vector_add(a, c, z, n):
            tid = jit.blockDim.x * jit.blockIdx.x + jit.threadIdx.x
            if tid < n:
                z[tid] = a[tid] + c[tid]

        for name, m in [("jit_add100M_f32", 100_000_000), ("jit_add4_overhead", 4)]:
            if b.want(name):
                a = cp.random.random(m, dtype=cp.float32)
                c = cp.random.random(m, dtype=cp.float32)
                z = cp.empty_like(a)
                b.run_ew(name, vector_add, ((m + 255) // 256,), (256,), (a, c, z, cp.int32(m)))
                del a, c, z
    except Exception as e:  # noqa: BLE001 (CuPy's JIT raises many kinds)
        print(f"jit_add skipped: {type(e).__name__}: {e}", file=sys.stderr)


@workload("jit_smem_reduce1M")
def jit_smem_reduce(b):
    """The seed's shared-memory block reduction as cupyx.jit (dynamic shared memory)."""
    try:
        @jit.rawkernel()
        def optimized_reduction(inp, out, size):
            sdata = jit.shared_memory(cp.float32, None)
            tid = jit.threadIdx.x
            i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
            if i < size:
                sdata[tid] = inp[i]
            else:
                sdata[tid] = cp.float32(0)
            jit.syncthreads()
            s = jit.blockDim.x // 2
            while s > 0:
                if tid < s:
                    sdata[tid] += sdata[tid + s]
                jit.syncthreads()
                # `s >>= 1` makes the literal an int32 value and its cast to uint32 fails
                # with NumPy 2's casting rules ("Cannot cast from 'int32' to uint32 with
                # casting rule same_kind"); a literal operand of `>>` is cast as a constant.
                s = s >> 1
            if tid == 0:
                out[jit.blockIdx.x] = sdata[0]

        data = cp.random.random(1_000_000, dtype=cp.float32)
        grid = (data.size + 255) // 256
        o = cp.zeros(grid, dtype=cp.float32)
        b.run_ew("jit_smem_reduce1M",
                 lambda: optimized_reduction((grid,), (256,), (data, o, cp.int32(data.size)), shared_mem=1024))
    except Exception as e:  # noqa: BLE001
        print(f"jit_smem_reduce1M skipped: {type(e).__name__}: {e}", file=sys.stderr)


@workload("matmul_naive_1024x1024x512")
def matmul(b):
    mm = cp.RawKernel(b.seed("matrix_multiply.cu"), "matrix_multiply")
    m, n, k = 1024, 1024, 512
    a = cp.random.random((m, k), dtype=cp.float32)
    c = cp.random.random((k, n), dtype=cp.float32)
    z = cp.zeros((m, n), dtype=cp.float32)
    grid = ((n + 15) // 16, (m + 15) // 16)
    b.run("matmul_naive_1024x1024x512", mm,
          (grid, (16, 16), (a, c, z, cp.int32(m), cp.int32(n), cp.int32(k))))


@workload("smem_reduce1M_raw")
def smem_reduce(b):
    red = cp.RawKernel(b.seed("optimized_reduction.cu"), "optimized_reduction")
    data = cp.random.random(1_000_000, dtype=cp.float32)
    grid = (data.size + 255) // 256
    o = cp.zeros(grid, dtype=cp.float32)
    b.run("smem_reduce1M_raw",
          lambda: red((grid,), (256,), (data, o, cp.int32(data.size)), shared_mem=1024))


# The n-body step over 1M particle records: the raw CUDA twin (examples/kernels/nbody.cu)
# as a CuPy RawKernel over CuPy arrays of a structured NumPy dtype with the layout of the
# Rust `Particle` / `Body` (#[derive(cuprum::DeviceType)], #[repr(C)]): `align=True` gives
# C's offsets, checked below against Rust's (NBODY_LAYOUT; crates/cuprum-cli's tests check
# these numbers against `size_of` / `offset_of!`). RawKernel passes a structured array's
# data pointer like any array's. CuPy before 15 has no structured dtypes on the device:
# there the same records travel as uint8 bytes (said on stderr). Both rows time this
# twin: `nbody_step_1M_particles` (cuprum's Rust kernel) and `nbody_step_1M_raw` (its
# raw CUDA twin).
NBODY_DECLS = """
struct Vec3 { float x; float y; float z; };
struct Particle { Vec3 pos; Vec3 vel; float mass; };
struct Body { Vec3 pos; float mass; };
"""

# Rust's layout: type -> (size, {field: offset}).
NBODY_LAYOUT = {
    "Vec3": (12, {"x": 0, "y": 4, "z": 8}),
    "Particle": (28, {"pos": 0, "vel": 12, "mass": 24}),
    "Body": (16, {"pos": 0, "mass": 12}),
}


def nbody_dtypes():
    """The structured dtypes of Vec3, Particle, Body, checked against NBODY_LAYOUT."""
    import numpy
    vec3 = numpy.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4")], align=True)
    particle = numpy.dtype([("pos", vec3), ("vel", vec3), ("mass", "<f4")], align=True)
    body = numpy.dtype([("pos", vec3), ("mass", "<f4")], align=True)
    for name, dt in (("Vec3", vec3), ("Particle", particle), ("Body", body)):
        size, offsets = NBODY_LAYOUT[name]
        got = {f: dt.fields[f][1] for f in dt.names}
        if dt.itemsize != size or got != offsets:
            raise AssertionError(f"{name}: dtype {dt} has size {dt.itemsize} and offsets "
                                 f"{got}; Rust's are {size} and {offsets}")
    return vec3, particle, body


@workload("nbody_step_1M_particles", "nbody_step_1M_raw")
def nbody(b):
    import numpy
    _, particle, body = nbody_dtypes()
    n, m = 1_000_000, 64
    rng = numpy.random.default_rng(0)
    hp = numpy.zeros(n, dtype=particle)
    for f in ("pos", "vel"):
        for c in "xyz":
            hp[f][c] = rng.uniform(-10, 10, n)
    hp["mass"] = rng.uniform(0.5, 2.0, n)
    hb = numpy.zeros(m, dtype=body)
    for c in "xyz":
        hb["pos"][c] = rng.uniform(-10, 10, m)
    hb["mass"] = rng.uniform(5.0, 20.0, m)
    try:
        ps = cp.asarray(hp)
        bs = cp.asarray(hb)
        out = cp.empty(n, dtype=particle)
        assert ps.dtype == particle and ps.nbytes == n * particle.itemsize
    except (ValueError, TypeError) as e:
        print(f"nbody: CuPy {cp.__version__} has no structured dtypes on the device ({e}); "
              "the records travel as uint8 bytes", file=sys.stderr)
        ps = cp.asarray(hp.view(numpy.uint8))
        bs = cp.asarray(hb.view(numpy.uint8))
        out = cp.empty_like(ps)
    k = cp.RawKernel(NBODY_DECLS + b.seed("nbody.cu"), "nbody_step_raw")
    args = (((n + 255) // 256,), (256,),
            (ps, cp.uint64(n), bs, cp.uint64(m), out, cp.float32(1e-3), cp.float32(1e-2)))
    for name in ("nbody_step_1M_particles", "nbody_step_1M_raw"):
        b.run(name, k, args)


# ElementwiseKernel workloads (same operation strings as crates/cuprum-cli/src/bench/workloads.rs).
@workload("ew_add100M_f32", "ew_add100M_f32_out", "ew_add4_f32_out_overhead", "ew_add4_f32_alloc_overhead")
def ew_add(b):
    custom_add = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y * 2", "custom_add")
    for name, m, given in [("ew_add100M_f32", 100_000_000, False), ("ew_add100M_f32_out", 100_000_000, True),
                           ("ew_add4_f32_out_overhead", 4, True), ("ew_add4_f32_alloc_overhead", 4, False)]:
        if b.want(name):
            x = rand(m)
            y = rand(m)
            b.run_ew(name, custom_add, x, y, *([cp.empty_like(x)] if given else []))
            del x, y


@workload("ew_add_bcast_10000x10000_f32", "ew_add_transposed_10000x10000_f32")
def ew_generic_add(b):
    generic_add = cp.ElementwiseKernel("T x, T y", "T z", "z = x + y", "generic_add")
    s = 10_000
    m = rand((s, s))
    z = cp.empty_like(m)
    b.run_ew("ew_add_bcast_10000x10000_f32", generic_add, m, rand(s), z)
    b.run_ew("ew_add_transposed_10000x10000_f32", generic_add, m.T, m, z)


@workload("trig10M_multi_output")
def trig(b):
    k = cp.ElementwiseKernel("T x", "T s, T c, T t", "s = sin(x); c = cos(x); t = tan(x)", "trig")
    b.run_ew("trig10M_multi_output", k, rand(10_000_000))


@workload("abs2_10M_kernel")
def abs2(b):
    k = cp.ElementwiseKernel("complex128 z", "float64 mag2",
                             "mag2 = z.real() * z.real() + z.imag() * z.imag()", "abs_squared")
    b.run_ew("abs2_10M_kernel", k, cp.random.randn(10_000_000) + 1j * cp.random.randn(10_000_000))


@workload("prime1M_elementwise")
def prime_elementwise(b):
    k = cp.ElementwiseKernel("", "int64 A", b.seed("prime_factor_sum_elementwise.op"), "prime_factor_sum")
    b.run_ew("prime1M_elementwise", k, cp.empty(PRIME_N - 1, dtype=cp.int64))


# ReductionKernel workloads (same expressions as crates/cuprum-cli/src/bench/workloads.rs);
# each call allocates its output.
@workload("mse100M_f64_ReductionKernel", "mse100M_f64_cp_mean", "mse10M_f64_ReductionKernel")
def mse(b):
    mse_kernel = cp.ReductionKernel("T x, T y", "T z", "(x - y) * (x - y)", "a + b",
                                    "z = a / _in_ind.size()", "0", "mse_kernel")
    for names, m in [(("mse100M_f64_ReductionKernel", "mse100M_f64_cp_mean"), 100_000_000),
                     (("mse10M_f64_ReductionKernel",), 10_000_000)]:
        if any(b.want(n) for n in names):
            x = rand(m, cp.float64)
            y = rand(m, cp.float64)
            b.run_ew(names[0], mse_kernel, x, y)
            if len(names) > 1:  # CuPy's best (CUB); cuprum: ops::mean
                b.run_ew(names[1], lambda p, q: cp.mean((p - q) ** 2), x, y)
            del x, y


# cupy.fuse workloads (same expressions as crates/cuprum-cli/src/bench/fuse_cases.rs).
@workload("mse100M_f64_fuse", "fuse_overhead")
def fuse_mse(b):
    """cupy.fuse cannot trace cp.mean: the seed's MSE as sum((a - b) ** 2) / n."""
    @cp.fuse()
    def mse(p, q, n):
        return cp.sum((p - q) ** 2) / n

    for name, m in [("mse100M_f64_fuse", 100_000_000), ("fuse_overhead", 4)]:
        if b.want(name):
            x = rand(m, cp.float64)
            y = rand(m, cp.float64)
            b.run_ew(name, mse, x, y, float(m))
            del x, y


def chain10(v):
    for _ in range(5):
        v = v * 1.0001
        v = v + 0.5
    return v


@workload("fuse_chain10_100M_f32", "fuse_chain10_100M_f32_unfused")
def fuse_chain(b):
    """Ten chained element-wise operations: cupy.fuse, and plain CuPy (ten kernels)."""
    x = rand(100_000_000)
    b.run_ew("fuse_chain10_100M_f32", cp.fuse()(chain10), x)
    b.run_ew("fuse_chain10_100M_f32_unfused", chain10, x)


def sum_of_squares():
    return cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_of_squares")


@workload("ssq100M_f32_ReductionKernel", "ssq1M_f32_ReductionKernel", "ssq4_ReductionKernel_overhead")
def ssq_full(b):
    ssq = sum_of_squares()
    for name, m in [("ssq100M_f32_ReductionKernel", 100_000_000), ("ssq1M_f32_ReductionKernel", 1_000_000),
                    ("ssq4_ReductionKernel_overhead", 4)]:
        if b.want(name):
            b.run_ew(name, ssq, rand(m))


@workload("ssq_8192x8192_axis1", "ssq_8192x8192_axis0")
def ssq_axis(b):
    ssq = sum_of_squares()
    q = rand((8192, 8192))
    b.run_ew("ssq_8192x8192_axis1", lambda x: ssq(x, axis=1), q)
    b.run_ew("ssq_8192x8192_axis0", lambda x: ssq(x, axis=0), q)


# Array routines (same workloads as the end of crates/cuprum-cli/src/bench/workloads.rs).
ROUTINE_N = 100_000_000
ROUTINE_SMALL = 10_000_000


@workload("h2d_1GiB_pinned", "d2h_1GiB_pinned", "h2d_1GiB_pageable", "d2h_1GiB_pageable",
          "d2h_1GiB_into", "h2d_64MiB_pageable", "d2h_64MiB_pageable")
def transfers(b):
    import numpy as np
    import cupyx
    n = 1 << 28
    host = (np.arange(n) % 1013).astype(np.float32) + 0.5
    a = cp.asarray(host)
    b.run("h2d_1GiB_pageable", lambda: cp.asarray(host))
    b.run("d2h_1GiB_pageable", lambda: cp.asnumpy(a))
    out = np.empty_like(host)
    b.run("d2h_1GiB_into", lambda: a.get(out=out))
    pinned = cupyx.empty_pinned((n,), dtype=np.float32)
    pinned[...] = host
    b.run("h2d_1GiB_pinned", lambda: a.set(pinned))
    b.run("d2h_1GiB_pinned", lambda: a.get(out=pinned))
    small = host[: 16 << 20]
    sa = cp.asarray(small)
    b.run("h2d_64MiB_pageable", lambda: cp.asarray(small))
    b.run("d2h_64MiB_pageable", lambda: cp.asnumpy(sa))


@workload("pipeline_4GiB_3streams", "pipeline_4GiB_slowest_stage")
def pipeline(b):
    """cuprum's pipeline twin: 256 chunks of 16 MiB, upload / y = 2x + 1 / download on three
    streams ordered by events, pinned host buffers."""
    import numpy as np
    import cupyx
    chunks, n = 256, 4 << 20
    ins = [cupyx.empty_pinned((n,), dtype=np.float32) for _ in range(chunks)]
    outs = [cupyx.empty_pinned((n,), dtype=np.float32) for _ in range(chunks)]
    for x in ins:
        x[...] = 1.5
    slots = [(cp.empty(n, cp.float32), cp.empty(n, cp.float32)) for _ in range(3)]
    k = cp.ElementwiseKernel("float32 x", "float32 y", "y = x * 2.0f + 1.0f", "pipe")
    up, comp, down = (cp.cuda.Stream(non_blocking=True) for _ in range(3))

    def run(stages):
        uploaded, computed, downloaded = [], [], []
        for step in range(chunks + 2):
            if step < chunks and stages[0]:
                if step >= 3 and stages[1]:
                    up.wait_event(computed[step - 3])
                slots[step % 3][0].set(ins[step], stream=up)
                uploaded.append(up.record())
            if 1 <= step <= chunks and stages[1]:
                j = step - 1
                d_in, d_out = slots[j % 3]
                if stages[0]:
                    comp.wait_event(uploaded[j])
                if j >= 3 and stages[2]:
                    comp.wait_event(downloaded[j - 3])
                with comp:
                    k(d_in, d_out)
                computed.append(comp.record())
            if step >= 2 and stages[2]:
                j = step - 2
                if stages[1]:
                    down.wait_event(computed[j])
                slots[j % 3][1].get(out=outs[j], stream=down, blocking=False)
                downloaded.append(down.record())
        for s in (up, comp, down):
            s.synchronize()

    run([True] * 3)
    repeat = b.repeat
    b.repeat = min(repeat, 10)
    b.run("pipeline_4GiB_3streams", lambda: run([True] * 3))
    if b.want("pipeline_4GiB_slowest_stage"):
        from cupyx.profiler import benchmark
        worst = None
        for i in range(3):
            only = [j == i for j in range(3)]
            r = benchmark(run, (only,), n_repeat=b.repeat, n_warmup=1, max_duration=4.0)
            gpu = float(np.median(r.gpu_times[0])) * 1e6
            cpu = float(np.median(r.cpu_times)) * 1e6
            if worst is None or gpu > worst[0]:
                worst = (gpu, cpu)
        print(json.dumps({"name": "pipeline_4GiB_slowest_stage", "gpu_us": worst[0],
                          "cpu_us": worst[1]}), flush=True)
    b.repeat = repeat


@workload("eager_chain20_4K", "graph_chain20_4K")
def graph_chain(b):
    """20 small ElementwiseKernel calls in place, eager and as a captured CUDA graph."""
    k = cp.ElementwiseKernel("", "float32 x", "x = x * 0.5f + 1.0f", "chain_step")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = cp.ones(4096, dtype=cp.float32)
        k(x)

        def eager():
            for _ in range(20):
                k(x)

        b.run("eager_chain20_4K", eager)
        s.begin_capture()
        eager()
        g = s.end_capture()
        b.run("graph_chain20_4K", lambda: g.launch(stream=s))


@workload("cumsum100M_f32")
def cumsum(b):
    b.run_ew("cumsum100M_f32", cp.cumsum, rand(ROUTINE_N))


@workload("cumsum100M_f64")
def cumsum_f64(b):
    b.run_ew("cumsum100M_f64", cp.cumsum, rand(ROUTINE_N, cp.float64))


@workload("cumsum100M_i32")
def cumsum_i32(b):
    b.run_ew("cumsum100M_i32", cp.cumsum, cp.random.randint(0, 1000, ROUTINE_N, dtype=cp.int32))


@workload("cumsum_10Kx10K_f32_axis1", "cumsum_10Kx10K_f32_axis0")
def cumsum2d(b):
    x = rand((10000, 10000))
    b.run_ew("cumsum_10Kx10K_f32_axis1", lambda a: cp.cumsum(a, axis=1), x)
    b.run_ew("cumsum_10Kx10K_f32_axis0", lambda a: cp.cumsum(a, axis=0), x)


@workload("cumsum_10Kx10K_f64_axis1")
def cumsum2d_f64(b):
    b.run_ew("cumsum_10Kx10K_f64_axis1", lambda a: cp.cumsum(a, axis=1), rand((10000, 10000), cp.float64))


@workload("sort100M_u32", "sort100M_i64_below_1e4", "sort100M_f64", "argsort100M_f32")
def sorts_issue25(b):
    n = ROUTINE_N
    if b.want("sort100M_u32"):
        b.run_ew("sort100M_u32", cp.sort, (cp.random.random(n, dtype=cp.float64) * 4294967296.0).astype(cp.uint32))
        cp.get_default_memory_pool().free_all_blocks()
    if b.want("sort100M_i64_below_1e4"):
        b.run_ew("sort100M_i64_below_1e4", cp.sort, cp.random.randint(0, 10_000, n, dtype=cp.int64))
        cp.get_default_memory_pool().free_all_blocks()
    if b.want("sort100M_f64"):
        b.run_ew("sort100M_f64", cp.sort, cp.random.random(n, dtype=cp.float64))
        cp.get_default_memory_pool().free_all_blocks()
    if b.want("argsort100M_f32"):
        b.run_ew("argsort100M_f32", cp.argsort, cp.random.random(n, dtype=cp.float32))


@workload("sort_rows_10000x10000_f32", "sort_rows_1Mx32_f32")
def sort_rows(b):
    for name, shape in [("sort_rows_10000x10000_f32", (10_000, 10_000)),
                        ("sort_rows_1Mx32_f32", (1_000_000, 32))]:
        if b.want(name):
            b.run_ew(name, lambda v: cp.sort(v, axis=-1), cp.random.random(shape, dtype=cp.float32))
            cp.get_default_memory_pool().free_all_blocks()


@workload("unique100M_i32_1M_distinct")
def unique(b):
    b.run_ew("unique100M_i32_1M_distinct", cp.unique,
             cp.random.randint(0, 1_000_000, ROUTINE_N, dtype=cp.int32))


@workload("scan_kernel_running_max100M_f32")
def running_max(b):
    """CuPy has no scan kernel: its closest is cupy.maximum.accumulate (a failure, e.g. an
    accumulate CuPy does not implement, skips the row)."""
    x = rand(ROUTINE_N)
    try:
        cp.maximum.accumulate(x)
    except Exception as e:  # noqa: BLE001 - any failure means "no twin"
        print(f"scan_kernel_running_max100M_f32 skipped: {type(e).__name__}: {e}", file=sys.stderr)
        return
    b.run_ew("scan_kernel_running_max100M_f32", cp.maximum.accumulate, x)


@workload("sort100M_f32", "argsort10M_f32")
def sorts(b):
    if b.want("sort100M_f32"):
        b.run_ew("sort100M_f32", cp.sort, cp.random.random(ROUTINE_N, dtype=cp.float32))
        cp.get_default_memory_pool().free_all_blocks()
    b.run_ew("argsort10M_f32", cp.argsort, cp.random.random(ROUTINE_SMALL, dtype=cp.float32))


@workload("sort_by_key100M_u32_u32")
def sort_pairs(b):
    k = cp.random.randint(0, 2**32 - 1, ROUTINE_N, dtype=cp.uint32)
    v = cp.random.randint(0, 2**32 - 1, ROUTINE_N, dtype=cp.uint32)

    def by_key(k, v):
        i = cp.argsort(k)
        return k[i], v[i]

    b.run_ew("sort_by_key100M_u32_u32", by_key, k, v)
    del k, v
    cp.get_default_memory_pool().free_all_blocks()


@workload("median100M_f32", "quantile_rows_10000x10000_f32")
def order_stats(b):
    if b.want("median100M_f32"):
        b.run_ew("median100M_f32", cp.median, cp.random.random(ROUTINE_N, dtype=cp.float32))
        cp.get_default_memory_pool().free_all_blocks()
    if b.want("quantile_rows_10000x10000_f32"):
        x = cp.random.random((10_000, 10_000), dtype=cp.float32)
        q = cp.asarray([0.1, 0.5, 0.9])
        b.run_ew("quantile_rows_10000x10000_f32", lambda v: cp.quantile(v, q, axis=1), x)
        cp.get_default_memory_pool().free_all_blocks()


@workload("compress100M_f32_half", "nonzero100M_half")
def masks(b):
    x = cp.random.random(ROUTINE_N, dtype=cp.float32)
    m = x > 0.5
    b.run_ew("compress100M_f32_half", lambda v, k: v[k], x, m)
    b.run_ew("nonzero100M_half", cp.nonzero, m)


@workload("concatenate2x100M_f32")
def concatenate(b):
    b.run_ew("concatenate2x100M_f32", lambda p, q: cp.concatenate((p, q)), rand(ROUTINE_N), rand(ROUTINE_N))


@workload("fft16M_c64", "rfft2_4Kx4K_f32")
def ffts(b):
    if b.want("fft16M_c64"):
        b.run_ew("fft16M_c64", cp.fft.fft, cp.random.random(1 << 24, dtype=cp.float32).astype(cp.complex64))
    if b.want("rfft2_4Kx4K_f32"):
        b.run_ew("rfft2_4Kx4K_f32", cp.fft.rfft2, cp.random.random((4096, 4096), dtype=cp.float32))


@workload("take10M_of_100M_f32", "scatter_add10M_into_1M_f32")
def gathers(b):
    if b.want("take10M_of_100M_f32"):
        a = rand(ROUTINE_N)
        idx = cp.random.randint(0, ROUTINE_N, ROUTINE_SMALL, dtype=cp.int64)
        b.run_ew("take10M_of_100M_f32", cp.take, a, idx)
        del a, idx
    if b.want("scatter_add10M_into_1M_f32"):
        import cupyx
        a = cp.zeros(1_000_000, dtype=cp.float32)
        idx = cp.random.randint(0, 1_000_000, ROUTINE_SMALL, dtype=cp.int64)
        b.run_ew("scatter_add10M_into_1M_f32", cupyx.scatter_add, a, idx, rand(ROUTINE_SMALL))


@workload(
    "index2d_10M_of_10000x10000_f32",
    "index1d_10M_of_100M_f32",
    "index_put_rows_1000_of_100000x1000_f32",
    "maximum_at10M_into_1M_f32",
)
def subscripts(b):
    if b.want("index2d_10M_of_10000x10000_f32"):
        a = rand(ROUTINE_N).reshape(10_000, 10_000)
        rows = cp.random.randint(0, 10_000, ROUTINE_SMALL, dtype=cp.int64)
        cols = cp.random.randint(0, 10_000, ROUTINE_SMALL, dtype=cp.int64)
        b.run_ew("index2d_10M_of_10000x10000_f32", lambda x, i, j: x[i, j], a, rows, cols)
        del a, rows, cols
    if b.want("index1d_10M_of_100M_f32"):
        a = rand(ROUTINE_N)
        idx = cp.random.randint(0, ROUTINE_N, ROUTINE_SMALL, dtype=cp.int64)
        b.run_ew("index1d_10M_of_100M_f32", lambda x, i: x[i], a, idx)
        del a, idx
    if b.want("index_put_rows_1000_of_100000x1000_f32"):
        a = cp.zeros((100_000, 1000), dtype=cp.float32)
        rows = cp.random.randint(0, 100_000, 1000, dtype=cp.int64)
        v = rand(1000 * 1000).reshape(1000, 1000)

        def put(x, i, y):
            x[i] = y

        b.run_ew("index_put_rows_1000_of_100000x1000_f32", put, a, rows, v)
        del a, rows, v
    if b.want("maximum_at10M_into_1M_f32"):
        a = cp.zeros(1_000_000, dtype=cp.float32)
        idx = cp.random.randint(0, 1_000_000, ROUTINE_SMALL, dtype=cp.int64)
        b.run_ew("maximum_at10M_into_1M_f32", cp.maximum.at, a, idx, rand(ROUTINE_SMALL))


@workload("searchsorted10M_in_100M_f32")
def searchsorted(b):
    a = cp.sort(cp.random.random(ROUTINE_N, dtype=cp.float32))
    v = cp.random.random(ROUTINE_SMALL, dtype=cp.float32)
    b.run_ew("searchsorted10M_in_100M_f32", cp.searchsorted, a, v)


@workload("isin100M_i32_in_1000", "bincount100M_i32", "histogram100M_f32_1000bins", "argwhere100M_half_2d")
def counts(b):
    if b.want("isin100M_i32_in_1000"):
        e = cp.random.randint(0, 2000, ROUTINE_N, dtype=cp.int32)
        t = cp.random.randint(0, 2000, 1000, dtype=cp.int32)
        b.run_ew("isin100M_i32_in_1000", cp.isin, e, t)
        del e, t
    if b.want("bincount100M_i32"):
        x = cp.random.randint(0, 1000, ROUTINE_N, dtype=cp.int32)
        b.run_ew("bincount100M_i32", cp.bincount, x)
        del x
    if b.want("histogram100M_f32_1000bins"):
        x = cp.random.random(ROUTINE_N, dtype=cp.float32)
        b.run_ew("histogram100M_f32_1000bins", lambda v: cp.histogram(v, bins=1000), x)
        del x
    if b.want("argwhere100M_half_2d"):
        m = (cp.random.random(ROUTINE_N, dtype=cp.float32) > 0.5).reshape(10_000, 10_000)
        b.run_ew("argwhere100M_half_2d", cp.argwhere, m)


@workload("diff100M_f32", "flip100M_f32_copy", "roll100M_f32")
def shape_moves(b):
    x = rand(ROUTINE_N)
    b.run_ew("diff100M_f32", cp.diff, x)
    b.run_ew("flip100M_f32_copy", lambda v: cp.flip(v).copy(), x)
    b.run_ew("roll100M_f32", lambda v: cp.roll(v, 12345), x)


@workload("repeat10M_f32_x4", "tile10M_f32_3x3")
def shape_copies(b):
    x = rand(ROUTINE_SMALL)
    b.run_ew("repeat10M_f32_x4", lambda v: cp.repeat(v, 4), x)
    b.run_ew("tile10M_f32_3x3", lambda v: cp.tile(v, (3, 3)), x.reshape(1000, ROUTINE_SMALL // 1000))


@workload("tril_10000x10000_f32", "trace10000x10000_f32", "outer10000_f32")
def matrices(b):
    m = rand((10_000, 10_000))
    b.run_ew("tril_10000x10000_f32", cp.tril, m)
    b.run_ew("trace10000x10000_f32", cp.trace, m)
    b.run_ew("outer10000_f32", cp.outer, rand(10_000), rand(10_000))


@workload("prime1M_masked")
def prime_masked(b):
    # Seed 003, "Option 1: reformulate entirely", verbatim.
    import math

    def get_small_primes(limit):
        """Simple CPU sieve to get primes up to sqrt(N)"""
        is_prime = [True] * (limit + 1)
        primes = []
        for p in range(2, limit + 1):
            if is_prime[p]:
                primes.append(p)
                for i in range(p * p, limit + 1, p):
                    is_prime[i] = False
        return primes

    def primeFactorizationSum(n):
        small_primes = get_small_primes(int(math.sqrt(n)))
        nums = cp.arange(2, n + 1, dtype=cp.int64)
        totals = cp.zeros(n - 1, dtype=cp.int64)
        for p in small_primes:
            power = p
            max_iter = 0
            while power <= n:
                max_iter += 1
                power *= p
            for _ in range(max_iter):
                mask = (nums % p == 0)
                totals[mask] += p
                nums[mask] //= p
        mask = (nums > 1)
        totals[mask] += nums[mask]
        return totals

    b.run_ew("prime1M_masked", primeFactorizationSum, PRIME_N)


@workload("mask_inplace_add100M_f32", "where100M_f32")
def mask_updates(b):
    x = cp.random.random(ROUTINE_N, dtype=cp.float32)
    m = x > 0.5

    def inplace_add(v, k):
        v[k] += 1

    b.run_ew("mask_inplace_add100M_f32", inplace_add, x, m)
    b.run_ew("where100M_f32", cp.where, m, x, rand(ROUTINE_N))


@workload("floor_divide100M_i64")
def floor_divide(b):
    b.run_ew("floor_divide100M_i64", lambda a: a // 7, cp.arange(ROUTINE_N, dtype=cp.int64))


class TorchBench(Bench):
    """Times PyTorch's twins: CUDA events around each call on the current stream."""

    def run(self, name, f, args=()):
        if not self.want(name):
            return
        import time
        import statistics
        for _ in range(3):
            f(*args)
        gpu, cpu = [], []
        spent = 0.0
        for _ in range(self.repeat):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            t0 = time.perf_counter()
            f(*args)
            t1 = time.perf_counter()
            end.record()
            end.synchronize()
            gpu.append(start.elapsed_time(end) * 1e3)
            cpu.append((t1 - t0) * 1e6)
            spent += gpu[-1] * 1e-6
            if spent > 2.0:
                break
        print(json.dumps({"name": name, "gpu_us": statistics.median(gpu),
                          "cpu_us": statistics.median(cpu)}), flush=True)

    def run_ew(self, name, k, *args):
        if self.want(name):
            self.run(name, k, args)


def trand(shape, dtype=None):
    """Uniform in [0.5, 1.5) on the GPU (as rand)."""
    return torch.rand(shape, device="cuda", dtype=dtype or torch.float32) + 0.5


@torch_workload("cumsum100M_f32")
def torch_cumsum(b):
    b.run_ew("cumsum100M_f32", lambda v: torch.cumsum(v, 0), trand(ROUTINE_N))


@torch_workload("cumsum100M_f64")
def torch_cumsum_f64(b):
    b.run_ew("cumsum100M_f64", lambda v: torch.cumsum(v, 0), trand(ROUTINE_N, torch.float64))


@torch_workload("cumsum_10Kx10K_f32_axis1")
def torch_cumsum_rows(b):
    b.run_ew("cumsum_10Kx10K_f32_axis1", lambda v: torch.cumsum(v, 1), trand((10000, 10000)))


@torch_workload("cumsum_10Kx10K_f64_axis1")
def torch_cumsum_rows_f64(b):
    b.run_ew("cumsum_10Kx10K_f64_axis1", lambda v: torch.cumsum(v, 1), trand((10000, 10000), torch.float64))


@torch_workload("cumsum100M_i32")
def torch_cumsum_i32(b):
    x = torch.randint(0, 1000, (ROUTINE_N,), device="cuda", dtype=torch.int32)
    b.run_ew("cumsum100M_i32", lambda v: torch.cumsum(v, 0), x)


@torch_workload("scan_kernel_running_max100M_f32")
def torch_cummax(b):
    b.run_ew("scan_kernel_running_max100M_f32", lambda v: torch.cummax(v, 0), trand(ROUTINE_N))


@torch_workload("sort100M_f32", "sort100M_i64_below_1e4", "sort100M_f64", "argsort100M_f32")
def torch_sorts(b):
    b.run_ew("sort100M_f32", torch.sort, torch.rand(ROUTINE_N, device="cuda"))
    b.run_ew("sort100M_i64_below_1e4", torch.sort, torch.randint(0, 10_000, (ROUTINE_N,), device="cuda"))
    b.run_ew("sort100M_f64", torch.sort, torch.rand(ROUTINE_N, device="cuda", dtype=torch.float64))
    b.run_ew("argsort100M_f32", lambda v: torch.argsort(v, stable=True), torch.rand(ROUTINE_N, device="cuda"))


@torch_workload("sort_rows_10000x10000_f32", "sort_rows_1Mx32_f32")
def torch_sort_rows(b):
    for name, shape in [("sort_rows_10000x10000_f32", (10_000, 10_000)),
                        ("sort_rows_1Mx32_f32", (1_000_000, 32))]:
        b.run_ew(name, lambda v: torch.sort(v, dim=-1), torch.rand(shape, device="cuda"))


@torch_workload("fft16M_c64", "rfft2_4Kx4K_f32")
def torch_ffts(b):
    if b.want("fft16M_c64"):
        b.run_ew("fft16M_c64", torch.fft.fft, torch.rand(1 << 24, device="cuda").to(torch.complex64))
    if b.want("rfft2_4Kx4K_f32"):
        b.run_ew("rfft2_4Kx4K_f32", torch.fft.rfft2, torch.rand((4096, 4096), device="cuda"))


@torch_workload("unique100M_i32_1M_distinct")
def torch_unique(b):
    b.run_ew("unique100M_i32_1M_distinct", lambda v: torch.unique(v, sorted=True),
             torch.randint(0, 1_000_000, (ROUTINE_N,), device="cuda", dtype=torch.int32))


@torch_workload("compress100M_f32_half", "nonzero100M_half")
def torch_masks(b):
    x = torch.rand(ROUTINE_N, device="cuda")
    m = x > 0.5
    b.run_ew("compress100M_f32_half", lambda v, k: v[k], x, m)
    b.run_ew("nonzero100M_half", torch.nonzero, m)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("repeat_pos", nargs="?", type=int, metavar="REPEAT", help=argparse.SUPPRESS)
    p.add_argument("--repeat", type=int, default=None, help="timed repeats per workload (default 100)")
    p.add_argument("--filter", action="append", default=[],
                   help="run the workloads whose name contains this text (repeatable: any)")
    p.add_argument("--kernels", default=KERNELS, help="folder of the seed kernel sources")
    p.add_argument("--list", action="store_true", help="print the workload names and exit")
    p.add_argument("--torch", action="store_true", help="time PyTorch's twins instead of CuPy's")
    a = p.parse_args(argv)
    a.repeat = max(1, a.repeat or a.repeat_pos or 100)
    return a


def main(argv):
    global cp, jit, torch
    a = parse_args(argv)
    table = TORCH_WORKLOADS if a.torch else WORKLOADS
    if a.list:
        for names, _ in table:
            print("\n".join(names))
        return 0
    if a.torch:
        import torch as pytorch
        torch = pytorch
        b = TorchBench(a.repeat, a.filter, a.kernels)
        for names, setup in table:
            if any(b.want(n) for n in names):
                setup(b)
                torch.cuda.empty_cache()
        return 0
    import cupy
    from cupyx import jit as cupy_jit
    cp, jit = cupy, cupy_jit
    b = Bench(a.repeat, a.filter, a.kernels)
    for names, setup in WORKLOADS:
        if any(b.want(n) for n in names):
            setup(b)
            cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
