//! Seed 003's "Option 1: reformulate entirely", line for line with cuprum's array API:
//! boolean masks and in-place updates through them (`totals[mask] += p` is
//! `totals.masked(&mask).add(p)`, `nums[mask] //= p` is `nums.masked(&mask).floor_divide(p)`).
//! Shared (through `#[path]`) by the example `prime_factor_sum_masked`, `cuprum demo` and
//! `cuprum bench` (`prime1M_masked`).
//!
//! The loop bounds are host integers, as in the seed (`int(math.sqrt(n))`, `max_iter`), and
//! nothing in the loop waits for the GPU: each step is two element-wise kernels for the
//! mask and one per masked update, queued back to back (404 steps for n = 1,000,000). The
//! last line reads `nums[mask]`, which needs its count: one synchronisation at the end.

use cuprum::{Array, DType, Result};

/// Simple CPU sieve to get primes up to sqrt(N)
pub fn get_small_primes(limit: usize) -> Vec<i64> {
    let mut is_prime = vec![true; limit + 1];
    let mut primes = Vec::new();
    for p in 2..=limit {
        if is_prime[p] {
            primes.push(p as i64);
            for i in (p * p..=limit).step_by(p) {
                is_prime[i] = false;
            }
        }
    }
    primes
}

/// The seed's `primeFactorizationSum(n)`: the sum of the prime factors (with multiplicity)
/// of every number in `2..=n`, as an int64 array of `n - 1` values.
pub fn prime_factorization_sum(n: usize) -> Result<Array> {
    // 1. Get primes up to sqrt(1,000,000) which is 1000.
    // There are only 168 primes up to 1000.
    let small_primes = get_small_primes(n.isqrt());

    // 2. Initialize the main arrays on the GPU
    // nums represents the numbers [2, 3, 4 ... 1,000,000]
    let nums = Array::arange(2.0, (n + 1) as f64, 1.0, DType::I64)?;
    let totals = Array::zeros(&[n.saturating_sub(1)], DType::I64)?;

    // 3. Apply broadcasting to divide out the small primes
    for p in small_primes {
        // Calculate how many times 'p' could possibly divide into 'n'
        let mut power = p;
        let mut max_iter = 0;
        while power <= n as i64 {
            max_iter += 1;
            power *= p;
        }

        // Repeatedly divide out the prime and add to total where applicable
        for _ in 0..max_iter {
            let mask = (&nums % p)?.equal(0i64)?; // Find all elements divisible by p
            totals.masked(&mask).add(p)?; // Add p to their totals
            nums.masked(&mask).floor_divide(p)?; // Divide them by p
        }
    }

    // 4. Any numbers left in 'nums' greater than 1 are primes themselves
    // (e.g. for number 14, after dividing by 2, 'nums' holds 7)
    let mask = nums.greater(1i64)?;
    totals.masked(&mask).add(&nums.masked(&mask).get()?)?;

    Ok(totals)
}
