//! Host transfers: `from_slice` / `to_vec` / `copy_to_slice` / `copy_from_slice` at every
//! size class (below and above the pinned staging threshold of 4 MiB, sizes that are not a
//! multiple of the 2 MiB chunk, a size spread over every staging lane), pinned buffers
//! (allocated and registered) and the asynchronous copies with them, with the errors and
//! the drop cases (a copy dropped in flight, an array dropped while its copy runs).
//!
//! Values are random bit patterns (never zeros) compared bit for bit with the host data.
//! GPU tests run on the host device where there is no GPU (the staging lanes are the CUDA
//! backend's: the GPU suite runs them).

mod common;

use common::{Rng, expect_err};
use cuprum::{Array, DType, Device, ErrorKind, PinnedBuffer, Stream, s};

/// Random `u32` words (no zeros).
fn words(n: usize, seed: u64) -> Vec<u32> {
    let mut r = Rng::new(seed);
    (0..n).map(|_| (r.next_u64() as u32) | 1).collect()
}

/// Element counts (u32) around the staging threshold and chunk size, and one spread over
/// many lanes with a ragged tail.
const SIZES: &[usize] = &[
    0,
    1,
    1000,
    (4 << 20) / 4 - 1,
    (4 << 20) / 4,
    (4 << 20) / 4 + 3,
    (2 << 20) / 4 * 7 + 5,
    (37 << 20) / 4 + 11,
];

#[test]
fn round_trips_at_every_size_class() {
    require_gpu!();
    for (i, &n) in SIZES.iter().enumerate() {
        let v = words(n, i as u64 + 1);
        let a = Array::from_slice(&v, &[n]).unwrap();
        assert_eq!(a.to_vec::<u32>().unwrap(), v, "to_vec of {n} words");
        let mut out = vec![0u32; n];
        a.copy_to_slice(&mut out).unwrap();
        assert_eq!(out, v, "copy_to_slice of {n} words");
        // into an existing array, overwriting other values
        let b = Array::full(&[n], 7u32, DType::U32).unwrap();
        b.copy_from_slice(&v).unwrap();
        assert_eq!(
            b.to_vec::<u32>().unwrap(),
            v,
            "copy_from_slice of {n} words"
        );
    }
}

/// A round trip of `vals` (above the staging threshold) through `from_slice`, `to_vec`,
/// `copy_to_slice` and the pinned copies.
fn round_trip<T: cuprum::Element + PartialEq + std::fmt::Debug + Copy + Default>(vals: Vec<T>) {
    let a = Array::from_slice(&vals, &[vals.len()]).unwrap();
    let d = a.dtype();
    assert_eq!(a.to_vec::<T>().unwrap(), vals, "{d}: to_vec");
    let mut out = vec![T::default(); vals.len()];
    a.copy_to_slice(&mut out).unwrap();
    assert_eq!(out, vals, "{d}: copy_to_slice");
    let s = Stream::current().unwrap();
    let b = Array::zeros(&[vals.len()], d).unwrap();
    let buf = b
        .copy_from_host_async(PinnedBuffer::from_slice(&vals).unwrap(), &s)
        .unwrap()
        .wait()
        .unwrap();
    let back = b.copy_to_host_async(buf, &s).unwrap().wait().unwrap();
    assert_eq!(&back[..], &vals[..], "{d}: pinned copies");
}

#[test]
fn every_dtype_round_trips() {
    require_gpu!();
    use half::{bf16, f16};
    use num_complex::Complex;
    let n = (5 << 20) / 8 + 17; // above the staging threshold for 8-byte types
    let w = words(2 * n, 99);
    let dts = common::dtypes(DType::ALL);
    macro_rules! each {
        ($($d:ident => |$x:ident, $y:ident| $e:expr),* $(,)?) => {$(
            if dts.contains(&DType::$d) {
                round_trip((0..n).map(|i| {
                    let ($x, $y) = (w[i], w[n + i]);
                    let _ = $y;
                    $e
                }).collect());
            }
        )*};
    }
    each!(
        Bool => |x, y| x % 3 == 0,
        I8 => |x, y| x as i8,
        U8 => |x, y| x as u8,
        I16 => |x, y| x as i16,
        U16 => |x, y| x as u16,
        I32 => |x, y| x as i32,
        U32 => |x, y| x,
        I64 => |x, y| ((x as u64) << 32 | y as u64) as i64,
        U64 => |x, y| (x as u64) << 32 | y as u64,
        F16 => |x, y| f16::from_f32((x % 60000) as f32 - 30000.5),
        BF16 => |x, y| bf16::from_f32(x as f32 * 1e-3 - 7.25),
        F32 => |x, y| f32::from_bits(x & 0x7f7f_ffff),
        F64 => |x, y| x as f64 * 1.5e-3 - y as f64,
        C64 => |x, y| Complex::new(x as f32 - 1.5, -(y as f32)),
        C128 => |x, y| Complex::new(x as f64 * 0.5, y as f64 - 3.0),
    );
}

/// A bool array holding the bytes `(i % 5) * 50` (written by a raw kernel through an
/// `unsigned char` pointer).
fn odd_bools(n: usize) -> Array {
    let a = Array::zeros(&[n], DType::Bool).unwrap();
    let k = cuprum::RawKernel::new(
        r#"extern "C" __global__ void odd_bools(bool* out, unsigned long long n) {
            unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
            if (i < n) reinterpret_cast<unsigned char*>(out)[i] = (unsigned char)((i % 5) * 50);
        }"#,
        "odd_bools",
    );
    k.launch((n as u32).div_ceil(256), 256, (&a, n as u64))
        .unwrap();
    a
}

#[test]
fn bool_downloads_are_zero_or_one() {
    require_gpu!();
    let n = (6 << 20) + 5;
    let a = odd_bools(n);
    let want: Vec<bool> = (0..n).map(|i| i % 5 != 0).collect();
    assert_eq!(a.to_vec::<bool>().unwrap(), want);
    let mut out = vec![false; n];
    a.copy_to_slice(&mut out).unwrap();
    assert_eq!(out, want);
    let s = Stream::current().unwrap();
    let buf = a
        .copy_to_host_async(PinnedBuffer::<bool>::zeroed(n).unwrap(), &s)
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(&buf[..], &want[..]);
}

#[test]
fn non_contiguous_views_transfer_in_c_order() {
    require_gpu!();
    let (r, c) = (1031, 1029); // 4.05 MiB of u32
    let v = words(r * c, 5);
    let a = Array::from_slice(&v, &[r, c]).unwrap();
    let t = a.t();
    let want: Vec<u32> = (0..c)
        .flat_map(|j| (0..r).map(move |i| (i, j)))
        .map(|(i, j)| v[i * c + j])
        .collect();
    assert_eq!(t.to_vec::<u32>().unwrap(), want);
    let mut out = vec![0u32; r * c];
    t.copy_to_slice(&mut out).unwrap();
    assert_eq!(out, want);
    // writing through a strided view leaves the rest alone
    let z = Array::zeros(&[r, 2 * c], DType::U32).unwrap();
    let half = z.slice(&s![.., ..;2]).unwrap();
    half.copy_from_slice(&v).unwrap();
    let all = z.to_vec::<u32>().unwrap();
    for i in [0, r / 2, r - 1] {
        for j in [0, c / 3, c - 1] {
            assert_eq!(all[i * 2 * c + 2 * j], v[i * c + j]);
            assert_eq!(all[i * 2 * c + 2 * j + 1], 0);
        }
    }
    let s = Stream::current().unwrap();
    let buf = PinnedBuffer::from_slice(&v).unwrap();
    let z2 = Array::zeros(&[c, r], DType::U32).unwrap();
    z2.t()
        .copy_from_host_async(buf, &s)
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(z2.t().to_vec::<u32>().unwrap(), v);
}

#[test]
fn pinned_async_copies_both_ways() {
    require_gpu!();
    let s = Stream::new().unwrap();
    for (i, &n) in SIZES.iter().enumerate() {
        let v = words(n, 40 + i as u64);
        let a = Array::zeros(&[n], DType::U32).unwrap();
        let up = a
            .copy_from_host_async(PinnedBuffer::from_slice(&v).unwrap(), &s)
            .unwrap();
        let back = a
            .copy_to_host_async(PinnedBuffer::<u32>::zeroed(n).unwrap(), &s)
            .unwrap();
        let got = back.wait().unwrap();
        assert_eq!(&got[..], &v[..], "{n} words through pinned buffers");
        assert!(up.is_done().unwrap());
        let returned = up.wait().unwrap();
        assert_eq!(&returned[..], &v[..]);
        assert_eq!(got.into_vec(), v);
    }
}

/// A copy's own event orders other streams: a three-stream chain (upload, a kernel on a
/// second stream that waits for the upload's event, a download on a third that waits for
/// the kernel) brings back the kernel's result of the uploaded data, chunk after chunk
/// through the same device slot, as the bench's pipeline does.
#[test]
fn a_copys_event_orders_other_streams() {
    require_gpu!();
    let [up, comp, down] = [(); 3].map(|()| Stream::new().unwrap());
    let n = (16 << 20) / 4 + 5;
    let slot = Array::zeros(&[n], DType::U32).unwrap();
    for round in 0..4u64 {
        let v = words(n, 70 + round);
        let upload = slot
            .copy_from_host_async(PinnedBuffer::from_slice(&v).unwrap(), &up)
            .unwrap();
        comp.wait_event(upload.event()).unwrap();
        let doubled = comp.with(|| cuprum::ops::add(&slot, &slot)).unwrap();
        let done = cuprum::Event::new().unwrap();
        done.record(&comp).unwrap();
        down.wait_event(&done).unwrap();
        let back = doubled
            .copy_to_host_async(PinnedBuffer::<u32>::zeroed(n).unwrap(), &down)
            .unwrap();
        // The next round's upload overwrites the slot only after this round's kernel.
        up.wait_event(&done).unwrap();
        let got = back.wait().unwrap();
        let want: Vec<u32> = v.iter().map(|x| x.wrapping_add(*x)).collect();
        assert!(
            got[..] == want[..],
            "round {round}: the kernel saw other data"
        );
        upload.wait().unwrap();
    }
}

/// `copy_from_slice` / `from_slice` out of page-locked memory (a `PinnedBuffer`, CuPy's
/// `alloc_pinned_memory` under a NumPy array) return once the slice has been read, as out of
/// pageable memory: the driver's copy from page-locked memory is truly asynchronous, so the
/// small (unstaged) copy waits for it. The stream is kept busy first, so that a copy that
/// did not wait would read the slice after it was overwritten.
#[test]
fn copies_out_of_page_locked_memory_read_it_before_returning() {
    require_gpu!();
    let s = Stream::new().unwrap();
    let busy = Array::zeros(&[8 << 20], DType::F32).unwrap();
    for (k, n) in [1usize, 1000, 60_000].into_iter().enumerate() {
        let v = words(n, 90 + k as u64);
        let mut pinned = PinnedBuffer::from_slice(&v).unwrap();
        let a = s.with(|| Array::zeros(&[n], DType::U32)).unwrap();
        s.with(|| {
            for _ in 0..20 {
                cuprum::ops::multiply(&busy, 1.0f32)?;
            }
            a.copy_from_slice(&pinned[..])
        })
        .unwrap();
        pinned.fill(0); // the copy has read the buffer: this cannot reach the array
        let b = s.with(|| Array::from_slice(&pinned[..], &[n])).unwrap();
        pinned.fill(7);
        assert_eq!(s.with(|| a.to_vec::<u32>()).unwrap(), v, "{n} words");
        assert_eq!(s.with(|| b.to_vec::<u32>()).unwrap(), vec![0; n]);
    }
}

#[test]
fn registered_vectors_copy_and_come_back() {
    require_gpu!();
    let n = (9 << 20) / 4 + 1;
    let v = words(n, 77);
    let buf = PinnedBuffer::register(v.clone()).unwrap();
    assert!(buf.is_registered());
    let a = Array::zeros(&[n], DType::U32).unwrap();
    let s = Stream::current().unwrap();
    let buf = a.copy_from_host_async(buf, &s).unwrap().wait().unwrap();
    assert_eq!(a.to_vec::<u32>().unwrap(), v);
    let doubled = cuprum::ops::add(&a, &a).unwrap();
    let buf = doubled.copy_to_host_async(buf, &s).unwrap().wait().unwrap();
    let want: Vec<u32> = v.iter().map(|x| x.wrapping_add(*x)).collect();
    assert_eq!(buf.into_vec(), want);
    // an empty vector registers too
    assert_eq!(PinnedBuffer::<f32>::register(Vec::new()).unwrap().len(), 0);
}

#[test]
fn dropping_copies_and_arrays_in_flight_is_safe() {
    require_gpu!();
    let n = (64 << 20) / 4;
    let v = words(n, 3);
    let s = Stream::new().unwrap();
    for _ in 0..3 {
        // the array dropped right after queuing its download: its memory is freed only
        // after the copy, and the copy's guard (dropped unwaited) waits before freeing the
        // buffer
        let a = Array::from_slice(&v, &[n]).unwrap();
        let copy = a
            .copy_to_host_async(PinnedBuffer::<u32>::zeroed(n).unwrap(), &s)
            .unwrap();
        drop(a);
        drop(copy);
        // an upload whose guard is dropped at once: the data still arrives
        let b = Array::zeros(&[n], DType::U32).unwrap();
        drop(
            b.copy_from_host_async(PinnedBuffer::from_slice(&v).unwrap(), &s)
                .unwrap(),
        );
        assert_eq!(b.to_vec::<u32>().unwrap(), v);
    }
    s.synchronize().unwrap();
}

#[test]
fn transfer_errors_are_typed() {
    require_gpu!();
    let a = Array::arange(0.0, 6.0, 1.0, DType::F32).unwrap();
    let e = expect_err(a.copy_to_slice(&mut [0f32; 5]), ErrorKind::Shape);
    assert_eq!(
        e.to_string(),
        "copy_to_slice: the array of shape (6,) has 6 elements, the slice 5"
    );
    let e = expect_err(a.copy_to_slice(&mut [0i32; 6]), ErrorKind::DType);
    assert!(
        e.to_string()
            .contains("copy_to_slice: the array holds float32 but int32"),
        "{e}"
    );
    let s = Stream::current().unwrap();
    let e = expect_err(
        a.copy_to_host_async(PinnedBuffer::<f32>::zeroed(4).unwrap(), &s),
        ErrorKind::Shape,
    );
    assert_eq!(
        e.to_string(),
        "copy_to_host_async: the array of shape (6,) has 6 elements, the buffer 4"
    );
    let e = expect_err(
        a.copy_from_host_async(PinnedBuffer::<f64>::zeroed(6).unwrap(), &s),
        ErrorKind::DType,
    );
    assert!(
        e.to_string()
            .contains("copy_from_host_async: the array holds float32 but the buffer float64"),
        "{e}"
    );
    let e = expect_err(
        PinnedBuffer::<f64>::zeroed(usize::MAX / 2),
        ErrorKind::OutOfMemory,
    );
    assert!(e.to_string().contains("page-locked host memory"), "{e}");
    // a stream of another device
    if Device::count().unwrap_or(0) > 0 && !a.device().is_host() {
        let host = Stream::new_on(Device::host()).unwrap();
        let e = expect_err(
            a.copy_to_host_async(PinnedBuffer::<f32>::zeroed(6).unwrap(), &host),
            ErrorKind::InvalidArgument,
        );
        assert!(e.to_string().contains("but the stream belongs to"), "{e}");
    }
}

#[test]
fn pinned_buffers_deref_and_debug() {
    require_gpu!();
    let mut b = PinnedBuffer::<i16>::zeroed(4).unwrap();
    b[1] = -3;
    b.iter_mut().skip(2).for_each(|x| *x = 9);
    assert_eq!(&b[..], &[0, -3, 9, 9]);
    let d = format!("{b:?}");
    assert!(
        d.starts_with("PinnedBuffer { dtype: int16, len: 4, registered: false"),
        "{d}"
    );
    assert_eq!(b.into_vec(), vec![0, -3, 9, 9]);
    let e = PinnedBuffer::<u8>::zeroed(0).unwrap();
    assert!(e.is_empty());
}

/// The largest host allocation made by this thread since the last reset (bytes), to check
/// that a download makes no second host copy of the data.
mod allocations {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    pub struct Tracking;

    thread_local! {
        static LARGEST: Cell<usize> = const { Cell::new(0) };
    }

    // SAFETY: every call is forwarded to `System` unchanged; the thread-local is a plain
    // `Cell` without a destructor (no allocation, usable during thread teardown: `try_with`).
    unsafe impl GlobalAlloc for Tracking {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let _ = LARGEST.try_with(|l| l.set(l.get().max(layout.size())));
            // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: `ptr` came from `alloc` above (System) with this layout.
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
            let _ = LARGEST.try_with(|l| l.set(l.get().max(new)));
            // SAFETY: as for `dealloc`, with the caller's new size.
            unsafe { System.realloc(ptr, layout, new) }
        }
    }

    /// Resets the record and returns what `f` allocated at most in one piece.
    pub fn largest<R>(f: impl FnOnce() -> R) -> (R, usize) {
        LARGEST.with(|l| l.set(0));
        let r = f();
        (r, LARGEST.with(Cell::get))
    }
}

#[global_allocator]
static ALLOCATOR: allocations::Tracking = allocations::Tracking;

#[test]
fn a_bool_download_into_a_slice_makes_no_second_host_copy() {
    require_gpu!();
    let n = 24 << 20;
    let w = words(n, 77);
    let a = Array::from_slice(&w, &[n]).unwrap();
    // about a third true: (w % 3 == 0) as bool
    let m = cuprum::ops::equal(cuprum::ops::remainder(&a, 3u32).unwrap(), 0u32).unwrap();
    let want: Vec<bool> = w.iter().map(|x| x % 3 == 0).collect();
    let mut out = vec![true; n];
    let (r, largest) = allocations::largest(|| m.copy_to_slice(&mut out));
    r.unwrap();
    assert_eq!(out, want);
    assert!(
        largest < n / 2,
        "copy_to_slice::<bool> of {n} elements allocated {largest} host bytes at once"
    );
    // a view (packed on the device first), normalised as well
    let v = m.slice(&s![1..;3]).unwrap();
    let mut out = vec![false; v.size()];
    v.copy_to_slice(&mut out).unwrap();
    assert_eq!(
        out,
        want[1..].iter().step_by(3).copied().collect::<Vec<_>>()
    );
}
