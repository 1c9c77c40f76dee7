//! Seed: "Kernel with multiple outputs" (002) — `trig_functions`, one float32 input and three
//! outputs (`sinf`, `cosf`, `tanf`) returned together by `call_all`, on 1000 angles from 0 to
//! 2π. Checks the seed's identity `sin² + cos² ≈ 1` (NumPy's allclose tolerances), sin and
//! cos against the host in double precision, and `tan ≈ sin / cos` where |cos| > 1e-3.
use cuprum::{Array, DType, ElementwiseKernel, Endpoint};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("trig_functions: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let multi_output_kernel = ElementwiseKernel::new(
        "float32 x",
        "float32 sin_x, float32 cos_x, float32 tan_x",
        "sin_x = sinf(x);\ncos_x = cosf(x);\ntan_x = tanf(x);",
        "trig_functions",
    )?;
    let angles = Array::linspace(
        0.0,
        2.0 * std::f64::consts::PI,
        1000,
        Endpoint::Included,
        DType::F32,
    )?;
    let outs = multi_output_kernel.call_all((&angles,))?;
    let [s, c, t] = [&outs[0], &outs[1], &outs[2]].map(|a| a.to_vec::<f32>());
    let (s, c, t, x) = (s?, c?, t?, angles.to_vec::<f32>()?);

    let close = |a: f64, b: f64, rtol: f64, atol: f64| (a - b).abs() <= atol + rtol * b.abs();
    let mut identity_bad = 0;
    let mut host_bad = 0;
    let mut tan_bad = 0;
    let mut tan_checked = 0;
    for i in 0..x.len() {
        let (si, ci, ti) = (s[i] as f64, c[i] as f64, t[i] as f64);
        identity_bad += !close(si * si + ci * ci, 1.0, 1e-5, 1e-8) as usize;
        let xd = x[i] as f64;
        host_bad += !(close(si, xd.sin(), 0.0, 1e-6) && close(ci, xd.cos(), 0.0, 1e-6)) as usize;
        if ci.abs() > 1e-3 {
            tan_checked += 1;
            tan_bad += !(close(ti, si / ci, 1e-5, 0.0) && close(ti, xd.tan(), 1e-5, 1e-6)) as usize;
        }
    }
    let ok = identity_bad == 0 && host_bad == 0 && tan_bad == 0;
    println!(
        "trig_functions: identity check {} ({identity_bad} off), sin/cos vs host {host_bad} off, \
         tan vs sin/cos {tan_bad} of {tan_checked} off: {}",
        identity_bad == 0,
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
