"""CuPy's side of `cuprum bench`: the same workloads, timed the same way
(cupyx.profiler.benchmark, medians), printed as JSON lines {name, gpu_us, cpu_us}."""
import json, os, sys
import cupy as cp
from cupyx.profiler import benchmark

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "kernels")

def seed(name):
    with open(os.path.join(KERNELS, name)) as f:
        return f.read()

REPEAT = int(sys.argv[1]) if len(sys.argv) > 1 else 100
out = []

def run(name, f, args=(), **kw):
    r = benchmark(f, args, n_repeat=REPEAT, n_warmup=3, max_duration=2.0, **kw)
    gpu = float(cp.asnumpy(cp.median(cp.asarray(r.gpu_times[0])))) * 1e6
    cpu = float(cp.asnumpy(cp.median(cp.asarray(r.cpu_times)))) * 1e6
    print(json.dumps({"name": name, "gpu_us": gpu, "cpu_us": cpu}), flush=True)

n = 1 << 28
src = cp.ones(n, dtype=cp.float32); dst = cp.empty_like(src)
run("copy_1GiB_f32", lambda: dst.__setitem__(Ellipsis, src))
del src, dst
run("alloc_empty_1M_f32", lambda: cp.empty(1_000_000, dtype=cp.float32))

add = cp.RawKernel(seed('vector_add_f32.cu'), 'vector_add')
for name, m in [("raw_add4_overhead", 4), ("raw_add100M_f32", 100_000_000)]:
    a = cp.random.random(m, dtype=cp.float32); b = cp.random.random(m, dtype=cp.float32); c = cp.empty_like(a)
    blocks = (m + 255) // 256
    run(name, add, ((blocks,), (256,), (a, b, c, cp.int32(m))))
    del a, b, c

prime = cp.RawKernel(seed('prime_factor_sum.cu'), 'primeFactorizationSum')
N = 1_000_000
A = cp.empty(N - 1, dtype=cp.int64)
run("prime1M_raw", prime, (((N - 1 + 255) // 256,), (256,), (A, cp.int32(N - 1))))

mm = cp.RawKernel(seed('matrix_multiply.cu'), 'matrix_multiply')
M, Nn, K = 1024, 1024, 512
Am = cp.random.random((M, K), dtype=cp.float32); Bm = cp.random.random((K, Nn), dtype=cp.float32); Cm = cp.zeros((M, Nn), dtype=cp.float32)
run("matmul_naive_1024x1024x512", mm, (((Nn + 15) // 16, (M + 15) // 16), (16, 16), (Am, Bm, Cm, cp.int32(M), cp.int32(Nn), cp.int32(K))))

red = cp.RawKernel(seed('optimized_reduction.cu'), 'optimized_reduction')
data = cp.random.random(1_000_000, dtype=cp.float32); grid = (data.size + 255) // 256; o = cp.zeros(grid, dtype=cp.float32)
r = benchmark(lambda: red((grid,), (256,), (data, o, cp.int32(data.size)), shared_mem=1024), (), n_repeat=REPEAT, n_warmup=3, max_duration=2.0)
print(json.dumps({"name": "smem_reduce1M_raw", "gpu_us": float(cp.median(cp.asarray(r.gpu_times[0]))) * 1e6, "cpu_us": float(cp.median(cp.asarray(r.cpu_times))) * 1e6}), flush=True)

# ElementwiseKernel workloads (same operation strings as crates/cuprum-cli/src/bench.rs).
def rand(shape, dtype=cp.float32):
    return cp.random.uniform(0.5, 1.5, shape, dtype=dtype)  # never zero

def run_ew(name, k, *args):
    k(*args)  # compile outside the timing
    run(name, k, args)

custom_add = cp.ElementwiseKernel('float32 x, float32 y', 'float32 z', 'z = x + y * 2', 'custom_add')
for name, m, given in [("ew_add100M_f32", 100_000_000, False), ("ew_add100M_f32_out", 100_000_000, True),
                       ("ew_add4_f32_out_overhead", 4, True), ("ew_add4_f32_alloc_overhead", 4, False)]:
    x = rand(m); y = rand(m)
    run_ew(name, custom_add, x, y, *([cp.empty_like(x)] if given else []))
    del x, y

generic_add = cp.ElementwiseKernel('T x, T y', 'T z', 'z = x + y', 'generic_add')
S = 10_000
Ms = rand((S, S)); v = rand(S); z = cp.empty_like(Ms)
run_ew("ew_add_bcast_10000x10000_f32", generic_add, Ms, v, z)
run_ew("ew_add_transposed_10000x10000_f32", generic_add, Ms.T, Ms, z)
del Ms, v, z

trig = cp.ElementwiseKernel('T x', 'T s, T c, T t', 's = sin(x); c = cos(x); t = tan(x)', 'trig')
run_ew("trig10M_multi_output", trig, rand(10_000_000))

abs2 = cp.ElementwiseKernel('complex128 z', 'float64 mag2', 'mag2 = z.real() * z.real() + z.imag() * z.imag()', 'abs_squared')
run_ew("abs2_10M_kernel", abs2, cp.random.randn(10_000_000) + 1j * cp.random.randn(10_000_000))

prime_ew = cp.ElementwiseKernel('', 'int64 A', seed('prime_factor_sum_elementwise.op'), 'prime_factor_sum')
run_ew("prime1M_elementwise", prime_ew, cp.empty(N - 1, dtype=cp.int64))

# ReductionKernel workloads (same expressions as crates/cuprum-cli/src/bench.rs); each call
# allocates its output.
mse_kernel = cp.ReductionKernel('T x, T y', 'T z', '(x - y) * (x - y)', 'a + b',
                                'z = a / _in_ind.size()', '0', 'mse_kernel')
for name, m in [("mse100M_f64_ReductionKernel", 100_000_000), ("mse10M_f64_ReductionKernel", 10_000_000)]:
    x = rand(m, cp.float64); y = rand(m, cp.float64)
    run_ew(name, mse_kernel, x, y)
    if m == 100_000_000:  # CuPy's best (CUB); cuprum: ops::mean
        run_ew("mse100M_f64_cp_mean", lambda a, b: cp.mean((a - b) ** 2), x, y)
    del x, y

ssq = cp.ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = a', '0', 'sum_of_squares')
for name, m in [("ssq100M_f32_ReductionKernel", 100_000_000), ("ssq1M_f32_ReductionKernel", 1_000_000)]:
    run_ew(name, ssq, rand(m))
Q = rand((8192, 8192))
run_ew("ssq_8192x8192_axis1", lambda x: ssq(x, axis=1), Q)
run_ew("ssq_8192x8192_axis0", lambda x: ssq(x, axis=0), Q)
del Q
run_ew("ssq4_ReductionKernel_overhead", ssq, rand(4))
