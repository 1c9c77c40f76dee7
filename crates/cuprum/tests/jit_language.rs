//! The Rust-kernel language beyond arithmetic and loops: `match` on integers and bool,
//! tuples, module constants and `const fn`, closures, `for` over slice iterators. Each
//! construct runs in a kernel (on the GPU, or the host device) over random inputs and is
//! compared with the same Rust run on the host (device functions are ordinary Rust
//! functions) or with a plain host model; odd lengths (empty, one element) included. The
//! C++ they translate to is in tests/jit_snapshots.rs, the translator's own tests in
//! cuprum-macros.

#![allow(clippy::match_overlapping_arm, clippy::manual_range_patterns)]

mod common;

use common::Rng;
use cuprum::gpu::*;
use cuprum::kernel::JitConfig;
use cuprum::{Array, Element};

fn dev<T: Element>(v: &[T]) -> Array {
    Array::from_slice(v, &[v.len()]).unwrap()
}

fn zeros<T: Scalar>(n: usize) -> Array {
    Array::zeros(&[n], T::DTYPE).unwrap()
}

/// The lengths every kernel here runs over: empty, one element, a partial block, several.
const LENS: [usize; 4] = [0, 1, 37, 1000];

// ---- match -------------------------------------------------------------------------------------

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

fn match_statements_u8_model(v: u8) -> u32 {
    let r = match v {
        0 => 1,
        97..=122 => v as u32 - 97 + 10,
        200..=255 => return 7,
        16 | 32 | 64 => v as u32 * 1000,
        _ => 7,
    };
    r + 1
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

fn interesting_i32(rng: &mut Rng, n: usize) -> Vec<i32> {
    let specials = [
        0,
        1,
        2,
        3,
        -1,
        -7,
        i32::MIN,
        i32::MAX,
        -100,
        -50,
        -49,
        -101,
        4,
        9,
        10,
        99,
        100,
        999,
        1000,
        -1000,
        -1001,
    ];
    (0..n)
        .map(|k| match k % 3 {
            0 => specials[rng.usize(0, specials.len())],
            1 => rng.usize(0, 2200) as i32 - 1100,
            _ => rng.next_u64() as i32,
        })
        .collect()
}

#[test]
fn match_on_i32_every_pattern_kind() {
    require_gpu!();
    let mut rng = Rng::new(29);
    for n in LENS {
        let x = interesting_i32(&mut rng, n);
        let mut out = zeros::<i32>(n);
        classify_i32_kernel::launch(JitConfig::for_len(n.max(1), 128), &dev(&x), &mut out).unwrap();
        let got = out.to_vec::<i32>().unwrap();
        let want: Vec<i32> = x.iter().map(|&v| classify_i32(v)).collect();
        assert_eq!(got, want, "n = {n}");
    }
    // The host function itself against a hand-written model of the arms.
    assert_eq!(classify_i32(2), 202);
    assert_eq!(classify_i32(i32::MIN), 400);
    assert_eq!(classify_i32(-7), 401);
    assert_eq!(classify_i32(33), 711);
    assert_eq!(classify_i32(34), -1);
    assert_eq!(classify_i32(-5000), 795);
}

#[test]
fn match_statements_every_u8() {
    require_gpu!();
    let mut rng = Rng::new(3);
    let mut x: Vec<u8> = (0..=255u8).collect();
    x.extend((0..300).map(|_| rng.next_u64() as u8));
    for n in [0, 1, x.len()] {
        let mut out = zeros::<u32>(n);
        match_statements_u8::launch(JitConfig::for_len(n.max(1), 64), &dev(&x[..n]), &mut out)
            .unwrap();
        let got = out.to_vec::<u32>().unwrap();
        let want: Vec<u32> = x[..n]
            .iter()
            .map(|&v| match_statements_u8_model(v))
            .collect();
        assert_eq!(got, want, "n = {n}");
    }
}

#[test]
fn nested_match_on_u64_and_bool() {
    require_gpu!();
    let mut rng = Rng::new(11);
    for n in LENS {
        let a: Vec<u64> = (0..n)
            .map(|k| {
                if k % 2 == 0 {
                    rng.next_u64()
                } else {
                    rng.next_u64() % 64
                }
            })
            .collect();
        let f: Vec<bool> = (0..n).map(|_| rng.next_u64() & 1 == 1).collect();
        let mut out = zeros::<u64>(n);
        nested_u64_kernel::launch(
            JitConfig::for_len(n.max(1), 128),
            &dev(&a),
            &dev(&f),
            &mut out,
        )
        .unwrap();
        let got = out.to_vec::<u64>().unwrap();
        let want: Vec<u64> = a.iter().zip(&f).map(|(&a, &f)| nested_u64(a, f)).collect();
        assert_eq!(got, want, "n = {n}");
    }
}

#[test]
fn activation_selected_by_match() {
    require_gpu!();
    let mut rng = Rng::new(5);
    for n in LENS {
        let x: Vec<f32> = (0..n).map(|_| rng.f64(-8.0, 8.0) as f32).collect();
        let kinds: Vec<i32> = (0..n).map(|_| rng.usize(0, 6) as i32 - 1).collect();
        let mut out = zeros::<f32>(n);
        activation_kernel::launch(
            JitConfig::for_len(n.max(1), 256),
            &dev(&x),
            &dev(&kinds),
            &mut out,
        )
        .unwrap();
        let got = out.to_vec::<f32>().unwrap();
        for i in 0..n {
            let h = activation(kinds[i], x[i]);
            assert!(
                (got[i] - h).abs() <= 1e-6 * (1.0 + h.abs()),
                "{} {}: {} vs {h}",
                kinds[i],
                x[i],
                got[i]
            );
        }
    }
}
