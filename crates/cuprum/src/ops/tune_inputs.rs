//! The inputs of the tuned families' problems (`sort_tuned.rs`, `compact.rs`): keys and
//! masks that look random, made on the device from their positions with a multiplicative
//! hash (a bijection of 32-bit words), the same in every run — so measuring needs nothing
//! from the layer above (`crate::random`).

use super::binary::{greater, multiply};
use crate::array::{Array, DType, Scalar};
use crate::error::Result;

/// Knuth's multiplicative hash constant (odd: multiplying by it permutes 32-bit words).
const HASH: u32 = 2_654_435_761;

/// `n` scattered `u32`s: position × [`HASH`], wrapping.
fn hashed(n: usize) -> Result<Array> {
    let i = Array::arange_int(0, n as i128, 1, DType::U32)?;
    multiply(&i, Scalar::U32(HASH))
}

/// `n` scattered keys of dtype `d` (the hashed words converted: floats up to 2^32).
pub(crate) fn keys(n: usize, d: DType) -> Result<Array> {
    let h = hashed(n)?;
    if d == DType::U32 { Ok(h) } else { h.astype(d) }
}

/// `n` flags, about half of them set, scattered.
pub(crate) fn half_mask(n: usize) -> Result<Array> {
    greater(&hashed(n)?, Scalar::U32(1 << 31))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_hash_permutes_32_bit_words() {
        // odd, so invertible modulo 2^32: distinct positions give distinct words
        assert_eq!(super::HASH % 2, 1);
        let w: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(super::HASH)).collect();
        let mut s = w.clone();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), w.len());
    }
}
