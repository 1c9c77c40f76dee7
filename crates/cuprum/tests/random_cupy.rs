//! `random::Generator::cupy_compatible` against CuPy's recorded legacy streams
//! (`fixtures/cupy_random.txt`, written by `scripts/record_cupy_random.py` with CuPy 14.2 on
//! an H200): on a GPU every value bit for bit, in the order CuPy drew them; on the host
//! device (Philox, not cuRAND's XORWOW) the same calls, shapes, dtypes and ranges.

mod common;

use cuprum::random::Generator;
use cuprum::{Array, DType, Device};

/// One recorded draw: the call, its dtype and shape, and the values as bit patterns
/// (float32 widened to float64), whole or as sum/first/last.
struct Draw {
    call: String,
    dtype: DType,
    shape: Vec<usize>,
    values: Recorded,
}

enum Recorded {
    All(Vec<u64>),
    Summary {
        sum: f64,
        first: Vec<u64>,
        last: Vec<u64>,
    },
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s, 16).expect("fixture: a hex value")
}

fn hex_list(s: &str) -> Vec<u64> {
    s.split(',').map(hex).collect()
}

/// The fixture as (seed, draws) sessions.
fn sessions() -> Vec<(u64, Vec<Draw>)> {
    let text = include_str!("fixtures/cupy_random.txt");
    let mut out: Vec<(u64, Vec<Draw>)> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let parts: Vec<&str> = line.split_whitespace().collect();
        if parts[0] == "seed" {
            out.push((parts[1].parse().expect("fixture: a seed"), Vec::new()));
            continue;
        }
        let dtype = match parts[1] {
            "float64" => DType::F64,
            "float32" => DType::F32,
            "int64" => DType::I64,
            d => panic!("fixture: dtype {d}"),
        };
        let shape = if parts[2] == "()" {
            vec![]
        } else {
            parts[2].split('x').map(|d| d.parse().unwrap()).collect()
        };
        let values = if parts[4].starts_with("sum=") {
            let field = |k: &str| {
                parts[4..]
                    .iter()
                    .find_map(|p| p.strip_prefix(k))
                    .expect("fixture: a summary field")
            };
            Recorded::Summary {
                sum: f64::from_bits(hex(field("sum="))),
                first: hex_list(field("first=")),
                last: hex_list(field("last=")),
            }
        } else {
            Recorded::All(parts[4..].iter().map(|v| hex(v)).collect())
        };
        let draws = &mut out.last_mut().expect("fixture: a seed line first").1;
        draws.push(Draw {
            call: parts[0].to_owned(),
            dtype,
            shape,
            values,
        });
    }
    out
}

/// `(low, high)` of `name(low,high)` / `name(high)`.
fn bounds(call: &str) -> (f64, f64) {
    let inner = &call[call.find('(').unwrap() + 1..call.len() - 1];
    let num = |s: &str| -> f64 {
        match s.split_once("**") {
            Some((b, e)) => b.parse::<f64>().unwrap().powf(e.parse().unwrap()),
            None => s.parse().unwrap(),
        }
    };
    match inner.split_once(',') {
        Some((a, b)) => (num(a), num(b)),
        None => (0.0, num(inner)),
    }
}

/// Makes the draw `d` names with `g`.
fn draw(g: &mut Generator, d: &Draw) -> Array {
    let name = d.call.split('(').next().unwrap();
    let r = match name {
        "rand" | "random" => g.random(&d.shape, d.dtype),
        "randn" => g.standard_normal(&d.shape, d.dtype),
        "uniform" => {
            let (lo, hi) = bounds(&d.call);
            g.uniform(lo, hi, &d.shape, d.dtype)
        }
        "normal" => {
            let (loc, scale) = bounds(&d.call);
            g.normal(loc, scale, &d.shape, d.dtype)
        }
        "randint" => {
            let (lo, hi) = bounds(&d.call);
            g.randint(lo as i64, hi as i64, &d.shape, d.dtype)
        }
        other => panic!("fixture: call {other}"),
    };
    r.unwrap_or_else(|e| panic!("{}: {e}", d.call))
}

/// The values as the fixture writes them: float64 bits (float32 widened) or int64 bits.
fn bits_of(a: &Array) -> Vec<u64> {
    match a.dtype() {
        DType::F64 => a
            .to_vec::<f64>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect(),
        DType::F32 => a
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|&v| (v as f64).to_bits())
            .collect(),
        _ => a
            .to_vec::<i64>()
            .unwrap()
            .iter()
            .map(|&v| v as u64)
            .collect(),
    }
}

fn as_f64(dtype: DType, bits: u64) -> f64 {
    match dtype {
        DType::I64 => bits as i64 as f64,
        _ => f64::from_bits(bits),
    }
}

#[test]
fn cupy_legacy_streams_bit_for_bit_on_a_gpu() {
    if !common::gpu() {
        return;
    }
    let on_gpu = !Device::current().unwrap().is_host();
    let mut checked = 0;
    for (seed, draws) in sessions() {
        let mut g = Generator::cupy_compatible(seed).unwrap();
        for d in &draws {
            let a = draw(&mut g, d);
            let what = format!("seed {seed}, draw {} ({:?})", d.call, d.shape);
            assert_eq!(a.shape(), &d.shape[..], "{what}");
            assert_eq!(a.dtype(), d.dtype, "{what}");
            let got = bits_of(&a);
            if d.call.starts_with("randint") {
                let (lo, hi) = bounds(&d.call);
                assert!(
                    got.iter().all(|&v| (lo..hi).contains(&(v as i64 as f64))),
                    "{what}: out of range"
                );
            }
            if !on_gpu {
                continue;
            }
            match &d.values {
                Recorded::All(want) => assert_eq!(&got, want, "{what}"),
                Recorded::Summary { sum, first, last } => {
                    assert_eq!(&got[..first.len()], &first[..], "{what}: first values");
                    assert_eq!(
                        &got[got.len() - last.len()..],
                        &last[..],
                        "{what}: last values"
                    );
                    let total: f64 = got.iter().map(|&b| as_f64(d.dtype, b)).sum();
                    assert!(
                        (total - sum).abs() <= 1e-9 * sum.abs().max(1.0),
                        "{what}: sum {total} vs CuPy's {sum}"
                    );
                }
            }
            checked += 1;
        }
    }
    if on_gpu {
        assert_eq!(checked, 100, "every recorded draw compared");
    }
}

#[test]
fn cupy_rules_on_every_device() {
    if !common::gpu() {
        return;
    }
    let mut g = Generator::cupy_compatible(3).unwrap();
    // uniform takes reversed bounds (CuPy's rule): values in (high, low].
    let u = g.uniform(5.0, 3.0, &[1000], DType::F64).unwrap();
    assert!(
        u.to_vec::<f64>()
            .unwrap()
            .iter()
            .all(|&v| v > 3.0 && v <= 5.0)
    );
    // random is [0, 1): cuRAND's 1.0 becomes 0.
    let r = g.random(&[10_000], DType::F32).unwrap();
    let r = r.to_vec::<f32>().unwrap();
    assert!(r.iter().all(|&v| (0.0..1.0).contains(&v)));
    assert!(r.iter().any(|&v| v != r[0]));
    // A one-value range draws nothing: the stream goes on as if it had not been called.
    let mut a = Generator::cupy_compatible(11).unwrap();
    let mut b = Generator::cupy_compatible(11).unwrap();
    let one = a.randint(-7, -6, &[3], DType::I8).unwrap();
    assert_eq!(one.to_vec::<i8>().unwrap(), vec![-7, -7, -7]);
    let x = a.random(&[4], DType::F64).unwrap().to_vec::<f64>().unwrap();
    let y = b.random(&[4], DType::F64).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(x, y);
    // Rejection: a range of 3·2^30 + 1 values rejects about a quarter of the 32-bit words;
    // every value lands in range and the large ones occur.
    let hi = 3i64 * (1 << 30) + 1;
    let v = a.randint(0, hi, &[20_000], DType::I64).unwrap();
    let v = v.to_vec::<i64>().unwrap();
    assert!(v.iter().all(|&x| (0..hi).contains(&x)));
    assert!(v.iter().any(|&x| x > 3 * (1 << 30) - (1 << 26)));
    // 64-bit samples (a range over 2^32) and uint64 bounds at the top of the dtype.
    let w = a
        .randint(0, 1i128 << 40, &[1000], DType::I64)
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
    assert!(w.iter().all(|&x| (0..1 << 40).contains(&x)));
    assert!(w.iter().any(|&x| x > 1 << 39));
    let top = a
        .randint(
            u64::MAX as i128 - 9,
            u64::MAX as i128 + 1,
            &[500],
            DType::U64,
        )
        .unwrap()
        .to_vec::<u64>()
        .unwrap();
    assert!(top.iter().all(|&x| x >= u64::MAX - 9));
    // Reseeding restarts the stream.
    g.seed(3).unwrap();
    let again = g.uniform(5.0, 3.0, &[1000], DType::F64).unwrap();
    assert_eq!(again.to_vec::<f64>().unwrap(), u.to_vec::<f64>().unwrap());
}
