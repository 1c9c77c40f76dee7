//! Doubles to float16 with one rounding, as NumPy's casts do. The `half` crate's
//! `f16::from_f64` goes through `f32` where the CPU converts in hardware (x86's F16C), and a
//! double a hair off the midpoint of two float16 numbers then rounds onto the midpoint
//! first and to the even neighbour second. The kernels' float16 type rounds a double once
//! too (`cuprum/half.cuh`). bfloat16 keeps the crate's conversion through `f32`, as
//! PyTorch's and ml_dtypes' do.

use half::f16;

/// `x` rounded to the nearest float16, ties to even; NaN stays NaN, beyond the largest
/// finite float16 (65504) by half an ulp or more is infinity.
pub(crate) fn f16_from_f64(x: f64) -> f16 {
    let bits = x.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    let mant = bits & ((1u64 << 52) - 1);
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0x7ff {
        return f16::from_bits(if mant != 0 { 0x7e00 } else { sign | 0x7c00 });
    }
    let e = exp - 1023 + 15;
    if e >= 0x1f {
        return f16::from_bits(sign | 0x7c00);
    }
    // the 53-bit significand, shifted so that its integer part is the float16's
    // significand (its implicit bit adds into the exponent field for normal numbers)
    let (sig, shift) = if e <= 0 {
        if e < -10 {
            return f16::from_bits(sign);
        }
        (mant | (1u64 << 52), (43 - e) as u32)
    } else {
        (mant, 42)
    };
    let base = if e <= 0 { 0 } else { (e as u64) << 10 };
    let mut h = base | (sig >> shift);
    let rem = sig & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    if rem > half || (rem == half && h & 1 == 1) {
        h += 1; // a carry rounds up into the exponent, up to infinity
    }
    f16::from_bits(sign | h as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_once_where_a_cast_through_f32_rounds_twice() {
        // 2047.5 - 2^-26 - ...: float32 makes it 2047.5, which rounds to even (2048)
        let x = 0x001f_fdff_ffff_u64 as f64 * 2f64.powi(-26);
        assert_eq!(f16_from_f64(x).to_f64(), 2047.0);
        let y = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(f16_from_f64(y).to_bits(), 0x3c01);
        assert_eq!(f16_from_f64(1.0 + 2f64.powi(-11)).to_bits(), 0x3c00);
        // every float16 below the largest, the midpoint to the next one up and a hair on
        // either side of it (float32 rounds those onto the midpoint)
        let bits = |x: f64| f16_from_f64(x).to_bits();
        for k in 0u16..0x7bff {
            let (lo, hi) = (f16::from_bits(k).to_f64(), f16::from_bits(k + 1).to_f64());
            let mid = (lo + hi) / 2.0;
            assert_eq!(bits(lo), k);
            assert_eq!(bits(-lo), k | 0x8000);
            assert_eq!(bits(mid * (1.0 + 1e-12)), k + 1, "above {mid:e}");
            assert_eq!(bits(mid * (1.0 - 1e-12)), k, "below {mid:e}");
            assert_eq!(bits(mid), k + (k & 1), "at {mid:e} (to even)");
        }
    }

    #[test]
    fn specials_subnormals_and_overflow() {
        assert_eq!(f16_from_f64(65504.0).to_bits(), 0x7bff);
        assert_eq!(f16_from_f64(65519.99).to_bits(), 0x7bff);
        assert_eq!(f16_from_f64(65520.0).to_bits(), 0x7c00);
        assert_eq!(f16_from_f64(-1e300).to_bits(), 0xfc00);
        assert_eq!(f16_from_f64(f64::INFINITY).to_bits(), 0x7c00);
        assert!(f16_from_f64(f64::NAN).is_nan());
        assert_eq!(f16_from_f64(-0.0).to_bits(), 0x8000);
        assert_eq!(f16_from_f64(2f64.powi(-24)).to_bits(), 1);
        assert_eq!(f16_from_f64(2f64.powi(-25)).to_bits(), 0); // a tie, to even
        assert_eq!(f16_from_f64(2f64.powi(-25) * (1.0 + 1e-15)).to_bits(), 1);
        assert_eq!(f16_from_f64(1e-300).to_bits(), 0);
        assert_eq!(f16_from_f64(2f64.powi(-14)).to_bits(), 0x0400);
        assert_eq!(
            f16_from_f64(2f64.powi(-14) - 2f64.powi(-25) - 2f64.powi(-65)).to_bits(),
            0x03ff
        );
    }
}
