//! The memory kernels index: slices of their parameters ([`Slice`]), static and dynamic
//! shared memory ([`SharedArray`], [`DynShared`]). On the GPU every index is checked (a
//! miss is a fault reported at the next synchronisation); on the host they are ordinary
//! Rust memory with Rust's bounds checks.

use super::num::{AtomicAdd, AtomicBits, AtomicOrd, IntIndex, Scalar};
use std::ops::{Index, IndexMut};

/// A kernel's view of a `&[T]` / `&mut [T]` parameter: indexed by any integer type (a
/// negative index is out of bounds), bounds-checked, with atomics on `&mut` slices.
///
/// In the Rust twin of a kernel (and in a `#[cuprum::device]` function called on the
/// host) a parameter `x: &[T]` is a `&Slice<T>`; host code makes one with [`Slice::new`].
///
/// ```
/// use cuprum::gpu::Slice;
/// let v = [1.0f32, 2.0, 3.0];
/// let s = Slice::new(&v);
/// assert_eq!((s[2i32], s[0u8], s.len()), (3.0, 1.0, 3));
/// ```
#[repr(transparent)]
pub struct Slice<T>([T]);

impl<T> Slice<T> {
    /// Views a slice.
    pub fn new(s: &[T]) -> &Slice<T> {
        // SAFETY: `Slice<T>` is a `repr(transparent)` wrapper of `[T]`: same layout and
        // metadata, and the lifetime is kept.
        unsafe { &*(s as *const [T] as *const Slice<T>) }
    }

    /// Views a mutable slice.
    ///
    /// ```
    /// use cuprum::gpu::Slice;
    /// let mut v = [0i32; 4];
    /// let s = Slice::new_mut(&mut v);
    /// s[3i64] = 7;
    /// assert_eq!(s.atomic_add(3u32, 1), 7);
    /// assert_eq!(v, [0, 0, 0, 8]);
    /// ```
    pub fn new_mut(s: &mut [T]) -> &mut Slice<T> {
        // SAFETY: as in `new`; the unique borrow is carried over.
        unsafe { &mut *(s as *mut [T] as *mut Slice<T>) }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The elements as a Rust slice (host code).
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }

    /// The elements in order (in a kernel: `for x in s.iter()`, with `.enumerate()`; a
    /// counted loop without bounds checks).
    ///
    /// ```
    /// use cuprum::gpu::Slice;
    /// let v = [1.0f32, 2.0, 3.0];
    /// let mut sum = 0.0;
    /// for (i, x) in Slice::new(&v).iter().enumerate() {
    ///     sum += *x * i as f32;
    /// }
    /// assert_eq!(sum, 8.0);
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// The elements in order, mutably (in a kernel: `for x in s.iter_mut()`).
    ///
    /// ```
    /// use cuprum::gpu::Slice;
    /// let mut v = [1i32, 2, 3];
    /// for x in Slice::new_mut(&mut v).iter_mut() {
    ///     *x *= 10;
    /// }
    /// assert_eq!(v, [10, 20, 30]);
    /// ```
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.0.iter_mut()
    }

    /// The element at `i` without a bounds check (in a kernel: no compare at all).
    ///
    /// # Safety
    /// `i` must be in `0..self.len()`.
    pub unsafe fn get_unchecked<I: IntIndex>(&self, i: I) -> &T {
        // SAFETY: the caller guarantees `i` is in bounds (so it is non-negative).
        unsafe { self.0.get_unchecked(i.to_index().unwrap_unchecked()) }
    }

    /// The element at `i` without a bounds check, mutably.
    ///
    /// # Safety
    /// `i` must be in `0..self.len()`.
    pub unsafe fn get_unchecked_mut<I: IntIndex>(&mut self, i: I) -> &mut T {
        // SAFETY: the caller guarantees `i` is in bounds (so it is non-negative).
        unsafe { self.0.get_unchecked_mut(i.to_index().unwrap_unchecked()) }
    }
}

fn at<I: IntIndex>(len: usize, i: I) -> usize {
    match i.to_index() {
        Some(k) if k < len => k,
        _ => panic!(
            "index out of bounds: the len is {len} but the index is {}",
            i.to_i128()
        ),
    }
}

impl<T, I: IntIndex> Index<I> for Slice<T> {
    type Output = T;
    fn index(&self, i: I) -> &T {
        &self.0[at(self.0.len(), i)]
    }
}

impl<T, I: IntIndex> IndexMut<I> for Slice<T> {
    fn index_mut(&mut self, i: I) -> &mut T {
        let k = at(self.0.len(), i);
        &mut self.0[k]
    }
}

/// The atomics of mutable device memory (methods of [`Slice`], [`SharedArray`] and
/// [`DynShared`]); each returns the element's previous value and checks its index.
macro_rules! atomics {
    () => {
        /// `x[i] += v` atomically (integers wrap); returns the old value.
        pub fn atomic_add<I: IntIndex>(&mut self, i: I, v: T) -> T
        where
            T: AtomicAdd,
        {
            let old = self[i];
            self[i] = old.host_add(v);
            old
        }
        /// `x[i] -= v` atomically (integers wrap); returns the old value.
        pub fn atomic_sub<I: IntIndex>(&mut self, i: I, v: T) -> T
        where
            T: AtomicAdd,
        {
            let old = self[i];
            self[i] = old.host_sub(v);
            old
        }
        /// `x[i] = min(x[i], v)` atomically; returns the old value.
        pub fn atomic_min<I: IntIndex>(&mut self, i: I, v: T) -> T
        where
            T: AtomicOrd,
        {
            let old = self[i];
            self[i] = old.host_min(v);
            old
        }
        /// `x[i] = max(x[i], v)` atomically; returns the old value.
        pub fn atomic_max<I: IntIndex>(&mut self, i: I, v: T) -> T
        where
            T: AtomicOrd,
        {
            let old = self[i];
            self[i] = old.host_max(v);
            old
        }
        /// `x[i] = v` atomically; returns the old value.
        pub fn atomic_exch<I: IntIndex>(&mut self, i: I, v: T) -> T
        where
            T: AtomicOrd,
        {
            let old = self[i];
            self[i] = v;
            old
        }
        /// `if x[i] == current { x[i] = new }` atomically (floats compare bits); returns
        /// the old value.
        pub fn atomic_cas<I: IntIndex>(&mut self, i: I, current: T, new: T) -> T
        where
            T: AtomicOrd,
        {
            let old = self[i];
            if old == current {
                self[i] = new;
            }
            old
        }
        /// `x[i] &= v` atomically; returns the old value.
        pub fn atomic_and<I: IntIndex>(&mut self, i: I, v: T) -> T
        where
            T: AtomicBits,
        {
            let old = self[i];
            self[i] = old & v;
            old
        }
        /// `x[i] |= v` atomically; returns the old value.
        pub fn atomic_or<I: IntIndex>(&mut self, i: I, v: T) -> T
        where
            T: AtomicBits,
        {
            let old = self[i];
            self[i] = old | v;
            old
        }
        /// `x[i] ^= v` atomically; returns the old value.
        pub fn atomic_xor<I: IntIndex>(&mut self, i: I, v: T) -> T
        where
            T: AtomicBits,
        {
            let old = self[i];
            self[i] = old ^ v;
            old
        }
    };
}

impl<T: Scalar> Slice<T> {
    atomics!();

    /// Chunk `k` of four elements, `x[4k..4k + 4]` (what `x.as_chunks::<4>().0[k]` is in
    /// Rust), read at once. In a kernel that is one wide load when the slice starts on a
    /// boundary of the chunk's size (up to 16 bytes; cuprum's arrays do, a view at an odd
    /// offset may not): a single 16-byte `ld.global.v4` for `f32`, `i32` and `u32`, two for
    /// `f64`, one 8-byte load for `f16`; four plain loads otherwise. The index is checked:
    /// `k` must be below `len / 4` (the last `len % 4` elements belong to no chunk).
    ///
    /// ```
    /// use cuprum::gpu::Slice;
    /// let v = [0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    /// let x = Slice::new(&v);
    /// assert_eq!(x.load4(1u32), [4.0, 5.0, 6.0, 7.0]);
    /// assert!(std::panic::catch_unwind(|| x.load4(2)).is_err()); // 9 / 4 = 2 chunks
    /// ```
    pub fn load4<I: IntIndex>(&self, k: I) -> [T; 4] {
        let c = 4 * at(self.0.len() / 4, k);
        [self.0[c], self.0[c + 1], self.0[c + 2], self.0[c + 3]]
    }

    /// Writes chunk `k` of four elements, `x[4k..4k + 4] = v`, at once: one wide store in
    /// a kernel, as [`load4`](Slice::load4) reads. `k` must be below `len / 4`.
    ///
    /// ```
    /// use cuprum::gpu::Slice;
    /// let mut v = [0i32; 6];
    /// Slice::new_mut(&mut v).store4(0u32, [1, 2, 3, 4]);
    /// assert_eq!(v, [1, 2, 3, 4, 0, 0]);
    /// ```
    pub fn store4<I: IntIndex>(&mut self, k: I, v: [T; 4]) {
        let c = 4 * at(self.0.len() / 4, k);
        self.0[c..c + 4].copy_from_slice(&v);
    }
}

/// Static shared memory of `N` elements, one per block: `let mut s = shared_array::<f32,
/// 256>();` (in C++ `__shared__ float s[256];`). Uninitialised on the GPU.
pub struct SharedArray<T, const N: usize>(Vec<T>);

/// Dynamic shared memory (`extern __shared__`): as many `T` as the launch's
/// `shared_mem` bytes hold. Every `dynamic_shared` of a kernel views the same bytes.
pub struct DynShared<T>(Vec<T>);

macro_rules! shared_common {
    ($ty:ty, $($gen:tt)*) => {
        impl<$($gen)*> $ty {
            /// Number of elements.
            pub fn len(&self) -> usize {
                self.0.len()
            }
            /// Whether there are no elements.
            pub fn is_empty(&self) -> bool {
                self.0.is_empty()
            }
            /// The elements in order (`for x in s.iter()` in a kernel).
            pub fn iter(&self) -> std::slice::Iter<'_, T> {
                self.0.iter()
            }
            /// The elements in order, mutably (`for x in s.iter_mut()` in a kernel).
            pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
                self.0.iter_mut()
            }
            /// The element at `i` without a bounds check.
            ///
            /// # Safety
            /// `i` must be in `0..self.len()`.
            pub unsafe fn get_unchecked<I: IntIndex>(&self, i: I) -> &T {
                // SAFETY: the caller guarantees `i` is in bounds.
                unsafe { self.0.get_unchecked(i.to_index().unwrap_unchecked()) }
            }
            /// The element at `i` without a bounds check, mutably.
            ///
            /// # Safety
            /// `i` must be in `0..self.len()`.
            pub unsafe fn get_unchecked_mut<I: IntIndex>(&mut self, i: I) -> &mut T {
                // SAFETY: the caller guarantees `i` is in bounds.
                unsafe { self.0.get_unchecked_mut(i.to_index().unwrap_unchecked()) }
            }
            atomics!();
        }
        impl<I: IntIndex, $($gen)*> Index<I> for $ty {
            type Output = T;
            fn index(&self, i: I) -> &T {
                &self.0[at(self.0.len(), i)]
            }
        }
        impl<I: IntIndex, $($gen)*> IndexMut<I> for $ty {
            fn index_mut(&mut self, i: I) -> &mut T {
                let k = at(self.0.len(), i);
                &mut self.0[k]
            }
        }
    };
}
shared_common!(SharedArray<T, N>, T: Scalar, const N: usize);
shared_common!(DynShared<T>, T: Scalar);

/// Declares static shared memory (in a kernel, as a `let` value):
/// `let mut tile = shared_array::<f32, 256>();`. The length is a literal or a
/// `const N: usize` parameter of the kernel. On the host: `N` default values.
///
/// ```
/// use cuprum::gpu::*;
/// let mut t = shared_array::<i32, 4>();
/// t[3u32] = 5;
/// assert_eq!((t[3], t.len()), (5, 4));
/// ```
pub fn shared_array<T: Scalar, const N: usize>() -> SharedArray<T, N> {
    SharedArray(vec![T::default(); N])
}

/// Views the launch's dynamic shared memory (`JitConfig::shared_mem(bytes)`) as `T`s:
/// `let mut s = dynamic_shared::<f32>();` in a kernel. On the host: empty.
pub fn dynamic_shared<T: Scalar>() -> DynShared<T> {
    DynShared(Vec::new())
}
