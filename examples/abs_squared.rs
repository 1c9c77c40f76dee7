//! Seed: "Custom Kernel: Fast Complex Magnitude" (001) — `abs_squared`,
//! `mag2 = z.real() * z.real() + z.imag() * z.imag()` from complex128 to float64 on 1e7
//! complex numbers `randn + 1j * randn` (made on the GPU by a second ElementwiseKernel),
//! compared as in the seed with the built-in `abs(z) ** 2` (`ops::abs`, then `m * m` on the
//! GPU): allclose with rtol 1e-12, and with `re² + im²` computed on the host.
use cuprum::{DType, ElementwiseKernel, ops, random};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("abs_squared: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let abs2_kernel = ElementwiseKernel::new(
        "complex128 z",
        "float64 mag2",
        "mag2 = z.real() * z.real() + z.imag() * z.imag()",
        "abs_squared",
    )?;
    let make_complex = ElementwiseKernel::new(
        "float64 re, float64 im",
        "complex128 z",
        "z = complex<double>(re, im)",
        "make_complex",
    )?;
    let n = 10_000_000usize;
    let re = random::normal(0.0, 1.0, &[n], DType::F64)?;
    let im = random::normal(0.0, 1.0, &[n], DType::F64)?;
    let z = make_complex.call((&re, &im))?;

    // Custom kernel: no intermediate arrays.
    let mag2_custom = abs2_kernel.call((&z,))?;
    // Built-ins: abs(z) (a square root) into a temporary, then squared.
    let m = ops::abs(&z)?;
    let mag2_standard = (&m * &m)?;

    let (custom, standard) = (mag2_custom.to_vec::<f64>()?, mag2_standard.to_vec::<f64>()?);
    let (hre, him) = (re.to_vec::<f64>()?, im.to_vec::<f64>()?);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
    let vs_standard = (0..n).filter(|&i| !close(custom[i], standard[i])).count();
    let vs_host = (0..n)
        .filter(|&i| !close(custom[i], hre[i] * hre[i] + him[i] * him[i]))
        .count();
    let ok = vs_standard == 0 && vs_host == 0;
    println!(
        "abs_squared: mag2[0..3] = {:?}, allclose(custom, abs(z)**2): {}, \
         {vs_host} of {n} off the host: {}",
        &custom[..3],
        vs_standard == 0,
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
