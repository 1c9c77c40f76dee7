//! Host references for the demo's checks (double precision, compensated where sums are
//! long).

use std::sync::OnceLock;

pub use super::check::{close, kahan};

#[path = "../../../../examples/reference/prime_factor_sum.rs"]
mod prime;
pub use prime::prime_factor_sum;

/// The prime-factor sums of 2..=1,000,000, computed once per process (both prime cases use
/// them).
pub fn prime_factor_sums_1m() -> &'static [i64] {
    static V: OnceLock<Vec<i64>> = OnceLock::new();
    V.get_or_init(|| (2..=1_000_000i64).map(prime_factor_sum).collect())
}

/// Row-major `a (m×k) · b (k×n)` in double precision.
pub fn matmul(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0.0f64; m * n];
    for i in 0..m {
        let row = &mut c[i * n..(i + 1) * n];
        for p in 0..k {
            let aip = a[i * k + p] as f64;
            for (r, &bv) in row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *r += aip * bv as f64;
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prime_factor_sums_match_the_seed() {
        let v = prime_factor_sums_1m();
        assert_eq!(&v[..4], &[2, 3, 4, 5]);
        assert_eq!(&v[v.len() - 3..], &[287, 77, 42]);
    }

    #[test]
    fn kahan_and_matmul() {
        assert_eq!(kahan([0.1; 10]), 1.0);
        let c = matmul(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0], 2, 2, 2);
        assert_eq!(c, [19.0, 22.0, 43.0, 50.0]);
    }
}
