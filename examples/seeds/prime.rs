//! Seed 003's prime-factor sum of 2..=1,000,000: the raw kernel ("Option 3") and the
//! ElementwiseKernel over `i` ("Option 2"), with the check every version of it shares (the
//! seed's `[2 3 4 ... 287 77 42]`, every value against the host). A module of `seeds` (mod.rs).

use super::check::{Checked, off};
use cuprum::DType::I64;
use cuprum::{Array, ElementwiseKernel, RawKernel};
use std::sync::OnceLock;

#[path = "../reference/prime_factor_sum.rs"]
mod reference;
pub use reference::prime_factor_sum;

type R<T> = cuprum::Result<T>;

/// "Option 3: raw kernel": `primeFactorizationSum(A, N)`, one thread per value.
pub const PRIME_FACTOR_SUM_CU: &str = include_str!("../kernels/prime_factor_sum.cu");
/// "Option 2: easier kernels": the raw kernel's body over the loop index `i`.
pub const PRIME_FACTOR_SUM_OP: &str = include_str!("../kernels/prime_factor_sum_elementwise.op");

/// How many values the seed computes: the sums of 2..=1,000,000.
pub const LEN: usize = 1_000_000 - 1;

/// The ElementwiseKernel of "Option 2": no inputs, the int64 output passed in.
pub fn elementwise_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new("", "int64 A", PRIME_FACTOR_SUM_OP, "prime_factor_sum")
}

/// The prime-factor sums of 2..=1,000,000 on the host, computed once per process.
pub fn host_sums() -> &'static [i64] {
    static V: OnceLock<Vec<i64>> = OnceLock::new();
    V.get_or_init(|| (2..=1_000_000i64).map(prime_factor_sum).collect())
}

/// The seed's result line `[2 3 4 ... 287 77 42]` (with what was off the host) and whether
/// every value matches.
pub fn summary(v: &[i64]) -> (String, bool) {
    let want = host_sums();
    let bad = v.iter().zip(want).filter(|(a, b)| a != b).count() + want.len().abs_diff(v.len());
    let n = v.len();
    if n < 6 {
        return (
            format!("{} values{}", n, off(bad, want.len(), "the host")),
            false,
        );
    }
    let line = format!(
        "[{} {} {} ... {} {} {}]{}",
        v[0],
        v[1],
        v[2],
        v[n - 3],
        v[n - 2],
        v[n - 1],
        off(bad, want.len(), "the host")
    );
    (line, bad == 0 && v[n - 3..] == [287, 77, 42])
}

/// "Option 3: raw kernel": `primeFactorizationSum`.
pub fn raw_kernel() -> RawKernel {
    RawKernel::new(PRIME_FACTOR_SUM_CU, "primeFactorizationSum")
}

/// The raw kernel over `a` (999,999 int64), 256 threads a block.
fn raw_launch(k: &RawKernel, a: &Array) -> R<()> {
    k.launch((LEN as u32).div_ceil(256), 256, (a, LEN as i32))
}

/// The sums from the raw kernel.
pub fn raw_sums() -> R<Array> {
    let a = Array::empty(&[LEN], I64)?;
    raw_launch(&raw_kernel(), &a)?;
    Ok(a)
}

/// The sums from the ElementwiseKernel.
pub fn elementwise_sums() -> R<Array> {
    let a = Array::empty(&[LEN], I64)?;
    elementwise_kernel()?.run((&a,))?;
    Ok(a)
}

/// "Option 3" checked; timed: the launch.
pub fn raw() -> R<Checked> {
    let (k, a) = (raw_kernel(), raw_sums()?);
    let (result, ok) = summary(&a.to_vec::<i64>()?);
    Ok(Checked {
        result,
        ok,
        timed: Box::new(move || raw_launch(&k, &a)),
    })
}

/// "Option 2" checked; timed: the call.
pub fn elementwise() -> R<Checked> {
    let (k, a) = (elementwise_kernel()?, elementwise_sums()?);
    let (result, ok) = summary(&a.to_vec::<i64>()?);
    Ok(Checked {
        result,
        ok,
        timed: Box::new(move || k.run((&a,))),
    })
}

/// An example's seed: prints the seed's `Primes sum array: [  2   3   4 ... 287  77  42]`
/// (NumPy's summarised form, through `Display`), then checks the sums (an example times
/// nothing).
pub fn printed(sums: R<Array>) -> R<Checked> {
    let a = sums?;
    println!("Primes sum array: {a}");
    let (result, ok) = summary(&a.to_vec::<i64>()?);
    Ok(Checked {
        result,
        ok,
        timed: Box::new(|| Ok(())),
    })
}
