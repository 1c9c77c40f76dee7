//! The ElementwiseKernel seeds (000, 001, 002): each kernel defined once, with its data and its
//! check. A module of `seeds` (mod.rs).

use super::check::{Checked, close, list, off};
use cuprum::DType::{F32, F64};
use cuprum::{Array, ElementwiseKernel, Endpoint, ops, random};

type R<T> = cuprum::Result<T>;

/// Seed 002 "Basic ElementwiseKernel": `z = x + y * 2`.
pub fn custom_add_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = x + y * 2",
        "custom_add",
    )
}

/// Seed 000's commented `add_kernel`: `z = x + y`.
pub fn add_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = x + y",
        "add_kernel",
    )
}

/// Seed 002 "Basic ElementwiseKernel" (and seed 000's `add_kernel`): [1, 2, 3, 4] and
/// [5, 6, 7, 8] give exactly [11, 14, 17, 20]; `add_kernel` with [10, 20, 30, 40] gives
/// [11, 22, 33, 44]. Timed: `custom_add`.
pub fn custom_add() -> R<Checked> {
    let (custom_add, add) = (custom_add_kernel()?, add_kernel()?);
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
    let b = Array::from_slice(&[5.0f32, 6.0, 7.0, 8.0], &[4])?;
    let b10 = Array::from_slice(&[10.0f32, 20.0, 30.0, 40.0], &[4])?;
    let z = custom_add.call((&a, &b))?.to_vec::<f32>()?;
    let sum = add.call((&a, &b10))?.to_vec::<f32>()?;
    let ok = z == [11.0, 14.0, 17.0, 20.0] && sum == [11.0, 22.0, 33.0, 44.0];
    let mut result = list(&z);
    if sum != [11.0, 22.0, 33.0, 44.0] {
        result += &format!("; add_kernel {}", list(&sum));
    }
    Ok(Checked {
        result,
        ok,
        timed: Box::new(move || custom_add.call((&a, &b)).map(drop)),
    })
}

/// Seed 002 "More complex elementwise operation": a local variable and the scalar `alpha`.
pub fn relu_transform_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x, float32 y, float32 alpha",
        "float32 z",
        "float temp = x * alpha + y;\n\
         z = temp > 0 ? temp : 0;  // ReLU activation",
        "relu_transform",
    )
}

/// The seed's arrays, then 1e6 normal pairs, exactly (`x * 0.5` is exact, so a fused
/// multiply-add rounds as the host does).
pub fn relu_transform() -> R<Checked> {
    let k = relu_transform_kernel()?;
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
    let b = Array::from_slice(&[5.0f32, 6.0, 7.0, 8.0], &[4])?;
    let small = k.call((&a, &b, 0.5f32))?.to_vec::<f32>()?;
    let n = 1_000_000usize;
    let x = random::normal(0.0, 1.0, &[n], F32)?;
    let y = random::normal(0.0, 1.0, &[n], F32)?;
    let z = k.call((&x, &y, 0.5f32))?;
    let (hx, hy, hz) = (x.to_vec::<f32>()?, y.to_vec::<f32>()?, z.to_vec::<f32>()?);
    let bad = (0..n)
        .filter(|&i| hz[i] != (hx[i] * 0.5 + hy[i]).max(0.0))
        .count();
    Ok(Checked {
        result: format!("{}; 1e6 random{}", list(&small), off(bad, n, "the host")),
        ok: small == [5.5, 7.0, 8.5, 10.0] && bad == 0,
        timed: Box::new(move || k.call((&x, &y, 0.5f32)).map(drop)),
    })
}

/// Seed 001 "Definition: ElementwiseKernel": `min(max(x, 0.0), cap)`.
pub fn clipped_relu_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float64 x, float64 cap",
        "float64 y",
        "y = min(max(x, 0.0), cap)",
        "clipped_relu",
    )
}

/// Elements where `y` differs from `min(max(x, 0), cap(i))`.
fn clip_mismatches(x: &Array, y: &Array, cap: impl Fn(usize) -> f64) -> R<usize> {
    let (hx, hy) = (x.to_vec::<f64>()?, y.to_vec::<f64>()?);
    Ok((0..hx.len())
        .filter(|&i| hy[i] != hx[i].max(0.0).min(cap(i)))
        .count())
}

/// 1e7 with the scalar cap 6, then (1000, 1000) with the scalar cap and with a broadcast
/// (1000,) array of caps; exact. Timed: the 1e7 call.
pub fn clipped_relu() -> R<Checked> {
    let k = clipped_relu_kernel()?;
    let x = random::normal(0.0, 1.0, &[10_000_000], F64)?;
    let y = k.call((&x, 6.0))?;
    let bad_1d = clip_mismatches(&x, &y, |_| 6.0)?;
    let side = 1000usize;
    let x2 = random::normal(0.0, 1.0, &[side, side], F64)?;
    let y2 = k.call((&x2, 6.0))?;
    let bad_2d = clip_mismatches(&x2, &y2, |_| 6.0)?;
    let caps = Array::linspace(0.5, 3.0, side, Endpoint::Included, F64)?;
    let y3 = k.call((&x2, &caps))?;
    let hcaps = caps.to_vec::<f64>()?;
    let bad_rows = clip_mismatches(&x2, &y3, |i| hcaps[i % side])?;
    let shapes_ok = y2.shape() == [side, side] && y3.shape() == [side, side];
    let bad = bad_1d + bad_2d + bad_rows;
    Ok(Checked {
        result: format!(
            "1e7 cap 6, 1000² cap 6 and row caps{}{}",
            off(bad, 12_000_000, "the host"),
            if shapes_ok { "" } else { "; wrong shapes" }
        ),
        ok: bad == 0 && shapes_ok,
        timed: Box::new(move || k.call((&x, 6.0)).map(drop)),
    })
}

/// Seed 002 "In-place operation kernel", the seed's strings verbatim: `x` in both lists is
/// one read-write parameter.
pub fn inplace_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x, float32 alpha",
        "float32 x", // Same array for input and output
        "x = x * alpha + 1",
        "inplace_transform",
    )
}

/// Called as `(data, 2.0, data)`: the array stays in its buffer and becomes exactly
/// `2x + 1`.
pub fn inplace_transform() -> R<Checked> {
    let k = inplace_kernel()?;
    let n = 1_000_000usize;
    let data = random::random(&[n], F32)?;
    let before = data.to_vec::<f32>()?;
    let ptr = data.data_ptr();
    let out = k.call((&data, 2.0f32, &data))?;
    let same = data.data_ptr() == ptr && out.data_ptr() == ptr && out.shares_memory(&data);
    let after = data.to_vec::<f32>()?;
    let bad = before
        .iter()
        .zip(&after)
        .filter(|&(&b, &a)| a != b * 2.0 + 1.0)
        .count();
    Ok(Checked {
        result: format!(
            "1e6 x → 2x + 1, {}{}",
            if same {
                "same buffer"
            } else {
                "NOT the same buffer"
            },
            off(bad, n, "2x + 1")
        ),
        ok: same && bad == 0,
        timed: Box::new(move || k.call((&data, 2.0f32, &data)).map(drop)),
    })
}

/// Seed 002 "Kernel with multiple outputs": `sinf`, `cosf`, `tanf`.
pub fn trig_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x",
        "float32 sin_x, float32 cos_x, float32 tan_x",
        "sin_x = sinf(x);\ncos_x = cosf(x);\ntan_x = tanf(x);",
        "trig_functions",
    )
}

/// Three outputs on 1000 angles: sin² + cos² ≈ 1, sin and cos against the host,
/// tan ≈ sin / cos where |cos| > 1e-3.
pub fn trig_functions() -> R<Checked> {
    let k = trig_kernel()?;
    let angles = Array::linspace(
        0.0,
        2.0 * std::f64::consts::PI,
        1000,
        Endpoint::Included,
        F32,
    )?;
    let outs = k.call_all((&angles,))?;
    let [s, c, t] = [&outs[0], &outs[1], &outs[2]].map(|a| a.to_vec::<f32>());
    let (s, c, t, x) = (s?, c?, t?, angles.to_vec::<f32>()?);
    let near = |a: f64, b: f64, rtol: f64, atol: f64| (a - b).abs() <= atol + rtol * b.abs();
    let (mut identity_bad, mut host_bad, mut tan_bad) = (0, 0, 0);
    for i in 0..x.len() {
        let (si, ci, ti, xd) = (s[i] as f64, c[i] as f64, t[i] as f64, x[i] as f64);
        identity_bad += !near(si * si + ci * ci, 1.0, 1e-5, 1e-8) as usize;
        host_bad += !(near(si, xd.sin(), 0.0, 1e-6) && near(ci, xd.cos(), 0.0, 1e-6)) as usize;
        if ci.abs() > 1e-3 {
            tan_bad += !(near(ti, si / ci, 1e-5, 0.0) && near(ti, xd.tan(), 1e-5, 1e-6)) as usize;
        }
    }
    Ok(Checked {
        result: format!(
            "3 outputs, sin² + cos² ≈ 1 on 1000 angles{}{}{}",
            off(identity_bad, 1000, "1"),
            off(host_bad, 1000, "host sin/cos"),
            off(tan_bad, 1000, "sin/cos")
        ),
        ok: identity_bad == 0 && host_bad == 0 && tan_bad == 0,
        timed: Box::new(move || k.call_all((&angles,)).map(drop)),
    })
}

/// Seed 001 "Custom Kernel: Fast Complex Magnitude": `re² + im²` of a complex128.
pub fn abs2_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "complex128 z",
        "float64 mag2",
        "mag2 = z.real() * z.real() + z.imag() * z.imag()",
        "abs_squared",
    )
}

/// `randn + 1j * randn` on the GPU.
pub fn make_complex_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float64 re, float64 im",
        "complex128 z",
        "z = complex<double>(re, im)",
        "make_complex",
    )
}

/// 1e7 `randn + 1j * randn`, allclose (rtol 1e-12) with the built-in `abs(z)**2` and with
/// the host's `re² + im²`.
pub fn abs_squared() -> R<Checked> {
    let (k, make) = (abs2_kernel()?, make_complex_kernel()?);
    let n = 10_000_000usize;
    let re = random::normal(0.0, 1.0, &[n], F64)?;
    let im = random::normal(0.0, 1.0, &[n], F64)?;
    let z = make.call((&re, &im))?;
    // The custom kernel: no intermediate arrays.
    let custom = k.call((&z,))?.to_vec::<f64>()?;
    // The built-ins: abs(z) (a square root) into a temporary, then squared.
    let m = ops::abs(&z)?;
    let standard = (&m * &m)?.to_vec::<f64>()?;
    drop(m);
    let (hre, him) = (re.to_vec::<f64>()?, im.to_vec::<f64>()?);
    let vs_standard = (0..n)
        .filter(|&i| !close(custom[i], standard[i], 1e-12))
        .count();
    let vs_host = (0..n)
        .filter(|&i| !close(custom[i], hre[i] * hre[i] + him[i] * him[i], 1e-12))
        .count();
    Ok(Checked {
        result: format!(
            "1e7 complex128, allclose(abs(z)**2){}{}",
            off(vs_standard, n, "abs(z)**2"),
            off(vs_host, n, "the host")
        ),
        ok: vs_standard == 0 && vs_host == 0,
        timed: Box::new(move || k.call((&z,)).map(drop)),
    })
}
