//! Host references for the demo's checks (double precision, compensated where sums are
//! long): those of the seeds (`examples/seeds/`), by the names the demo's cases use.

pub use super::check::{close, kahan};
pub use super::raw::host_matmul as matmul;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prime_factor_sums_match_the_seed() {
        let v = super::super::prime::host_sums();
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
