//! The Rust-kernel language beyond arithmetic and loops: `match` on integers and bool,
//! tuples, module constants and `const fn`, closures, `for` over slice iterators. Each
//! construct runs in a kernel (on the GPU, or the host device) over random inputs and is
//! compared with the same Rust run on the host (device functions are ordinary Rust
//! functions) or with a plain host model; odd lengths (empty, one element) included. The
//! C++ they translate to is in tests/jit_snapshots.rs, the translator's own tests in
//! cuprum-macros.

#![allow(
    clippy::match_overlapping_arm,
    clippy::manual_range_patterns,
    clippy::needless_range_loop
)]

mod common;
#[path = "jit_kernels/language.rs"]
mod language;

use common::Rng;
use cuprum::gpu::Scalar;
use cuprum::kernel::JitConfig;
use cuprum::{Array, Element};
use language::*;

fn dev<T: Element>(v: &[T]) -> Array {
    Array::from_slice(v, &[v.len()]).unwrap()
}

fn zeros<T: Scalar>(n: usize) -> Array {
    Array::zeros(&[n], T::DTYPE).unwrap()
}

/// The lengths every kernel here runs over: empty, one element, a partial block, several.
const LENS: [usize; 4] = [0, 1, 37, 1000];

// ---- match -------------------------------------------------------------------------------------

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

// ---- tuples ------------------------------------------------------------------------------------

#[test]
fn tuples_from_device_functions() {
    require_gpu!();
    let mut rng = Rng::new(8);
    for n in LENS {
        let a: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let b: Vec<u32> = (0..n)
            .map(|k| {
                if k % 7 == 0 {
                    0
                } else {
                    (rng.next_u64() >> (rng.usize(0, 60))) as u32
                }
            })
            .collect();
        let (mut q, mut r, mut s) = (zeros::<u32>(n), zeros::<u32>(n), zeros::<u8>(n));
        tuple_kernel::launch(
            JitConfig::for_len(n.max(1), 128),
            &dev(&a),
            &dev(&b),
            &mut q,
            &mut r,
            &mut s,
        )
        .unwrap();
        let (q, r, s) = (
            q.to_vec::<u32>().unwrap(),
            r.to_vec::<u32>().unwrap(),
            s.to_vec::<u8>().unwrap(),
        );
        for i in 0..n {
            assert_eq!(
                (q[i], r[i], s[i]),
                divmod_steps(a[i], b[i]),
                "{} {}",
                a[i],
                b[i]
            );
        }
    }
    assert_eq!(divmod_steps(17, 5), (3, 2, 2));

    for n in LENS {
        let x: Vec<f32> = (0..3 * n)
            .map(|_| rng.f64(-4.0, 4.0).round() as f32)
            .collect();
        let (mut lo, mut la, mut hi, mut ha) = (
            zeros::<f32>(n),
            zeros::<i32>(n),
            zeros::<f32>(n),
            zeros::<i32>(n),
        );
        min_max_kernel::launch(
            JitConfig::for_len(n.max(1), 64),
            &dev(&x),
            &mut lo,
            &mut la,
            &mut hi,
            &mut ha,
        )
        .unwrap();
        let (lo, la, hi, ha) = (
            lo.to_vec::<f32>().unwrap(),
            la.to_vec::<i32>().unwrap(),
            hi.to_vec::<f32>().unwrap(),
            ha.to_vec::<i32>().unwrap(),
        );
        for i in 0..n {
            let want = min_max(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
            assert_eq!(((lo[i], la[i]), (hi[i], ha[i])), want, "{i}");
        }
    }
}

// ---- module-level constants and const fn -------------------------------------------------------

#[test]
fn module_constants_and_const_fn() {
    require_gpu!();
    let mut rng = Rng::new(12);
    for n in LENS {
        let x: Vec<i32> = (0..n)
            .map(|k| match k % 4 {
                0 => LIMIT,
                1 => BIG,
                _ => rng.usize(0, 2000) as i32 - 1000,
            })
            .collect();
        let (mut out, mut y) = (zeros::<i32>(n), zeros::<f32>(n));
        consts_kernel::launch(
            JitConfig::for_len(n.max(1), 128),
            &dev(&x),
            &mut out,
            &mut y,
        )
        .unwrap();
        let (out, y) = (out.to_vec::<i32>().unwrap(), y.to_vec::<f32>().unwrap());
        for i in 0..n {
            let v = x[i];
            let want = if v == 42 {
                1
            } else if v == 69 {
                2
            } else {
                (v % 5).pow(3) + 7 + 69
            };
            assert_eq!(out[i], want, "{v}");
            assert_eq!(y[i], v as f32 * 2.5, "{v}");
        }
    }
    // The constants are Rust's own on the host.
    assert_eq!((LIMIT, BIG, cube(3), tables::OFFSET), (42, 69, 27, 7));
}

// ---- closures ----------------------------------------------------------------------------------

#[test]
fn closures_capture_as_rust_does() {
    require_gpu!();
    let mut rng = Rng::new(21);
    for n in LENS {
        let x: Vec<f32> = (0..n)
            .map(|k| {
                if k % 9 == 0 {
                    150.0
                } else {
                    rng.f64(-3.0, 3.0) as f32
                }
            })
            .collect();
        let (mut out, mut counts) = (zeros::<f32>(n), zeros::<u32>(n));
        closures_kernel::launch(
            JitConfig::for_len(n.max(1), 128),
            &dev(&x),
            1.5,
            &mut out,
            &mut counts,
        )
        .unwrap();
        let (out, counts) = (
            out.to_vec::<f32>().unwrap(),
            counts.to_vec::<u32>().unwrap(),
        );
        for i in 0..n {
            let (v, h) = closures_model(x[i], 1.5);
            assert!(
                (out[i] - v).abs() <= 1e-6 * (1.0 + v.abs()),
                "{}: {} vs {v}",
                x[i],
                out[i]
            );
            assert_eq!(counts[i], h, "{}", x[i]);
        }
    }
}

// ---- element loops -----------------------------------------------------------------------------

#[test]
fn element_loops_over_slices() {
    require_gpu!();
    let mut rng = Rng::new(31);
    for (n, width) in [(0usize, 3usize), (1, 1), (37, 5), (300, 16)] {
        let w: Vec<f32> = (0..width).map(|_| rng.f64(-2.0, 2.0) as f32).collect();
        let x: Vec<f32> = (0..n * width).map(|_| rng.f64(-2.0, 2.0) as f32).collect();
        let (mut dots, mut maxes) = (zeros::<f32>(n), zeros::<f32>(n));
        elem_loops::launch(
            JitConfig::for_len(n.max(1), 64),
            &dev(&w),
            &dev(&x),
            &mut dots,
            &mut maxes,
        )
        .unwrap();
        let (dots, maxes) = (
            dots.to_vec::<f32>().unwrap(),
            maxes.to_vec::<f32>().unwrap(),
        );
        for i in 0..n {
            let dot: f32 = (0..width).map(|k| w[k] * x[i * width + k]).sum();
            let m = [x[i * width], dot, -dot, 1.0]
                .into_iter()
                .fold(f32::NEG_INFINITY, f32::max);
            assert!(
                (dots[i] - dot).abs() <= 1e-5 * (1.0 + dot.abs()),
                "{i}: {} vs {dot}",
                dots[i]
            );
            assert!(
                (maxes[i] - m).abs() <= 1e-5 * (1.0 + m.abs()),
                "{i}: {} vs {m}",
                maxes[i]
            );
        }
    }
    for n in LENS {
        let x: Vec<i32> = (0..n).map(|_| rng.usize(0, 50) as i32).collect();
        let stop = if n > 10 { x[n / 2] } else { -1 };
        let mut d = dev(&x);
        elem_loops_mut::launch((1, 32), &mut d, stop).unwrap();
        let mut want = x.clone();
        for v in want.iter_mut() {
            if *v == stop {
                break;
            }
            if *v % 2 == 0 {
                continue;
            }
            *v = *v * 3 + 1;
        }
        assert_eq!(d.to_vec::<i32>().unwrap(), want, "n = {n}");
    }
}

#[test]
fn constructs_together_in_shared_memory() {
    require_gpu!();
    let mut rng = Rng::new(77);
    for n in [1usize, 64, 200] {
        let x: Vec<i32> = (0..n).map(|_| rng.usize(0, 200) as i32 - 100).collect();
        let blocks = n.div_ceil(64);
        let mut out = zeros::<i64>(blocks);
        together::launch((blocks as u32, 64), &dev(&x), &mut out).unwrap();
        let got = out.to_vec::<i64>().unwrap();
        for b in 0..blocks {
            let mut tile = [0i32; 64];
            for t in 0..64 {
                tile[t] = x.get(b * 64 + t).copied().unwrap_or(0);
            }
            assert_eq!(got[b], together_model(&tile, &x), "block {b} of n = {n}");
        }
    }
}
