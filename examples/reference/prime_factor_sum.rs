//! The host reference of seed 003's prime-factor sum, shared by the `prime_factor_sum*`
//! examples and `cuprum demo` (included with `#[path]`, not an example itself).

/// Sum of the prime factors of `num` with multiplicity (seed 003's `primeFactorizationSum`).
pub fn prime_factor_sum(num: i64) -> i64 {
    let (mut num, mut total) = (num, 0i64);
    while num % 2 == 0 {
        num /= 2;
        total += 2;
    }
    let mut p = 3;
    while p * p <= num {
        while num % p == 0 {
            num /= p;
            total += p;
        }
        p += 2;
    }
    if num > 1 {
        total += num;
    }
    total
}
