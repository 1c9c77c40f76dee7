//! Seed: "Custom Kernel: Fast Complex Magnitude" (001) — `abs_squared`,
//! `mag2 = z.real() * z.real() + z.imag() * z.imag()` from complex128 to float64 on 1e7
//! complex numbers `randn + 1j * randn` (made on the GPU by a second ElementwiseKernel),
//! compared as in the seed with the built-in `abs(z) ** 2` (`ops::abs`, then `m * m` on the
//! GPU): allclose with rtol 1e-12, and with `re² + im²` computed on the host.
//! The kernel, the data and the check are in `seeds/` (`elementwise.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("abs_squared", seeds::elementwise::abs_squared)
}
