//! Kernels and device functions written in Rust for the tests: every construct of the
//! subset, every numeric type, faults. Shared by tests/jit.rs (run on the GPU, compared
//! with the same Rust on the host) and tests/jit_nvrtc.rs (compiled with NVRTC).
#![allow(dead_code, clippy::all)]

use cuprum::gpu::*;

// ---- device functions: host vs GPU ------------------------------------------------------------

/// The seed's prime-factor sum as a device function (host tests call it directly).
#[cuprum::device]
pub fn sum_prime_factors(n: i64) -> i64 {
    let mut num = n;
    let mut total: i64 = 0;
    while num % 2 == 0 {
        num /= 2;
        total += 2;
    }
    let mut p: i64 = 3;
    while p * p <= num {
        while num % p == 0 {
            num /= p;
            total += p;
        }
        p += 2;
    }
    if num > 1 {
        total += num;
    }
    total
}

#[cuprum::kernel]
pub fn prime_tidy(out: &mut [i64], n: i64) {
    for i in grid_stride(out.len()) {
        out[i] = sum_prime_factors(i as i64 + n);
    }
}

/// Integer arithmetic of Rust's release build, for any integer type: wrapping operators
/// through the methods (so the host twin does not panic in debug builds), truncating `/`
/// and `%`, shifts, bit operations, comparisons, integer methods.
#[cuprum::device]
pub fn int_mix<T: Int>(a: T, b: T) -> T {
    let s = a.wrapping_add(b);
    let d = a.wrapping_sub(b);
    let p = a.wrapping_mul(b);
    let q = if b != T::zero() { a / b } else { T::zero() };
    let r = if b != T::zero() { a % b } else { T::one() };
    let x = (a & b) | (a ^ d) ^ !p;
    let sh = (a << 3u32) ^ (b >> 2u32);
    let mut acc = s ^ d ^ q ^ r ^ x ^ sh;
    if a < b {
        acc = acc ^ T::one();
    }
    if a >= b && b > T::zero() {
        acc = acc.wrapping_add(a.min(b));
    }
    acc.wrapping_add(T::from_i32(
        a.count_ones() as i32 + b.leading_zeros() as i32,
    ))
}

#[cuprum::kernel]
pub fn int_mix_kernel<T: Int>(a: &[T], b: &[T], out: &mut [T]) {
    for i in grid_stride(out.len()) {
        out[i] = int_mix(a[i], b[i]);
    }
}

/// Plain `+ - *`, unary minus and shifts by any amount: wrapping on the GPU (compared with
/// the host's wrapping_* reference).
#[cuprum::kernel]
pub fn wrapping_ops_i32(a: &[i32], b: &[i32], out: &mut [i32]) {
    let i = global_index();
    if i < a.len() {
        let j = i * 5;
        out[j] = a[i] + b[i];
        out[j + 1] = a[i] - b[i];
        out[j + 2] = a[i] * b[i];
        out[j + 3] = -a[i];
        out[j + 4] = (a[i] << (b[i] & 31)) ^ (a[i] >> 7);
    }
}

#[cuprum::kernel]
pub fn wrapping_ops_u8(a: &[u8], b: &[u8], out: &mut [u8]) {
    let i = global_index();
    if i < a.len() {
        let j = i * 4;
        out[j] = a[i] + b[i];
        out[j + 1] = a[i] - b[i];
        out[j + 2] = a[i] * b[i];
        out[j + 3] = !a[i] ^ (b[i] << 3);
    }
}

#[cuprum::kernel]
pub fn wrapping_ops_i64(a: &[i64], b: &[i64], out: &mut [i64]) {
    let i = global_index();
    if i < a.len() {
        let j = i * 3;
        out[j] = a[i] + b[i];
        out[j + 1] = a[i] * b[i];
        out[j + 2] = -a[i];
    }
}

/// Truncating division and remainder (Rust's, not Python's floor division).
#[cuprum::kernel]
pub fn div_rem<T: Int>(a: &[T], b: &[T], q: &mut [T], r: &mut [T]) {
    for i in grid_stride(a.len()) {
        q[i] = a[i] / b[i];
        r[i] = a[i] % b[i];
    }
}

/// Float math methods (the functions of `ops` and more).
#[cuprum::device]
pub fn float_mix<T: Float>(x: T, y: T) -> T {
    let a = x.abs().sqrt() + y.exp().min(T::from_f32(50.0)).ln_1p();
    let b = x.sin() * y.cos() + x.tanh() - y.atan2(x);
    let c = x.mul_add(y, T::one()).max(T::from_f32(-3.0)).floor() + y.powi(3) / T::from_f32(7.0);
    let d = (x * x + y * y)
        .sqrt()
        .hypot(x)
        .recip()
        .clamp(T::zero(), T::one());
    a + b + c + d + x.round() + y.trunc() + (x % y)
}

#[cuprum::kernel]
pub fn float_mix_kernel<T: Float>(x: &[T], y: &[T], out: &mut [T]) {
    for i in grid_stride(out.len()) {
        out[i] = float_mix(x[i], y[i]);
    }
}

/// Concrete f32 methods and literals that take the float type of their context.
#[cuprum::device]
pub fn f32_methods(x: f32) -> f32 {
    let h = 0.5 * x;
    let e = (-h).exp2() + x.cbrt() + x.abs().log2() + x.abs().log10() + (x / 4.0).exp_m1();
    let t = x.to_radians().tan() + (x * 0.1).asinh() + (x * 0.01).atanh() + x.signum();
    e + t + x.ceil() - x.fract() + x.copysign(-1.0) + x.powf(2.0).sqrt()
}

#[cuprum::kernel]
pub fn f32_methods_kernel(x: &[f32], out: &mut [f32]) {
    for i in grid_stride(x.len()) {
        out[i] = f32_methods(x[i]);
    }
}

/// Rust's `as` between every pair the tests check: saturating float → int, NaN → 0.
#[cuprum::kernel]
pub fn casts(
    x: &[f64],
    i32s: &mut [i32],
    u8s: &mut [u8],
    i64s: &mut [i64],
    u64s: &mut [u64],
    f32s: &mut [f32],
) {
    for i in grid_stride(x.len()) {
        let v = x[i];
        i32s[i] = v as i32;
        u8s[i] = v as u8;
        i64s[i] = v as i64;
        u64s[i] = v as u64;
        f32s[i] = v as f32;
    }
}

#[cuprum::kernel]
pub fn casts_f32(x: &[f32], i8s: &mut [i8], u32s: &mut [u32], i16s: &mut [i16]) {
    for i in grid_stride(x.len()) {
        let v = x[i];
        i8s[i] = v as i8;
        u32s[i] = v as u32;
        i16s[i] = v as i16;
    }
}

#[cuprum::kernel]
pub fn int_casts(
    x: &[i64],
    out_u8: &mut [u8],
    out_i16: &mut [i16],
    out_u32: &mut [u32],
    out_f32: &mut [f32],
) {
    for i in grid_stride(x.len()) {
        out_u8[i] = x[i] as u8;
        out_i16[i] = x[i] as i16;
        out_u32[i] = x[i] as u32;
        out_f32[i] = x[i] as f32;
    }
}

/// `y = a·x + b` for every numeric type (generic kernel, one instantiation per type).
#[cuprum::kernel]
pub fn affine<T: Num>(x: &[T], y: &mut [T], a: T, b: T) {
    for i in grid_stride(y.len()) {
        y[i] = a * x[i] + b;
    }
}

/// Half-precision through conversions.
#[cuprum::kernel]
pub fn half_scale(x: &[f16], y: &mut [bf16], s: f32) {
    for i in grid_stride(x.len()) {
        let v = x[i].to_f32() * s;
        y[i] = bf16::from_f32(v);
    }
}

// ---- control flow, locals, arrays ------------------------------------------------------------

/// Every loop form, labelled break/continue, `if` as an expression, shadowing, local
/// arrays, a block as a value.
#[cuprum::kernel]
pub fn control_flow(n: &[i32], out: &mut [i64]) {
    let i = global_index();
    if i >= n.len() {
        return;
    }
    let n = n[i];
    let mut acc: i64 = 0;
    for k in 0..n {
        acc += k as i64;
    }
    for k in 0..=n {
        acc += 2 * k as i64;
    }
    for k in (0..n).rev() {
        if k % 3 == 0 {
            continue;
        }
        acc -= k as i64;
    }
    for k in (1..=n).rev() {
        acc += (k % 2) as i64;
    }
    for k in (0..n).step_by(3) {
        acc += 100 * k as i64;
    }
    let mut m = 0;
    loop {
        m += 1;
        if m > n {
            break;
        }
    }
    'outer: for a in 0..n {
        for b in 0..n {
            if a * b > 12 {
                break 'outer;
            }
            if b > a {
                continue 'outer;
            }
            acc += 1;
        }
    }
    let parity = if n % 2 == 0 { 1i64 } else { -1 };
    let blk = {
        let t = n * 2;
        t + 1
    };
    let mut arr = [0i64; 4];
    for k in 0..4usize {
        arr[k] = k as i64 * parity;
    }
    let lit = [1i64, 2, 3];
    let mut w = 0;
    while w < 10 {
        w += 3;
    }
    let acc = acc * 10 + parity + blk as i64 + arr[3] + lit[2] + m as i64 + w as i64;
    out[i] = acc;
}

/// The host reference of `control_flow` (plain Rust).
pub fn control_flow_host(n: i32) -> i64 {
    let mut acc: i64 = 0;
    for k in 0..n {
        acc += k as i64;
    }
    for k in 0..=n {
        acc += 2 * k as i64;
    }
    for k in (0..n).rev() {
        if k % 3 == 0 {
            continue;
        }
        acc -= k as i64;
    }
    for k in (1..=n).rev() {
        acc += (k % 2) as i64;
    }
    for k in (0..n).step_by(3) {
        acc += 100 * k as i64;
    }
    let mut m = 0;
    loop {
        m += 1;
        if m > n {
            break;
        }
    }
    'outer: for a in 0..n {
        for b in 0..n {
            if a * b > 12 {
                break 'outer;
            }
            if b > a {
                continue 'outer;
            }
            acc += 1;
        }
    }
    let parity = if n % 2 == 0 { 1i64 } else { -1 };
    let blk = {
        let t = n * 2;
        t + 1
    };
    let mut arr = [0i64; 4];
    for k in 0..4usize {
        arr[k] = k as i64 * parity;
    }
    let lit = [1i64, 2, 3];
    let mut w = 0;
    while w < 10 {
        w += 3;
    }
    acc * 10 + parity + blk as i64 + arr[3] + lit[2] + m as i64 + w as i64
}

/// Grid-stride loops over 32-bit, 64-bit and signed bounds.
#[cuprum::kernel]
pub fn strides(a: &mut [u32], b: &mut [u32], c: &mut [u32], n32: u32, n64: usize, ni: i64) {
    for i in grid_stride(n32) {
        a[i] += 1;
    }
    for i in grid_stride(n64) {
        b[i] += 2;
    }
    for i in grid_stride(ni) {
        c[i] += 3;
    }
}

// ---- shared memory, atomics, warps, grid sync -------------------------------------------------

/// A block sum through static shared memory sized by a const generic, then a warp finish
/// with shuffles.
#[cuprum::kernel]
pub fn block_sum<const BLOCK: usize>(input: &[f32], partial: &mut [f32]) {
    let mut tile = shared_array::<f32, BLOCK>();
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * BLOCK + tid;
    tile[tid] = if i < input.len() { input[i] } else { 0.0 };
    sync_threads();
    let mut s = BLOCK / 2;
    while s >= 32 {
        if tid < s {
            tile[tid] += tile[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    if tid < 32 {
        let mut v = tile[tid];
        let mut off = 16u32;
        while off > 0 {
            v += shfl_down_sync(FULL_MASK, v, off);
            off /= 2;
        }
        if tid == 0 {
            partial[block_idx().x] = v;
        }
    }
}

/// A histogram with global and shared-memory atomics.
#[cuprum::kernel]
pub fn histogram(values: &[u32], bins: &mut [u32], maxes: &mut [i64]) {
    let mut local = shared_array::<u32, 16>();
    let t = thread_idx().x;
    if t < 16 {
        local[t] = 0;
    }
    sync_threads();
    for i in grid_stride(values.len()) {
        let v = values[i];
        local.atomic_add(v % 16, 1);
        maxes.atomic_max(v % 4, v as i64);
    }
    sync_threads();
    if t < 16 {
        bins.atomic_add(t, local[t]);
    }
}

/// Every atomic on i32/u64/f32/f64.
#[cuprum::kernel]
pub fn atomics_all(ints: &mut [i32], longs: &mut [u64], floats: &mut [f32], doubles: &mut [f64]) {
    let t = global_index() as i32;
    ints.atomic_add(0, 2);
    ints.atomic_sub(1, 3);
    ints.atomic_min(2, -t);
    ints.atomic_max(3, t);
    ints.atomic_or(4, 1 << (t % 31));
    ints.atomic_and(5, !(1 << (t % 31)));
    ints.atomic_xor(6, 1);
    if t == 7 {
        ints.atomic_exch(7, 42);
        ints.atomic_cas(8, 0, 9);
    }
    longs.atomic_add(0, 1);
    longs.atomic_max(1, t as u64);
    floats.atomic_add(0, 0.5);
    floats.atomic_max(1, t as f32);
    floats.atomic_min(2, -(t as f32));
    doubles.atomic_add(0, 0.25);
    doubles.atomic_sub(1, 0.25);
}

/// Warp votes and lane ids.
#[cuprum::kernel]
pub fn warp_votes(
    x: &[i32],
    ballots: &mut [u32],
    all: &mut [i32],
    any: &mut [i32],
    lanes: &mut [u32],
) {
    let i = global_index();
    if i < x.len() {
        let p = x[i] > 0;
        let b = ballot_sync(FULL_MASK, p);
        let a = all_sync(FULL_MASK, p);
        let y = any_sync(FULL_MASK, p);
        ballots[i] = b;
        all[i] = a as i32;
        any[i] = y as i32;
        lanes[i] = lane_id();
        let _ = shfl_xor_sync(FULL_MASK, x[i], 1)
            + shfl_up_sync(FULL_MASK, x[i], 1)
            + shfl_sync(FULL_MASK, x[i], 0);
    }
}

/// Two phases separated by a grid-wide barrier (cooperative launch).
#[cuprum::kernel]
pub fn two_phase(data: &mut [i32], out: &mut [i32]) {
    let i = global_index();
    let n = data.len();
    if i < n {
        data[i] = i as i32;
    }
    grid_sync();
    if i < n {
        out[i] = data[n - 1 - i];
    }
}

/// Dynamic shared memory reversal within a block.
#[cuprum::kernel]
pub fn block_reverse(x: &[f64], y: &mut [f64]) {
    let mut s = dynamic_shared::<f64>();
    let t = thread_idx().x;
    let i = block_idx().x * block_dim().x + t;
    if (i as usize) < x.len() {
        s[t] = x[i];
    }
    sync_threads();
    let r = block_dim().x - 1 - t;
    let j = block_idx().x * block_dim().x + r;
    if (i as usize) < x.len() && (j as usize) < x.len() {
        y[i] = s[r];
    }
}

// ---- faults ---------------------------------------------------------------------------------

/// Writes `out[i + shift]`: with `shift > 0` the last threads index out of bounds.
#[cuprum::kernel]
pub fn shifted_write(out: &mut [i32], shift: i32) {
    let i = global_index() as i32;
    if (i as usize) < out.len() {
        out[i + shift] = i;
    }
}

#[cuprum::device]
pub fn read_at(x: &[f32], i: i64) -> f32 {
    x[i]
}

/// Reads through a device function at `i - 1`: thread 0 reads index -1.
#[cuprum::kernel]
pub fn read_before(x: &[f32], y: &mut [f32]) {
    let i = global_index() as i64;
    if (i as usize) < y.len() {
        y[i] = read_at(x, i - 1);
    }
}

/// Divides by `d`: with `d = 0` a checked build faults.
#[cuprum::kernel]
pub fn divide_by(x: &mut [i32], d: i32) {
    let i = global_index();
    if i < x.len() {
        x[i] = x[i] / d;
    }
}

/// Unchecked access in a hot loop.
#[cuprum::kernel]
pub fn sum_rows_unchecked(m: &[f32], out: &mut [f32], cols: usize) {
    let r = global_index();
    if r < out.len() {
        let mut s = 0.0f32;
        for c in 0..cols {
            s += unsafe { *m.get_unchecked(r * cols + c) };
        }
        unsafe {
            *out.get_unchecked_mut(r) = s;
        }
    }
}

// ---- odds and ends ----------------------------------------------------------------------------

/// Returns an array (a `cj::Arr` in C++).
#[cuprum::device]
pub fn pair(v: &[f32], i: usize) -> [f32; 2] {
    [v[i], v[i + 1]]
}

/// Arrays from device functions, bool and u8 operators, `if` chains as values.
#[cuprum::kernel]
pub fn odds_and_ends(
    v: &[f32],
    out: &mut [f32],
    flags: &mut [bool],
    bytes: &mut [u8],
    a: bool,
    b: bool,
) {
    let i = global_index();
    if i + 1 < v.len() {
        let p: [f32; 2] = pair(v, i);
        out[i] = p[0] * 2.0 + p[1];
    }
    if i == 0 {
        flags[0] = !a & b | a ^ b;
        flags[1] = a && !b || b;
        bytes[0] = 250u8.wrapping_add(10);
        bytes[1] = !bytes[2];
        bytes[3] = bytes[2].rotate_left(3);
        let x = if a {
            1u8
        } else if b {
            2
        } else {
            3
        };
        bytes[4] = x + bytes[2] / 7 % 5;
    }
}

/// Wrong on purpose: block 0 returns before the grid barrier, so the others wait for it
/// (until grid_sync's wait limit makes it a fault).
#[cuprum::kernel]
pub fn early_return_grid_sync(out: &mut [i32]) {
    if block_idx().x == 0 {
        return;
    }
    grid_sync();
    out[global_index()] = 1;
}

/// A recursive device function (its definition refers to itself; C++ gets a prototype).
#[cuprum::device]
pub fn fib(n: u32) -> u64 {
    if n < 2 {
        n as u64
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

#[cuprum::kernel]
pub fn fibs(out: &mut [u64]) {
    for i in grid_stride(out.len()) {
        out[i] = fib(i as u32);
    }
}
