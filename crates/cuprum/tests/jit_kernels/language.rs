//! Kernels and device functions of tests/jit_language.rs (the language beyond arithmetic
//! and loops), shared with tests/jit_nvrtc.rs (compiled with NVRTC).
#![allow(dead_code, clippy::all)]

use cuprum::gpu::*;

/// Every integer pattern: literals, negative literals, or-patterns, ranges of all
/// shapes, a named constant, bindings with `@` and guards; `match` as a value.
#[cuprum::device]
pub fn classify_i32(v: i32) -> i32 {
    match v {
        0 => 100,
        1 | 2 | 3 => 200 + v,
        -1 => 300,
        i32::MIN => 400,
        i32::MAX | -7 => 401,
        -100..=-50 => 500,
        4..10 => 600,
        n @ 10..=99 if n % 3 == 0 => 700 + n / 3,
        n if n < -1000 => {
            let k = n / 1000;
            800 + k
        }
        1000.. => 900,
        _ => -1,
    }
}

#[cuprum::kernel]
pub fn classify_i32_kernel(x: &[i32], out: &mut [i32]) {
    for i in grid_stride(x.len()) {
        out[i] = classify_i32(x[i]);
    }
}

/// `match` as a statement with a side effect per arm, unit arms, and an early `continue`.
#[cuprum::kernel]
pub fn match_statements_u8(x: &[u8], out: &mut [u32]) {
    for i in grid_stride(x.len()) {
        let v = x[i];
        out[i] = 7;
        match v {
            0 => out[i] = 1,
            b'a'..=b'z' => {
                out[i] = v as u32 - b'a' as u32 + 10;
            }
            200..=255 => continue,
            w @ (16 | 32 | 64) => out[i] = w as u32 * 1000,
            _ => {}
        }
        out[i] += 1;
    }
}

/// `match` on a 64-bit unsigned value and on bool, nested, with a scrutinee computed once.
#[cuprum::device]
pub fn nested_u64(a: u64, flag: bool) -> u64 {
    let r = match a.wrapping_mul(3) % 10 {
        0 => match flag {
            true => 1,
            false => 2,
        },
        k @ 1..=4 => k * 10,
        u64::MAX => 5,
        _ => match a {
            0x1_0000_0000.. => 99,
            _ => a % 7,
        },
    };
    r
}

#[cuprum::kernel]
pub fn nested_u64_kernel(a: &[u64], f: &[bool], out: &mut [u64]) {
    for i in grid_stride(a.len()) {
        out[i] = nested_u64(a[i], f[i]);
    }
}

/// The seed's activation selected by `match` on an integer (cf. `apply_activation`).
#[cuprum::device]
pub fn activation(kind: i32, x: f32) -> f32 {
    match kind {
        0 => x.max(0.0),
        1 => 1.0 / (1.0 + (-x).exp()),
        2 | 3 => {
            if x > 0.0 {
                x
            } else {
                0.01 * x
            }
        }
        _ => x,
    }
}

#[cuprum::kernel]
pub fn activation_kernel(x: &[f32], kinds: &[i32], out: &mut [f32]) {
    for i in grid_stride(x.len()) {
        out[i] = activation(kinds[i], x[i]);
    }
}

/// A tuple-returning device function: quotient and remainder, Euclid's gcd step count.
#[cuprum::device]
pub fn divmod_steps(a: u32, b: u32) -> (u32, u32, u8) {
    if b == 0 {
        return (0, a, 0);
    }
    let (q, r) = (a / b, a % b);
    let mut pair = (b, r);
    let mut steps = 0u8;
    while pair.1 != 0 {
        pair = (pair.1, pair.0 % pair.1);
        steps = steps.wrapping_add(1);
    }
    let _ = pair.0;
    (q, r, steps)
}

/// Min and max with their positions, nested tuples, a field assigned.
#[cuprum::device]
pub fn min_max(a: f32, b: f32, c: f32) -> ((f32, i32), (f32, i32)) {
    let mut lo = (a, 0);
    let mut hi = (a, 0);
    if b < lo.0 {
        lo = (b, 1);
    }
    if b > hi.0 {
        hi.0 = b;
        hi.1 = 1;
    }
    if c < lo.0 {
        lo = (c, 2);
    }
    if c > hi.0 {
        hi = (c, 2);
    }
    (lo, hi)
}

#[cuprum::kernel]
pub fn tuple_kernel(a: &[u32], b: &[u32], q: &mut [u32], r: &mut [u32], steps: &mut [u8]) {
    for i in grid_stride(a.len()) {
        let (qq, rr, s) = divmod_steps(a[i], b[i]);
        q[i] = qq;
        r[i] = rr;
        steps[i] = divmod_steps(a[i], b[i]).2;
        let _ = s;
    }
}

#[cuprum::kernel]
pub fn min_max_kernel(
    x: &[f32],
    lo: &mut [f32],
    lo_at: &mut [i32],
    hi: &mut [f32],
    hi_at: &mut [i32],
) {
    for i in grid_stride(lo.len()) {
        let ((l, la), h) = min_max(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
        lo[i] = l;
        lo_at[i] = la;
        hi[i] = h.0;
        hi_at[i] = h.1;
    }
}
// ---- module-level constants and const fn -------------------------------------------------------

/// A scale factor, visible to kernels through `#[cuprum::device]`.
#[cuprum::device]
pub const SCALE: f32 = 2.5;

/// A constant computed from an expression.
#[cuprum::device]
pub const LIMIT: i32 = 10 * 4 + 2;

/// A `const fn` that is also a device function.
#[cuprum::device]
pub const fn cube(x: i32) -> i32 {
    x * x * x
}

/// A constant from a `const fn` call and another constant.
#[cuprum::device]
pub const BIG: i32 = cube(3) + LIMIT;

pub mod tables {
    /// A constant in another module, named by its path.
    #[cuprum::device]
    pub const OFFSET: u32 = 7;
}

#[cuprum::kernel]
pub fn consts_kernel(x: &[i32], out: &mut [i32], y: &mut [f32]) {
    for i in grid_stride(x.len()) {
        let v = x[i];
        out[i] = match v {
            LIMIT => 1,
            BIG => 2,
            _ => cube(v % 5) + tables::OFFSET as i32 + BIG,
        };
        y[i] = v as f32 * SCALE;
    }
}

// ---- closures ----------------------------------------------------------------------------------

/// Closures: one reading a parameter, a `move` one capturing a local by value (the local
/// changes afterwards), an `FnMut` one accumulating into a local, one with an early
/// `return`, and one shadowed name resolved where the closure is written.
#[cuprum::kernel]
pub fn closures_kernel(x: &[f32], scale: f32, out: &mut [f32], counts: &mut [u32]) {
    let scaled = |v: f32| v * scale;
    let mut offset = 0.5f32;
    let shift = move |v: f32| v + offset;
    offset = 100.0;
    let clamp = |v: f32, hi: f32| -> f32 {
        if v > hi {
            return hi;
        }
        v
    };
    for i in grid_stride(x.len()) {
        let mut hits = 0u32;
        let mut hit = |c: bool| {
            if c {
                hits += 1;
            }
        };
        hit(x[i] > 0.0);
        hit(x[i] > 1.0);
        hit(x[i] > offset);
        let scale = 3.0f32;
        out[i] = clamp(shift(scaled(x[i])), 4.0) + scale;
        counts[i] = hits;
    }
}

/// The host model of `closures_kernel` for one element.
pub fn closures_model(x: f32, scale: f32) -> (f32, u32) {
    let v = (x * scale + 0.5).min(4.0);
    let v = if x * scale + 0.5 > 4.0 { 4.0 } else { v };
    let hits = (x > 0.0) as u32 + (x > 1.0) as u32 + (x > 100.0) as u32;
    (v + 3.0, hits)
}

// ---- element loops -----------------------------------------------------------------------------

/// Per thread: a weighted sum over a whole (small) slice with `.iter().enumerate()` and a
/// maximum over a local array with `for &v in a.iter()` (`x` holds one row of `w.len()`
/// values per thread).
#[cuprum::kernel]
pub fn elem_loops(w: &[f32], x: &[f32], dots: &mut [f32], maxes: &mut [f32]) {
    let i = global_index();
    if i >= dots.len() {
        return;
    }
    let mut dot = 0.0f32;
    for (k, wk) in w.iter().enumerate() {
        dot += *wk * x[i * w.len() + k];
    }
    let a = [x[i * w.len()], dot, -dot, 1.0f32];
    let mut m = f32::NEG_INFINITY;
    for &v in a.iter() {
        m = m.max(v);
    }
    dots[i] = dot;
    maxes[i] = m;
}

/// `iter_mut` over a whole slice (one thread), with `continue` and `break`.
#[cuprum::kernel]
pub fn elem_loops_mut(x: &mut [i32], stop: i32) {
    if global_index() != 0 {
        return;
    }
    for v in x.iter_mut() {
        if *v == stop {
            break;
        }
        if *v % 2 == 0 {
            continue;
        }
        *v = *v * 3 + 1;
    }
}

/// The constructs together: a block sum in shared memory read back with an element loop,
/// a closure indexing a slice parameter and used in `match` arms, a tuple accumulator.
#[cuprum::kernel]
pub fn together(x: &[i32], out: &mut [i64]) {
    let mut tile = shared_array::<i32, 64>();
    let t = thread_idx().x as usize;
    let at = |k: usize| -> i32 { if k < x.len() { x[k] } else { 0 } };
    tile[t] = at(block_idx().x as usize * 64 + t);
    sync_threads();
    if t == 0 {
        let mut acc = (0i64, 0i64);
        for (k, &v) in tile.iter().enumerate() {
            match v % 3 {
                0 => acc.0 += v as i64,
                r @ (1 | -1) => acc.1 += (r * at(k)) as i64,
                _ => {
                    let (a, b) = acc;
                    acc = (b, a);
                }
            }
        }
        out[block_idx().x as usize] = acc.0 * 1000 + acc.1;
    }
}

/// The host model of `together` for one block of 64 values.
pub fn together_model(tile: &[i32; 64], x: &[i32]) -> i64 {
    let at = |k: usize| -> i32 { x.get(k).copied().unwrap_or(0) };
    let mut acc = (0i64, 0i64);
    for (k, &v) in tile.iter().enumerate() {
        match v % 3 {
            0 => acc.0 += v as i64,
            r @ (1 | -1) => acc.1 += (r * at(k)) as i64,
            _ => acc = (acc.1, acc.0),
        }
    }
    acc.0 * 1000 + acc.1
}
