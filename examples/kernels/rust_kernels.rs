//! The seed examples' kernels written in Rust (`#[cuprum::kernel]`), shared by the `jit_*`
//! examples, `cuprum demo`, `cuprum bench` and the tests (included with `#[path]`).
use cuprum::gpu::*;

/// Seed 003 ("Option 2: easier kernels", its `cupyx.jit.rawkernel`), line for line with Rust
/// types: the sum of the prime factors of `idx + 2`.
#[cuprum::kernel]
pub fn prime_factor_sum(a: &mut [i64], n: i32) {
    let idx = (block_dim().x * block_idx().x + thread_idx().x) as i32;
    if idx >= n {
        return;
    }
    let mut num = idx as i64 + 2;
    let mut total: i64 = 0;
    if num % 2 == 0 {
        let mut count = 0;
        while num % 2 == 0 {
            num /= 2;
            count += 1;
        }
        total += count as i64 * 2;
    }
    let mut i: i64 = 3;
    while i * i <= num {
        if num % i == 0 {
            let mut count = 0;
            while num % i == 0 {
                num /= i;
                count += 1;
            }
            total += count as i64 * i;
        }
        i += 2;
    }
    if num > 1 {
        total += num;
    }
    a[idx] = total;
}

/// Seeds 000/001 ("Raw CUDA Kernels"): one thread per element, for any number type.
#[cuprum::kernel]
pub fn vector_add<T: Num>(a: &[T], b: &[T], c: &mut [T], n: i32) {
    let tid = (block_dim().x * block_idx().x + thread_idx().x) as i32;
    if tid < n {
        c[tid] = a[tid] + b[tid];
    }
}

/// The vector add as one tunes it for memory bandwidth, still in Rust: each thread adds
/// chunks of four elements with one 16-byte load per input and one 16-byte store
/// (`load4`/`store4`) in a grid-stride loop, then the `len % 4` elements after the last
/// chunk one by one. `cuprum bench`'s `jit_add100M_f32` launches it with one chunk per
/// thread (`vector_add` above stays the seed's one-element-per-thread kernel).
#[cuprum::kernel]
pub fn vector_add_wide<T: Num>(a: &[T], b: &[T], c: &mut [T]) {
    let n = c.len();
    for k in grid_stride(n / 4) {
        let x = a.load4(k);
        let y = b.load4(k);
        c.store4(k, [x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3]]);
    }
    let tail = n / 4 * 4;
    for i in grid_stride(n - tail) {
        c[tail + i] = a[tail + i] + b[tail + i];
    }
}

/// Seed 002 ("matrix_multiply_kernel"): the naive product, one thread per output.
#[cuprum::kernel]
pub fn matrix_multiply(a: &[f32], b: &[f32], c: &mut [f32], m: i32, n: i32, k: i32) {
    let row = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    let col = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    if row < m && col < n {
        let mut sum = 0.0f32;
        for p in 0..k {
            sum += a[row * k + p] * b[p * n + col];
        }
        c[row * n + col] = sum;
    }
}

/// Seed 002 ("Kernel with shared memory optimization"): block sums in dynamic shared memory.
/// The seed's CUDA checks no shared-memory index; here one `assert!` (a launch whose shared
/// memory is too small for its blocks faults there) bounds every index of the tree, which
/// then reads and writes shared memory unchecked: as fast as the seed's kernel, and safe.
#[cuprum::kernel]
pub fn optimized_reduction(input: &[f32], output: &mut [f32], size: i32) {
    let mut sdata = dynamic_shared::<f32>();
    assert!(block_dim().x as usize <= sdata.len());
    let tid = thread_idx().x as i32;
    let i = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let v = if i < size { input[i] } else { 0.0 };
    // SAFETY: tid < block_dim().x <= sdata.len() (asserted).
    unsafe { *sdata.get_unchecked_mut(tid) = v };
    sync_threads();
    let mut s = (block_dim().x / 2) as i32;
    while s > 0 {
        if tid < s {
            // SAFETY: tid < s and tid + s < 2 * s <= block_dim().x <= sdata.len().
            unsafe { *sdata.get_unchecked_mut(tid) += *sdata.get_unchecked(tid + s) };
        }
        sync_threads();
        s >>= 1;
    }
    if tid == 0 {
        output[block_idx().x] = sdata[0];
    }
}

/// Seed 002 ("RawModule with Multiple Kernels"): ReLU, a device function.
#[cuprum::device]
pub fn activation_relu(x: f32) -> f32 {
    x.max(0.0)
}

/// Seed 002: the sigmoid, a device function.
#[cuprum::device]
pub fn activation_sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Seed 002: applies ReLU (`activation_type` 0) or the sigmoid (1).
#[cuprum::kernel]
pub fn apply_activation(input: &[f32], output: &mut [f32], size: i32, activation_type: i32) {
    let idx = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    if idx < size {
        let x = input[idx];
        if activation_type == 0 {
            output[idx] = activation_relu(x);
        } else if activation_type == 1 {
            output[idx] = activation_sigmoid(x);
        }
    }
}

/// Seed 002 with `match` on the integer: ReLU (0), the sigmoid (1), anything else leaves
/// the input unchanged; the same instructions as the `if` chain (`?:` in C++).
#[cuprum::kernel]
pub fn apply_activation_match(input: &[f32], output: &mut [f32], size: i32, activation_type: i32) {
    let idx = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    if idx < size {
        let x = input[idx];
        output[idx] = match activation_type {
            0 => activation_relu(x),
            1 => activation_sigmoid(x),
            _ => x,
        };
    }
}
