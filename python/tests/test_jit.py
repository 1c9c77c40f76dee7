"""``cuprum.jit``: kernels written in Python (CuPy's ``cupyx.jit.rawkernel`` language),
each construct against a NumPy reference on random inputs, on the GPU or the host device."""

from __future__ import annotations

import math
import os

import numpy
import pytest

import cuprum as cp
from cuprum import jit

RNG = numpy.random.default_rng(20261202)
ON_HOST = os.environ.get("CUPRUM_DEVICE") == "host"


def rand(shape, dtype, low=-100, high=100):
    dtype = numpy.dtype(dtype)
    if dtype.kind in "iu":
        low = max(low, 1) if dtype.kind == "u" else low
        a = RNG.integers(low, high, size=shape).astype(dtype)
        a[a == 0] = 7  # never zero
        return a
    if dtype.kind == "c":
        return (RNG.uniform(-2, 2, shape) + 1j * RNG.uniform(-2, 2, shape)).astype(dtype)
    return RNG.uniform(0.5, 2.0, shape).astype(dtype)


def blocks(n, threads=128):
    return ((n + threads - 1) // threads,), (threads,)


# ---------------------------------------------------------------------------- the seed


@jit.rawkernel()
def prime_factor_sum(A, n):
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


def _prime_sum(m):
    total, p = 0, 2
    while p * p <= m:
        while m % p == 0:
            total += p
            m //= p
        p += 1
    return total + (m if m > 1 else 0)


def test_seed_prime_factor_sum():
    n = 3000
    a = cp.empty(n - 1, dtype=cp.int64)
    prime_factor_sum(blocks(n - 1, 256)[0], (256,), (a, n - 1))
    want = [_prime_sum(m) for m in range(2, n + 1)]
    numpy.testing.assert_array_equal(cp.asnumpy(a), want)
    code = prime_factor_sum.cached_code
    # a Python int argument is int32, idx uint32, cp.int64 a cast; no needless indirection
    assert 'extern "C" __global__ void prime_factor_sum(long long* A, int n)' in code
    assert "unsigned int idx = blockDim.x * blockIdx.x + threadIdx.x;" in code
    assert "long long num = (long long)idx + 2ll;" in code
    assert "while (i * i <= num)" in code
    # num >= 0 and i >= 3 are proven (value ranges): // and % are C's, as in the raw kernel
    assert "_jit_" not in code
    assert "num /= i;" in code and "while (num % i == 0ll)" in code


# ---------------------------------------------------------------------------- launches


@jit.rawkernel()
def add(x, y, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "int16"])
def test_elementwise_dtypes(dtype):
    n = 1000
    x, y = rand(n, dtype, 1, 50), rand(n, dtype, 1, 50)
    out = cp.empty(n, dtype=dtype)
    add(*blocks(n), (cp.asarray(x), cp.asarray(y), out))
    numpy.testing.assert_allclose(cp.asnumpy(out), x + y, rtol=1e-6)


def test_both_launch_syntaxes_and_signatures():
    n = 300
    x, y = rand(n, "float32"), rand(n, "float32")
    out = cp.empty(n, dtype=cp.float32)
    add[(n + 127) // 128, 128](cp.asarray(x), cp.asarray(y), out)
    numpy.testing.assert_allclose(cp.asnumpy(out), x + y, rtol=1e-6)
    out.fill(0)
    add(*blocks(n), (cp.asarray(x), cp.asarray(y), out))
    numpy.testing.assert_allclose(cp.asnumpy(out), x + y, rtol=1e-6)
    codes = add.cached_codes
    assert len(codes) >= 2  # one per signature (the dtypes of the test above too)
    assert any("float* x, float* y, float* out" in c for c in codes.values())


def test_explain_names_types_and_hidden_parameters():
    a = cp.asarray(rand((4, 5), "float64"))

    @jit.rawkernel()
    def k(x, n):
        i, j = jit.grid(2)
        if i < x.shape[0] and j < x.shape[1]:
            x[i, j] = x[i, j] * n

    text = k.explain(a, 2.5)
    assert "float64[2-d, C-contiguous, 32-bit index], float32" in text
    assert "hidden parameter: extent 1 of argument 0" in text
    assert "x[i * x_n1 + j]" in text


# ---------------------------------------------------------------------------- indexing


@jit.rawkernel()
def scale2d(x, out, f):
    i, j = jit.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[i, j] = x[i, j] * f


def test_2d_indexing_shape_and_tuple_unpacking():
    x = rand((37, 19), "float32")
    out = cp.zeros((37, 19), dtype=cp.float32)
    scale2d((3, 2), (16, 16), (cp.asarray(x), out, 3.0))
    numpy.testing.assert_allclose(cp.asnumpy(out), x * numpy.float32(3.0), rtol=1e-6)


def test_strided_views():
    base = rand((20, 30), "float64")
    xt = cp.asarray(base).T  # (30, 20), not C-contiguous
    out = cp.zeros((30, 20), dtype=cp.float64)
    scale2d((2, 2), (16, 16), (xt, out, numpy.float64(2.0)))
    numpy.testing.assert_allclose(cp.asnumpy(out), base.T * 2.0)
    assert "x_s0" in scale2d.explain(xt, out, numpy.float64(2.0))


@jit.rawkernel()
def rows(x, out):
    i = jit.grid(1)
    if i < x.shape[0]:
        acc = x.dtype.type(0)
        row = x[i]  # a view (a pointer to the row) in a variable
        for j in range(row.shape[0]):
            acc += row[j] + x[i][j] * 0
        out[i] = acc + len(x) * 0 + x.ndim * 0


def test_partial_indexing_len_ndim():
    x = rand((50, 7), "float64")
    out = cp.zeros(50, dtype=cp.float64)
    rows(*blocks(50), (cp.asarray(x), out))
    numpy.testing.assert_allclose(cp.asnumpy(out), x.sum(axis=1))


@jit.rawkernel()
def grid_stride_reverse(x, out):
    start = jit.grid(1)
    step = jit.gridsize(1)
    for i in range(start, x.size, step):
        out[x.size - 1 - i] = x[i]


def test_grid_stride_loop_gridsize():
    x = rand(1000, "int32")
    out = cp.zeros(1000, dtype=cp.int32)
    grid_stride_reverse((2,), (64,), (cp.asarray(x), out))
    numpy.testing.assert_array_equal(cp.asnumpy(out), x[::-1])


@jit.rawkernel()
def negative_step(out, n):
    i = jit.grid(1)
    if i == 0:
        k = 0
        for j in range(n - 1, -1, -3):
            out[k] = j
            k += 1
        out[k] = j  # Python's value after the loop


def test_range_negative_step_and_loop_variable_after_loop():
    n = 20
    out = cp.full(10, -1, dtype=cp.int32)
    negative_step((1,), (1,), (out, n))
    want = list(range(n - 1, -1, -3))
    got = cp.asnumpy(out)
    numpy.testing.assert_array_equal(got[: len(want)], want)
    assert got[len(want)] == want[-1]


# ---------------------------------------------------------------------------- arithmetic


@jit.rawkernel()
def divmod_kernel(x, y, q, r, t):
    i = jit.grid(1)
    if i < x.size:
        q[i] = x[i] // y[i]
        r[i] = x[i] % y[i]
        t[i] = x[i] / y[i]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_floor_division_and_modulo_follow_python(dtype):
    n = 500
    x, y = rand(n, dtype, -50, 50), rand(n, dtype, -9, 9)
    y[:5] = 0  # CuPy's JIT: x // 0 == 0 and x % 0 == 0
    q, r = cp.empty(n, dtype=dtype), cp.empty(n, dtype=dtype)
    t = cp.empty(n, dtype=cp.float64)  # int / int is float64
    divmod_kernel(*blocks(n), (cp.asarray(x), cp.asarray(y), q, r, t))
    nz = y != 0
    numpy.testing.assert_array_equal(cp.asnumpy(q)[nz], x[nz] // y[nz])
    numpy.testing.assert_array_equal(cp.asnumpy(r)[nz], x[nz] % y[nz])
    assert (cp.asnumpy(q)[~nz] == 0).all() and (cp.asnumpy(r)[~nz] == 0).all()
    numpy.testing.assert_allclose(cp.asnumpy(t)[nz], x[nz] / y[nz])


def test_divisibility_test_keeps_zero_divisor_semantics():
    @jit.rawkernel()
    def k(x, y, out):
        i = jit.grid(1)
        if i < x.size:
            out[i] = 1 if x[i] % y[i] == 0 else (2 if 0 != x[i] % y[i] else 3)

    x, y = rand(300, "int64", -60, 60), rand(300, "int64", -6, 6)
    y[:7] = 0  # x % 0 is 0 in CuPy's JIT: "divisible"
    out = cp.empty(300, dtype=cp.int32)
    k(*blocks(300), (cp.asarray(x), cp.asarray(y), out))
    want = numpy.where(y == 0, 1, numpy.where(x % numpy.where(y == 0, 1, y) == 0, 1, 2))
    numpy.testing.assert_array_equal(cp.asnumpy(out), want)
    assert "_jit_divides(" in k.cached_code and "_jit_remainder" not in k.cached_code


def test_float_floor_division_and_modulo():
    n = 300
    x = RNG.uniform(-10, 10, n)
    y = RNG.uniform(0.5, 3, n) * RNG.choice([-1, 1], n)
    q, r, t = (cp.empty(n, dtype=cp.float64) for _ in range(3))
    divmod_kernel(*blocks(n), (cp.asarray(x), cp.asarray(y), q, r, t))
    numpy.testing.assert_allclose(cp.asnumpy(q), numpy.floor(x / y))
    numpy.testing.assert_allclose(cp.asnumpy(r), x - numpy.floor(x / y) * y, atol=1e-12)


def _py_div_sum(v, divisors):
    """Python's ``v // d + v % d`` summed over ``divisors`` (CuPy's JIT: 0 for d == 0)."""
    return sum((v // d + v % d) if d else 0 for d in divisors)


def _ranged_reference(v, i):
    acc = _py_div_sum(v, range(1, 5)) + _py_div_sum(v, range(-3, 0))
    acc += _py_div_sum(v, range(3))
    m = -(i % 7 + 1)
    acc += _py_div_sum(m, range(-4, 0)) + _py_div_sum(m, range(2, 5))
    c = 10
    for _ in range(3):
        acc += c // 3 + c % 3
        c -= 7
    u = i % 5
    acc += _py_div_sum(u, range(1, 4)) + (1 if u % 3 == 0 else 0)
    return acc


@jit.rawkernel()
def ranged_divisions(x, out):
    i = jit.grid(1)
    if i < x.size:
        v = x[i]  # any sign
        acc = cp.int64(0)
        for d in range(1, 5):  # divisor >= 1, dividend of either sign: no zero check
            acc += v // d + v % d
        for d in range(-3, 0):  # divisor <= -1
            acc += v // d + v % d
        for d in range(3):  # divisor may be 0: Python's (CuPy's) 0
            acc += v // d + v % d
        m = -(cp.int64(i % 7) + 1)  # m in [-7, -1]
        for d in range(-4, 0):  # one sign: C's
            acc += m // d + m % d
        for d in range(2, 5):  # opposite signs: the fix-up
            acc += m // d + m % d
        c = 10  # 10, 3, -4: a value range that grows below 0 keeps the fix-up
        j = 0
        while j < 3:
            acc += c // 3 + c % 3
            c -= 7
            j += 1
        u = cp.int64(i % 5)  # u >= 0
        for d in range(1, 4):  # C's
            acc += u // d + u % d
        if u % 3 == 0:
            acc += 1
        out[i] = acc


def test_division_with_known_value_ranges_keeps_python_semantics():
    # the translator writes C's / and % only where the operands' ranges make them Python's
    n = 400
    x = RNG.integers(-60, 60, n).astype(numpy.int64)
    out = cp.empty(n, dtype=cp.int64)
    ranged_divisions(*blocks(n), (cp.asarray(x), out))
    want = [_ranged_reference(int(v), i) for i, v in enumerate(x)]
    numpy.testing.assert_array_equal(cp.asnumpy(out), want)
    code = ranged_divisions.cached_code
    assert "_jit_floor_divide_nz<long long>(v, d)" in code  # d in [1, 4], v any sign
    assert "_jit_floor_divide<long long>(v, d)" in code  # d in [0, 2]
    assert "m / d" in code and "m % d" in code  # both <= -1
    assert "_jit_floor_divide_nz<long long>(m, d)" in code  # opposite signs
    assert "_jit_floor_divide_nz<int>(c, 3)" in code  # c's range reaches below 0
    assert "u / d + u % d" in code and "u % 3ll == 0ll" in code


def test_division_ranges_of_loop_counters_and_extents():
    # a range() counter from i >= 0 and an array's extent are >= 0 (an extent may be 0); a
    # divisor from a Python int argument may be 0 or negative
    @jit.rawkernel()
    def k(x, out, step):
        i = jit.grid(1)
        if i < x.shape[0]:
            s = cp.int64(0)
            for j in range(i, x.shape[0], 64):
                s += j // (x.shape[0] + 1) + (j + 1) % 3 + j // step
            out[i] = s

    n = 200
    x = cp.empty(n, dtype=cp.float32)
    for step in (7, -3, 0):
        out = cp.empty(n, dtype=cp.int64)
        k(*blocks(n), (x, out, step))
        want = [
            sum(j // (n + 1) + (j + 1) % 3 + (j // step if step else 0) for j in range(i, n, 64))
            for i in range(n)
        ]
        numpy.testing.assert_array_equal(cp.asnumpy(out), want)
    code = k.cached_code
    assert "j / ((long long)x_n0 + 1ll)" in code
    assert "(j + 1ll) % 3ll" in code
    assert "_jit_floor_divide<long long>(j, " in code


_RANGE_CASES = [
    # (start, stop, step, offset, divisor; None: j - 5, which passes 0)
    (0, 20, 1, 0, 3),  # one sign: C's
    (-10, 10, 1, 0, 3),  # dividend of either sign
    (-10, 10, 3, -5, -4),  # negative divisor
    (10, -10, -1, 0, -3),  # a falling counter
    (-20, -1, 2, 0, -3),  # both negative: C's
    (0, 20, 1, 0, None),  # a divisor that is 0 once
    (0, 20, 1, 1, 7),
    (-3, 4, 1, 2, 2),
]


def _range_case(start, stop, step, off, d):
    @jit.rawkernel(device=True)
    def f():
        s = cp.int64(0)
        for j in range(start, stop, step):
            v = j + off
            if d is None:
                s += v // (j - 5) + v % (j - 5)
            else:
                s += v // d + v % d
        return s

    return f


def test_division_in_range_loops_against_python():
    f0, f1, f2, f3, f4, f5, f6, f7 = (_range_case(*c) for c in _RANGE_CASES)

    @jit.rawkernel()
    def k(out):
        out[0] = f0()
        out[1] = f1()
        out[2] = f2()
        out[3] = f3()
        out[4] = f4()
        out[5] = f5()
        out[6] = f6()
        out[7] = f7()

    out = cp.zeros(8, dtype=cp.int64)
    k((1,), (1,), (out,))
    want = []
    for start, stop, step, off, d in _RANGE_CASES:
        total = 0
        for j in range(start, stop, step):
            dd = j - 5 if d is None else d
            total += (j + off) // dd + (j + off) % dd if dd else 0
        want.append(total)
    numpy.testing.assert_array_equal(cp.asnumpy(out), want)
    code = k.cached_code
    # C's where the signs are known, the helper without its zero check where only the
    # divisor's is, the full helper where the divisor passes 0
    assert code.count("v / 3 + v % 3") == 1 and "v / -3 + v % -3" in code
    assert "v / 7 + v % 7" in code and "_jit_floor_divide_nz<int>(v, -4)" in code
    assert "_jit_floor_divide<int>(v, j - 5) + _jit_remainder<int>(v, j - 5)" in code


ORDER = "?bBhHiIlLefdFD"


@jit.rawkernel()
def mixed_ops(x, y, s, d, p, q, r, lt, eq):
    i = jit.grid(1)
    if i < x.size:
        s[i] = x[i] + y[i]
        d[i] = x[i] - y[i]
        p[i] = x[i] * y[i]
        if q.ndim == 1:
            q[i] = x[i] // y[i]
            r[i] = x[i] % y[i]
        lt[i] = x[i] < y[i]
        eq[i] = x[i] == y[i]


@pytest.mark.parametrize(
    "a,b",
    [
        ("int8", "uint8"),
        ("int8", "int32"),
        ("uint32", "int32"),
        ("int32", "int64"),
        ("uint32", "int64"),
        ("int64", "uint64"),
        ("int16", "uint16"),
        ("uint8", "float32"),
        ("int64", "float32"),
        ("int32", "float64"),
    ],
)
def test_mixed_dtype_operators_take_cupys_loops(a, b):
    # CuPy's JIT: the loop is the first at or after both operand types in ?bBhHiIlLefdFD
    # (int8 + uint8 is uint8, uint32 < int32 compares unsigned, int64 * float32 is float32)
    loop = numpy.dtype(
        ORDER[max(ORDER.index(numpy.dtype(a).char), ORDER.index(numpy.dtype(b).char))]
    )
    n = 256
    x = rand(n, a, -40, 40)
    y = rand(n, b, -40, 40)
    if numpy.dtype(b).kind == "u":
        y[: n // 2] = numpy.array(RNG.integers(1, 40, n // 2), dtype=b)
    outs = [cp.empty(n, dtype=loop) for _ in range(3)]
    integer = loop.kind in "iu"
    q = cp.empty(n if integer else 1, dtype=loop).reshape(n if integer else (1, 1))
    r = cp.empty(n if integer else 1, dtype=loop)
    lt, eq = cp.empty(n, dtype=cp.bool_), cp.empty(n, dtype=cp.bool_)
    mixed_ops(*blocks(n), (cp.asarray(x), cp.asarray(y), *outs, q, r, lt, eq))
    xl, yl = x.astype(loop), y.astype(loop)
    with numpy.errstate(all="ignore"):
        numpy.testing.assert_allclose(cp.asnumpy(outs[0]), xl + yl, rtol=1e-6)
        numpy.testing.assert_allclose(cp.asnumpy(outs[1]), xl - yl, rtol=1e-6)
        numpy.testing.assert_allclose(cp.asnumpy(outs[2]), xl * yl, rtol=1e-6)
        if integer:
            numpy.testing.assert_array_equal(cp.asnumpy(q), xl // yl)
            numpy.testing.assert_array_equal(cp.asnumpy(r), xl % yl)
    numpy.testing.assert_array_equal(cp.asnumpy(lt), xl < yl)
    numpy.testing.assert_array_equal(cp.asnumpy(eq), xl == yl)


@jit.rawkernel()
def math_kernel(x, out):
    i = jit.grid(1)
    if i < x.size:
        v = x[i]
        a = cp.sqrt(v) + numpy.exp(v) - math.sin(v) + cp.log(v) * math.cos(v)
        b = max(v, 1.25) - min(v, 0.75) + cp.positive(abs(-v)) + cp.tanh(v) + math.pi
        out[i] = a + b + v**2 + cp.arctan2(v, 2.0) + cp.floor(v * 3.5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_math_and_ufuncs_on_scalars(dtype):
    x = rand(400, dtype)
    out = cp.empty(400, dtype=dtype)
    math_kernel(*blocks(400), (cp.asarray(x), out))
    v = x.astype(numpy.float64)
    a = numpy.sqrt(v) + numpy.exp(v) - numpy.sin(v) + numpy.log(v) * numpy.cos(v)
    b = numpy.maximum(v, 1.25) - numpy.minimum(v, 0.75) + v + numpy.tanh(v) + math.pi
    want = a + b + v**2 + numpy.arctan2(v, 2.0) + numpy.floor(v * 3.5)
    numpy.testing.assert_allclose(cp.asnumpy(out), want, rtol=1e-5 if dtype == "float32" else 1e-12)


@jit.rawkernel()
def cast_kernel(x, a, b, c):
    i = jit.grid(1)
    if i < x.size:
        a[i] = cp.int64(x[i] * 10.0)
        b[i] = numpy.float32(x[i]) / 3
        c[i] = int(x[i] * 100.0) % 7 + float(i) * 0.5


def test_casts_with_dtype_constructors():
    x = RNG.uniform(-5, 5, 200)
    a = cp.empty(200, dtype=cp.int64)
    b = cp.empty(200, dtype=cp.float32)
    c = cp.empty(200, dtype=cp.float64)
    cast_kernel(*blocks(200), (cp.asarray(x), a, b, c))
    numpy.testing.assert_array_equal(cp.asnumpy(a), (x * 10.0).astype(numpy.int64))
    numpy.testing.assert_allclose(cp.asnumpy(b), x.astype(numpy.float32) / 3, rtol=1e-6)
    numpy.testing.assert_allclose(
        cp.asnumpy(c), (x * 100.0).astype(numpy.int64) % 7 + numpy.arange(200) * 0.5
    )


@jit.rawkernel()
def control_kernel(x, out, limit):
    i = jit.grid(1)
    if i >= x.size:
        return
    acc = 0
    j = 0
    while True:
        j += 1
        if j > 50:
            break
        if j % 3 == 0:
            continue
        acc += j if x[i] > 0 else -j
    if x[i] > limit and not (x[i] > 90):
        acc += 1000
    elif x[i] < -limit or x[i] == 0:
        acc -= 1000
    else:
        acc *= 2
    out[i] = acc


def test_if_elif_else_while_break_continue_conditional_and_or_not():
    x = rand(300, "int32")
    out = cp.empty(300, dtype=cp.int32)
    control_kernel(*blocks(300), (cp.asarray(x), out, 40))
    s = sum(j for j in range(1, 51) if j % 3 != 0)
    want = []
    for v in x:
        acc = s if v > 0 else -s
        if v > 40 and not v > 90:
            acc += 1000
        elif v < -40 or v == 0:
            acc -= 1000
        else:
            acc *= 2
        want.append(acc)
    numpy.testing.assert_array_equal(cp.asnumpy(out), want)


@jit.rawkernel()
def augmented(a, b, h):
    i = jit.grid(1)
    if i < a.size:
        a[i] += 3
        a[i] -= 1
        a[i] *= 2
        a[i] //= 3
        a[i] %= 11
        a[i] **= 2
        a[i] <<= 1
        a[i] |= 1
        a[i] ^= 4
        b[i] /= 4.0
        b[i] -= 0.5
        h[i] += h[i] * 0.5


def test_augmented_assignment_to_elements():
    a = rand(200, "int64", -50, 50)
    b = rand(200, "float64")
    h = rand(200, "float16")
    da, db, dh = cp.asarray(a), cp.asarray(b), cp.asarray(h)
    augmented(*blocks(200), (da, db, dh))
    want = ((((a + 3 - 1) * 2) // 3) % 11) ** 2
    want = ((want << 1) | 1) ^ 4
    numpy.testing.assert_array_equal(cp.asnumpy(da), want)
    numpy.testing.assert_allclose(cp.asnumpy(db), b / 4.0 - 0.5)
    want_h = (h.astype(numpy.float32) * numpy.float32(1.5)).astype(numpy.float16)
    numpy.testing.assert_allclose(cp.asnumpy(dh), want_h, rtol=2e-3)


@jit.rawkernel()
def swap_kernel(x, y, out):
    i = jit.grid(1)
    if i < x.size:
        a, b = x[i], y[i]
        a, b = b, a - b
        c: cp.float64 = a
        out[i] = c * 10 + b


def test_tuple_unpacking_swap_and_annotations():
    x, y = rand(100, "float64"), rand(100, "float64")
    out = cp.empty(100, dtype=cp.float64)
    swap_kernel(*blocks(100), (cp.asarray(x), cp.asarray(y), out))
    numpy.testing.assert_allclose(cp.asnumpy(out), y * 10 + (x - y))


def test_names_that_are_cpp_keywords_or_math_functions():
    @jit.rawkernel()
    def exp(float, new):  # a kernel named like a math function, parameters like C++ words
        int = jit.grid(1)
        if int < new.size:
            new[int] = float * 2

    out = cp.empty(10, dtype=cp.int32)
    exp((1,), (16,), (21, out))
    numpy.testing.assert_array_equal(cp.asnumpy(out), numpy.full(10, 42))
    assert "void exp_(int float_, int* new_, int new__n0)" in exp.cached_code


def test_variable_keeps_its_first_type():
    @jit.rawkernel()
    def k(out):
        v = 1  # int32
        v = 2.5  # float32 into int32: not a same_kind cast
        out[0] = v

    with pytest.raises(TypeError, match="Cannot cast from 'float32' to 'int32'"):
        k((1,), (1,), (cp.empty(1, dtype=cp.int32),))


# ---------------------------------------------------------------------------- scalars


@jit.rawkernel()
def scalar_args(out, a, b, c, d):
    i = jit.grid(1)
    if i == 0:
        out[0] = a
        out[1] = b
        out[2] = c
        out[3] = d


def test_scalar_argument_types():
    out = cp.zeros(4, dtype=cp.float64)
    scalar_args((1,), (1,), (out, 7, 2.5, numpy.float64(1.25), True))
    numpy.testing.assert_array_equal(cp.asnumpy(out), [7, 2.5, 1.25, 1])
    code = scalar_args.cached_code
    assert "int a, float b, double c, bool d" in code
    scalar_args((1,), (1,), (out, 1 << 40, 2.5, numpy.int16(3), False))
    assert any("long long a" in c for c in scalar_args.cached_codes.values())
    numpy.testing.assert_array_equal(cp.asnumpy(out), [float(1 << 40), 2.5, 3, 0])


def test_numpy_mode_types_python_scalars_wide():
    @jit.rawkernel(mode="numpy")
    def k(out, a, b):
        i = jit.grid(1)
        if i < out.size:
            out[i] = a * i + b + 1.0 / 3.0

    out = cp.empty(50, dtype=cp.float64)
    k((1,), (64,), (out, 3, 0.1))
    numpy.testing.assert_allclose(cp.asnumpy(out), 3 * numpy.arange(50) + 0.1 + 1.0 / 3.0)
    code = k.cached_code
    assert "long long a, double b" in code
    assert "0.3333333333333333" in code  # a float64 literal (cuda mode: 0.33333334f)


def test_float16_scalar_argument_is_passed_as_float():
    out = cp.zeros(4, dtype=cp.float64)
    scalar_args((1,), (1,), (out, numpy.float16(1.5), 2.5, numpy.float64(1.25), True))
    numpy.testing.assert_array_equal(cp.asnumpy(out), [1.5, 2.5, 1.25, 1])


@jit.rawkernel()
def grid3(out):
    x, y, z = jit.grid(3)
    nx, ny, nz = jit.gridsize(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        out[x, y, z] = x * 10000 + y * 100 + z + (nx + ny + nz) * 0


def test_grid3_gridsize3():
    out = cp.zeros((5, 6, 7), dtype=cp.int64)
    grid3((2, 2, 2), (4, 4, 4), (out,))
    i, j, k = numpy.indices((5, 6, 7))
    numpy.testing.assert_array_equal(cp.asnumpy(out), i * 10000 + j * 100 + k)


def test_unroll_and_syncwarp_mask():
    @jit.rawkernel()
    def k(x):
        t = jit.threadIdx.x
        y = x[t]
        for i in jit.range(4, unroll=True):
            y += i
        for i in jit.range(3, unroll=2):
            y += i
        jit.syncwarp(mask=0xFFFFFFFF)
        x[t] = y

    x = rand(32, "int32")
    out = cp.asarray(x)
    k((1,), (32,), (out,))
    numpy.testing.assert_array_equal(cp.asnumpy(out), x + 6 + 3)
    assert "#pragma unroll\n" in k.cached_code
    assert "#pragma unroll(2)" in k.cached_code


def test_complex_numbers():
    @jit.rawkernel()
    def k(x, y, out):
        i = jit.grid(1)
        if i < x.size:
            z = x[i] * y[i] + x[i].conjugate() - 1j
            out[i] = z + abs(y[i]) + z.real * z.imag

    for dt in ("complex64", "complex128"):
        x, y = rand(100, dt), rand(100, dt)
        out = cp.empty(100, dtype=dt)
        k(*blocks(100), (cp.asarray(x), cp.asarray(y), out))
        z = x * y + numpy.conj(x) - 1j
        want = z + numpy.abs(y) + z.real * z.imag
        numpy.testing.assert_allclose(cp.asnumpy(out), want, rtol=1e-5)


def test_float16_arrays():
    @jit.rawkernel()
    def k(x, out):
        i = jit.grid(1)
        if i < x.size:
            out[i] = x[i] * 2 + cp.float16(1.5)

    x = rand(100, "float16")
    out = cp.empty(100, dtype=cp.float16)
    k(*blocks(100), (cp.asarray(x), out))
    numpy.testing.assert_allclose(cp.asnumpy(out), x * 2 + 1.5, rtol=2e-3)
    assert "float16* x" in k.cached_code


# ---------------------------------------------------------------------------- functions


@jit.rawkernel(device=True)
def clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@jit.rawkernel(device=True)
def row_sum(x, i):
    s = 0.0
    for j in range(x.shape[1]):
        s += x[i, j]
    return s


@jit.rawkernel()
def use_device_functions(x, out):
    i = jit.grid(1)
    if i < x.shape[0]:
        out[i] = clamp(row_sum(x, i), numpy.float32(-1), numpy.float32(1))


def test_device_functions():
    x = RNG.uniform(-0.5, 0.5, (60, 9)).astype(numpy.float32)
    out = cp.empty(60, dtype=cp.float32)
    use_device_functions(*blocks(60), (cp.asarray(x), out))
    numpy.testing.assert_allclose(
        cp.asnumpy(out), numpy.clip(x.sum(axis=1), -1, 1), rtol=1e-5, atol=1e-5
    )
    code = use_device_functions.cached_code
    assert "__device__ float clamp(float v, float lo, float hi)" in code
    assert "__device__ float row_sum(float* x, unsigned int i, int x_n1)" in code


@jit.rawkernel(device=True)
def tree_sum(smem, tid, n):
    s = n // 2
    while s > 0:
        if tid < s:
            smem[tid] += smem[tid + s]
        jit.syncthreads()
        s //= 2


def test_device_function_on_shared_memory():
    @jit.rawkernel()
    def k(x, out):
        smem = jit.shared_memory(cp.int32, 64)
        t = jit.threadIdx.x
        smem[t] = x[t]
        jit.syncthreads()
        tree_sum(smem, t, 64)
        if t == 0:
            out[0] = smem[0]

    x = rand(64, "int32")
    out = cp.zeros(1, dtype=cp.int32)
    k((1,), (64,), (cp.asarray(x), out))
    assert cp.asnumpy(out)[0] == x.sum()
    assert "__device__ void tree_sum(int* smem, unsigned int tid, int n)" in k.cached_code


def test_device_function_cannot_be_launched_and_kernel_not_called():
    @jit.rawkernel()
    def k(out):
        add(out, out, out)

    with pytest.raises(TypeError, match="Calling __global__ function add"):
        k((1,), (1,), (cp.empty(1),))
    with pytest.raises(TypeError, match="device function"):
        clamp((1,), (1,), (1.0, 0.0, 2.0))


def test_device_functions_made_by_a_factory_are_written_once_each():
    # CuPy's "template recursion": g(step) makes a new device function per call; the caller
    # is translated a few times to find its value ranges, each step's function once
    def g(step):
        @jit.rawkernel(device=True)
        def f(x):
            if step < 256:
                tid = jit.threadIdx.x
                if tid % (step * 2) == 0:
                    x[tid] += x[tid + step]
                    jit.syncthreads()
                    g(step * 2)(x)

        return f

    @jit.rawkernel()
    def k(x, y):
        tid = jit.threadIdx.x
        y[tid] = x[tid]
        jit.syncthreads()
        g(1)(y)

    x = rand(256, "int32")
    y = cp.zeros(256, dtype=cp.int32)
    k((1,), (256,), (cp.asarray(x), y))
    assert cp.asnumpy(y)[0] == x.sum()
    assert k.cached_code.count("__device__ void f") == 9  # steps 1, 2, ..., 256


@jit.rawkernel(device=True)
def recurse(n):
    return recurse(n - 1)


def test_recursion_is_refused():
    @jit.rawkernel()
    def k(out):
        out[0] = recurse(3)

    with pytest.raises(ValueError, match="Recursive function is not supported"):
        k((1,), (1,), (cp.empty(1, dtype=cp.int32),))


# ---------------------------------------------------------------------------- shared memory


@jit.rawkernel()
def block_sum(x, out):
    smem = jit.shared_memory(cp.float32, 128)
    tid = jit.threadIdx.x
    i = jit.grid(1)
    smem[tid] = x[i] if i < x.size else numpy.float32(0)
    jit.syncthreads()
    s = jit.blockDim.x // 2
    while s > 0:
        if tid < s:
            smem[tid] += smem[tid + s]
        jit.syncthreads()
        s //= 2
    if tid == 0:
        out[jit.blockIdx.x] = smem[0]


def test_shared_memory_block_reduction():
    x = rand(1000, "float32")
    nb = (1000 + 127) // 128
    out = cp.zeros(nb, dtype=cp.float32)
    block_sum((nb,), (128,), (cp.asarray(x), out))
    want = numpy.pad(x, (0, nb * 128 - 1000)).reshape(nb, 128).sum(axis=1)
    numpy.testing.assert_allclose(cp.asnumpy(out), want, rtol=1e-5)
    assert "__shared__ float smem[128];" in block_sum.cached_code


def test_dynamic_shared_memory():
    @jit.rawkernel()
    def reverse_block(x, out):
        smem = jit.shared_memory(cp.int32, None)
        t = jit.threadIdx.x
        smem[t] = x[t]
        jit.syncthreads()
        out[t] = smem[jit.blockDim.x - 1 - t]

    x = rand(64, "int32")
    out = cp.empty(64, dtype=cp.int32)
    reverse_block((1,), (64,), (cp.asarray(x), out), shared_mem=64 * 4)
    numpy.testing.assert_array_equal(cp.asnumpy(out), x[::-1])


# ---------------------------------------------------------------------------- atomics


@jit.rawkernel()
def atomics(x, acc_i, acc_f, acc_u):
    i = jit.grid(1)
    if i < x.size:
        v = x[i]
        jit.atomic_add(acc_i, 0, v)
        jit.atomic_sub(acc_i, 1, v)
        jit.atomic_max(acc_i, 2, v)
        jit.atomic_min(acc_i, 3, v)
        jit.atomic_and(acc_i, 4, v)
        jit.atomic_or(acc_i, 5, v)
        jit.atomic_xor(acc_i, 6, v)
        jit.atomic_add(acc_f, 0, numpy.float32(v) * 0.5)
        jit.atomic_inc(acc_u, 0, numpy.uint32(1000000))
        jit.atomic_cas(acc_i, 7, 0, v)


def test_atomics():
    x = rand(777, "int32", -1000, 1000)
    acc_i = cp.asarray(numpy.array([0, 0, -(2**31), 2**31 - 1, -1, 0, 0, 0], dtype=numpy.int32))
    acc_f = cp.zeros(1, dtype=cp.float32)
    acc_u = cp.zeros(1, dtype=cp.uint32)
    atomics(*blocks(777), (cp.asarray(x), acc_i, acc_f, acc_u))
    got = cp.asnumpy(acc_i)
    assert got[0] == x.sum() and got[1] == -x.sum()
    assert got[2] == x.max() and got[3] == x.min()
    assert got[4] == numpy.bitwise_and.reduce(x) and got[5] == numpy.bitwise_or.reduce(x)
    assert got[6] == numpy.bitwise_xor.reduce(x)
    assert got[7] in x  # the first thread's compare-and-swap won
    numpy.testing.assert_allclose(cp.asnumpy(acc_f)[0], x.sum() * 0.5, rtol=1e-4)
    assert cp.asnumpy(acc_u)[0] == 777


def test_atomic_add_float16():
    @jit.rawkernel()
    def k(x, acc):
        i = jit.grid(1)
        if i < x.size:
            jit.atomic_add(acc, i % 3, x[i])

    x = numpy.full(96, 0.25, dtype=numpy.float16)
    acc = cp.zeros(3, dtype=cp.float16)
    k(*blocks(96, 32), (cp.asarray(x), acc))
    numpy.testing.assert_array_equal(cp.asnumpy(acc), [8.0, 8.0, 8.0])


def test_atomic_dtype_table():
    @jit.rawkernel()
    def k(a):
        jit.atomic_add(a, 0, 1)

    with pytest.raises(TypeError, match="`atomic_add` does not support int64 input"):
        k((1,), (1,), (cp.zeros(1, dtype=cp.int64),))


# ---------------------------------------------------------------------------- warps, groups


@jit.rawkernel()
def warp_ops(x, out, lanes):
    i = jit.grid(1)
    v = x[i]
    v += jit.shfl_down_sync(0xFFFFFFFF, v, 16)
    v += jit.shfl_down_sync(0xFFFFFFFF, v, 8)
    v += jit.shfl_down_sync(0xFFFFFFFF, v, 4)
    v += jit.shfl_down_sync(0xFFFFFFFF, v, 2)
    v += jit.shfl_down_sync(0xFFFFFFFF, v, 1)
    v = jit.shfl_sync(0xFFFFFFFF, v, 0)
    out[i] = v + jit.shfl_xor_sync(0xFFFFFFFF, 0, 1) * 0
    lanes[i] = jit.laneid() + jit.warpsize * 100
    jit.syncwarp()


def test_warp_shuffles_laneid_warpsize():
    x = rand(64, "int32")
    out = cp.empty(64, dtype=cp.int32)
    lanes = cp.empty(64, dtype=cp.uint32)
    warp_ops((1,), (64,), (cp.asarray(x), out, lanes))
    want = numpy.repeat(x.reshape(2, 32).sum(axis=1), 32)
    numpy.testing.assert_array_equal(cp.asnumpy(out), want)
    numpy.testing.assert_array_equal(cp.asnumpy(lanes), numpy.arange(64) % 32 + 3200)


def test_cooperative_thread_block():
    @jit.rawkernel()
    def k(out):
        b = jit.cg.this_thread_block()
        r = b.thread_rank()
        b.sync()
        out[jit.grid(1)] = r + b.size() * 1000

    out = cp.empty(128, dtype=cp.uint32)
    k((2,), (64,), (out,))
    numpy.testing.assert_array_equal(cp.asnumpy(out), numpy.arange(128) % 64 + 64000)
    assert "cg::this_thread_block()" in k.cached_code


def test_grid_sync_makes_a_cooperative_launch():
    @jit.rawkernel()
    def k(x, out):
        g = jit.cg.this_grid()
        i = g.thread_rank()
        n = g.size()
        x[i] = i * 3
        g.sync()
        out[i] = x[(i + 1) % n] + g.num_blocks() * 0

    x = cp.zeros(256, dtype=cp.uint64)
    out = cp.zeros(256, dtype=cp.uint64)
    k((4,), (64,), (x, out))
    numpy.testing.assert_array_equal(cp.asnumpy(out), (numpy.arange(1, 257) % 256) * 3)
    assert "launched cooperatively" in k.explain(x, out)


# ---------------------------------------------------------------------------- errors


def _here(fn):
    import inspect

    return inspect.getsourcelines(fn)[1]


def test_unsupported_construct_names_file_and_line():
    @jit.rawkernel()
    def k(out):
        i = jit.grid(1)
        try:
            out[i] = 1
        except Exception:  # noqa: BLE001, S110  (the construct the JIT refuses)
            pass

    with pytest.raises(NotImplementedError) as e:
        k((1,), (1,), (cp.empty(1),))
    msg = str(e.value)
    assert "`try` (throw/catch) is not allowed" in msg
    assert f'test_jit.py", line {_here(k) + 3}, in k' in msg
    assert "> " in msg and "try:" in msg


def test_source_read_past_a_dedented_string():
    @jit.rawkernel()
    def k(out):
        note = """a string with a line
at column 0: the kernel's source is read whole all the same"""
        # a comment
        out[0] = 7 if note else 0

    out = cp.zeros(1, dtype=cp.int32)
    k((1,), (1,), (out,))
    assert cp.asnumpy(out)[0] == 7

    @jit.rawkernel()
    def bad(out):
        note = """a string with a line
at column 0"""
        out[0] = undefined_name if note else 0  # noqa: F821

    with pytest.raises(NameError, match="Unbound name: undefined_name") as e:
        bad((1,), (1,), (out,))
    assert f'test_jit.py", line {_here(bad) + 4}, in bad' in str(e.value)


def test_unbound_name_and_bad_call():
    @jit.rawkernel()
    def k(out):
        out[0] = undefined_name  # noqa: F821

    with pytest.raises(NameError, match="Unbound name: undefined_name") as e:
        k((1,), (1,), (cp.empty(1),))
    assert f"line {_here(k) + 2}" in str(e.value)

    @jit.rawkernel()
    def k2(out):
        out[0] = print(out)

    with pytest.raises(TypeError, match="Invalid function call 'print'"):
        k2((1,), (1,), (cp.empty(1),))


@jit.rawkernel(device=True)
def bad_device(v):
    return v.nonexistent


def test_error_in_a_device_function_names_both_places():
    @jit.rawkernel()
    def k(out):
        out[0] = bad_device(out[0])

    with pytest.raises(AttributeError) as e:
        k((1,), (1,), (cp.empty(1),))
    msg = str(e.value)
    assert "Unknown attribute: nonexistent" in msg
    assert f"line {_here(bad_device) + 2}, in bad_device" in msg
    assert f"line {_here(k) + 2}, in k" in msg


def test_kernel_cannot_return_a_value():
    @jit.rawkernel()
    def k(out):
        return 1

    with pytest.raises(TypeError, match="cannot return a value"):
        k((1,), (1,), (cp.empty(1),))


def test_argument_count_and_type_errors():
    with pytest.raises(TypeError, match=r"add\(\) takes 3 positional arguments but 2 were given"):
        add((1,), (1,), (cp.empty(1), cp.empty(1)))
    with pytest.raises(TypeError, match="is not supported for RawKernel"):
        add((1,), (1,), (cp.empty(1), cp.empty(1), [1, 2]))


def test_complex_condition_is_refused():
    with pytest.raises(TypeError, match="Complex type value cannot be boolean condition"):

        @jit.rawkernel()
        def k(x):
            if x[0]:
                x[0] = 0

        k((1,), (1,), (cp.zeros(1, dtype=cp.complex64),))


def test_cached_code_before_any_call_warns():
    @jit.rawkernel()
    def k(out):
        out[0] = 1

    with pytest.warns(UserWarning, match="No codes are cached"):
        assert k.cached_codes == {}


# ---------------------------------------------------------------------------- speed


def test_a_repeated_signature_launches_natively_without_translating_again(monkeypatch):
    # The launch's cost is measured by python/benches/host_overhead.py (the jit.rawkernel
    # row, beside RawKernel's and CuPy's); here: a repeated signature takes the native
    # launcher of the first launch, never the translation, the compile or the Python plan.
    @jit.rawkernel()
    def axpy(x, y, a, out):
        i = jit.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    n = 300
    hx, hy = rand(n, "float32"), rand(n, "float32")
    x, y = cp.asarray(hx), cp.asarray(hy)
    out = cp.empty(n, dtype=cp.float32)
    axpy((2,), (256,), (x, y, cp.float32(2.0), out))
    assert axpy._fast is not None
    assert len(axpy._cache) == 1

    def refused(*args):
        raise AssertionError("a repeated signature translated or compiled again")

    monkeypatch.setattr(axpy, "_compile", refused)
    monkeypatch.setattr(axpy, "_translate", refused)
    monkeypatch.setattr(axpy, "_signature", refused)
    # other arrays of the same dtypes and another scalar value: the same signature
    x2, y2 = cp.asarray(hy), cp.asarray(hx)
    out2 = cp.empty(n, dtype=cp.float32)
    axpy((2,), (256,), (x2, y2, cp.float32(-0.5), out2))
    axpy[2, 256](x, y, cp.float32(3.0), out)
    numpy.testing.assert_allclose(out2.get(), numpy.float32(-0.5) * hy + hx, rtol=1e-6)
    numpy.testing.assert_allclose(out.get(), numpy.float32(3.0) * hx + hy, rtol=1e-6)

    # another dtype is another signature: it must not take the first one's launcher
    monkeypatch.undo()
    hx64 = rand(n, "float64")
    out64 = cp.empty(n, dtype=cp.float64)
    axpy((2,), (256,), (cp.asarray(hx64), cp.asarray(hx64), 1.5, out64))
    assert len(axpy._cache) == 2
    numpy.testing.assert_allclose(out64.get(), 1.5 * hx64 + hx64, rtol=1e-12)


# ------------------------------------------------------------ tuple variables in blocks


@jit.rawkernel()
def shape_in_block(arr, flag):
    x = jit.grid(1)
    if x == 0:
        shapes = arr.shape  # a tuple variable first assigned inside a block
        strides = arr.strides
        arr[0, 0, 0] = shapes[0]
        arr[0, 0, 1] = shapes[1]
        arr[0, 0, 2] = shapes[2]
        arr[0, 0, 3] = strides[0]
        arr[0, 0, 4] = strides[1]
        arr[0, 0, 5] = strides[2]
    if x == 1:
        if flag > 0:
            pair = (flag, flag * 2)
        else:
            pair = (flag * 3, flag * 4)  # the same variables, assigned in another block
        arr[1, 0, 0] = pair[0]
        arr[1, 0, 1] = pair[1]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("flag", [5, -2])
def test_tuple_variables_assigned_in_blocks(order, flag):
    a = cp.zeros((3, 4, 6), dtype=cp.float64, order=order)
    shape_in_block[1, 2](a, flag)
    h = a.get()
    numpy.testing.assert_array_equal(h[0, 0, 0:3], a.shape)
    numpy.testing.assert_array_equal(h[0, 0, 3:6], a.strides)
    want = (flag, flag * 2) if flag > 0 else (flag * 3, flag * 4)
    numpy.testing.assert_array_equal(h[1, 0, 0:2], want)


def test_tuple_variable_of_another_type_in_a_block_is_an_error():
    @jit.rawkernel()
    def f(x, flag):
        if flag > 0:
            t = (flag, flag)
        else:
            t = (flag * 1.5, flag * 2.5)
        x[0] = t[0]

    x = cp.zeros(1, dtype=cp.float64)
    with pytest.raises(TypeError, match="Type mismatch of variable: `t`"):
        f[1, 1](x, 1)


# ------------------------------------------------------------ cooperative groups' copies


@pytest.mark.parametrize("aligned", [True, False])
@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_cg_memcpy_async_then_wait(aligned, dtype):
    item = numpy.dtype(dtype).itemsize

    @jit.rawkernel()
    def copy_twice(x, y, out):
        smem = jit.shared_memory(x.dtype, 128, alignment=16)
        g = jit.cg.this_thread_block()
        tid = g.thread_rank()
        base = jit.blockIdx.x * 128
        if aligned:
            jit.cg.memcpy_async(g, smem, 0, x, base, 64 * item, aligned_size=16)
            jit.cg.memcpy_async(g, smem, 64, y, base + 64, 64 * item, aligned_size=16)
        else:
            jit.cg.memcpy_async(g, smem, 0, x, base, 64 * item)
            jit.cg.memcpy_async(g, smem, 64, y, base + 64, 64 * item)
        jit.cg.wait_prior(g, 1)  # the first copy has landed
        if tid < 64:
            out[base + tid] = smem[tid]
        jit.cg.wait(g)
        if 64 <= tid and tid < 128:  # noqa: PLR1716  (CuPy's JIT has no chained compare)
            out[base + tid] = smem[tid] * 2

    h1, h2 = rand(3 * 128, dtype), rand(3 * 128, dtype)
    out = cp.zeros(3 * 128, dtype=dtype)
    copy_twice((3,), (128,), (cp.asarray(h1), cp.asarray(h2), out))
    want = h1.copy()
    for b in range(3):
        want[b * 128 + 64 : (b + 1) * 128] = h2[b * 128 + 64 : (b + 1) * 128] * 2
    numpy.testing.assert_array_equal(cp.asnumpy(out), want)
    code = copy_twice.explain(cp.asarray(h1), cp.asarray(h2), out)
    assert ("_jit_memcpy_async_aligned<16>" in code) == aligned
    assert "cooperative_groups::memcpy_async" in code  # the GPU's own copy


@jit.rawkernel()
def copy_misaligned(x):
    smem = jit.shared_memory(cp.int32, 64)
    g = jit.cg.this_thread_block()
    jit.cg.memcpy_async(g, smem, 0, x, 0, 64, aligned_size=3)


@jit.rawkernel()
def copy_too_few(x):
    smem = jit.shared_memory(cp.int32, 64)
    g = jit.cg.this_thread_block()
    jit.cg.memcpy_async(g, smem, 0, x, 0)


@jit.rawkernel()
def copy_without_group(x):
    smem = jit.shared_memory(cp.int32, 64)
    jit.cg.memcpy_async(smem, smem, 0, x, 0, 64)


@jit.rawkernel()
def wait_for_a_variable(x):
    g = jit.cg.this_thread_block()
    jit.cg.wait_prior(g, x[0])


def test_cg_memcpy_async_errors():
    x = cp.zeros(64, dtype=cp.int32)
    for k, cls, text in [
        (copy_misaligned, ValueError, "aligned_size must be a power of two, got 3"),
        (copy_too_few, TypeError, r"memcpy_async\(\) takes \(group, dst"),
        (copy_without_group, TypeError, "the first argument must be a group"),
        (wait_for_a_variable, TypeError, "the count must be a non-negative constant int"),
    ]:
        with pytest.raises(cls, match=text):
            k[1, 64](x)
