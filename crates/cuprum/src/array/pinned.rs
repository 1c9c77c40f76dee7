//! Page-locked host buffers ([`PinnedBuffer`]) and asynchronous copies between them and
//! arrays ([`HostCopy`]).
//!
//! **Why the buffer moves into the copy.** An asynchronous copy reads or writes the host
//! buffer after the call has returned, until the stream reaches it. Safe code must not
//! touch the buffer meanwhile, nor free it. So `copy_to_host_async` /
//! `copy_from_host_async` take the buffer by value and return a [`HostCopy`] that owns it;
//! [`HostCopy::wait`] hands it back once the copy's event has completed. A guard that
//! borrowed the buffer instead could be leaked with `mem::forget`, ending the borrow while
//! the copy still runs; an owned buffer cannot be reached until `wait` returns it. A
//! `HostCopy` dropped without `wait` waits for the copy before freeing the buffer (and
//! leaks it rather than free it if the device failed and the copy's end cannot be known).
//! The array side needs nothing: the copy takes the array's address for the stream it is
//! queued on, so the array's memory is freed only after the copy (see
//! [Arrays and streams](crate::Stream#arrays-and-streams)).

use super::device_array::Array;
use super::kernels;
use super::shape::format_shape;
use crate::dtype::{DType, Element};
use crate::error::{Result, bail};
use crate::runtime::{Device, Event, PinnedBytes, Stream};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

/// A host buffer of `T` in page-locked ("pinned") memory: copies between it and a GPU run
/// at the link's speed and can be asynchronous (CuPy's `cupyx.empty_pinned`). Allocated
/// through the driver (portable: any GPU of the process can use it), or registered from a
/// `Vec<T>` the program already has ([`PinnedBuffer::register`]). On the host device it is
/// ordinary memory. It dereferences to `[T]`.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, PinnedBuffer, Stream};
/// let a = Array::arange(0.0, 6.0, 1.0, DType::F32)?;
/// let stream = Stream::current()?;
/// let copy = a.copy_to_host_async(PinnedBuffer::<f32>::zeroed(6)?, &stream)?;
/// // ... queue more work, do something else on the host ...
/// let host = copy.wait()?;
/// assert_eq!(&host[..], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct PinnedBuffer<T: Element> {
    mem: PinnedBytes,
    len: usize,
    /// The program's vector when the memory is registered (it owns the memory).
    owner: Option<Vec<T>>,
    _t: PhantomData<T>,
}

impl<T: Element> PinnedBuffer<T> {
    /// `len` zeros in pinned memory for the current device's copies.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let b = cuprum::PinnedBuffer::<i32>::zeroed(3)?;
    /// assert_eq!(&b[..], &[0, 0, 0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn zeroed(len: usize) -> Result<Self> {
        Self::zeroed_on(Device::current()?, len)
    }

    /// `len` zeros in pinned memory for `device`'s copies (GPU buffers are portable: other
    /// GPUs can use them too).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let b = cuprum::PinnedBuffer::<f64>::zeroed_on(cuprum::Device::current()?, 2)?;
    /// assert_eq!(b.len(), 2);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn zeroed_on(device: Device, len: usize) -> Result<Self> {
        let Some(bytes) = len.checked_mul(std::mem::size_of::<T>()) else {
            bail!(
                OutOfMemory,
                "out of page-locked host memory: {len} elements of {} do not fit in the address space",
                T::DTYPE
            );
        };
        let mem = PinnedBytes::alloc(device, bytes, std::mem::align_of::<T>())?;
        if bytes > 0 {
            // SAFETY: the memory holds `bytes` writable bytes; zero bytes are a valid value
            // of every element type (false, 0, +0.0).
            unsafe { std::ptr::write_bytes(mem.ptr(), 0, bytes) };
        }
        Ok(PinnedBuffer {
            mem,
            len,
            owner: None,
            _t: PhantomData,
        })
    }

    /// A pinned copy of `data`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let b = cuprum::PinnedBuffer::from_slice(&[1u8, 2, 3])?;
    /// assert_eq!(&b[..], &[1, 2, 3]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_slice(data: &[T]) -> Result<Self> {
        let mut b = Self::zeroed(data.len())?;
        b.copy_from_slice(data);
        Ok(b)
    }

    /// Page-locks the memory of a vector the program already has (`cuMemHostRegister`), so
    /// that copies with it run at the link's speed without another buffer; the vector comes
    /// back unchanged with [`into_vec`](PinnedBuffer::into_vec). Locking takes time
    /// proportional to the size (the driver pins every page): worth it for a buffer that is
    /// copied many times.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let b = cuprum::PinnedBuffer::register(vec![1.5f32; 4])?;
    /// assert!(b.is_registered());
    /// assert_eq!(b.into_vec(), vec![1.5f32; 4]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn register(mut v: Vec<T>) -> Result<Self> {
        let device = Device::current()?;
        let bytes = std::mem::size_of_val(v.as_slice());
        // SAFETY: the vector's elements are one live allocation, kept alive (and never
        // reallocated: the vector is only reached through `owner`, never grown) until the
        // registration is undone in `PinnedBytes`' drop, which runs before `owner`'s.
        let mem = unsafe { PinnedBytes::register(device, v.as_mut_ptr().cast(), bytes) }?;
        let len = v.len();
        Ok(PinnedBuffer {
            mem,
            len,
            owner: Some(v),
            _t: PhantomData,
        })
    }

    /// The elements as a vector: a registered vector comes back as it is (unregistered),
    /// an allocated buffer is copied.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let b = cuprum::PinnedBuffer::from_slice(&[7i64, 8])?;
    /// assert_eq!(b.into_vec(), vec![7, 8]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn into_vec(mut self) -> Vec<T> {
        match self.owner.take() {
            Some(v) => {
                // Unregister before the vector leaves (fields drop in order: `mem` first).
                drop(self);
                v
            }
            None => self.to_vec(),
        }
    }

    /// Whether the memory is a registered vector's ([`register`](PinnedBuffer::register)).
    pub fn is_registered(&self) -> bool {
        self.mem.is_registered()
    }

    /// The device whose backend locked the memory.
    pub fn device(&self) -> Device {
        self.mem.device()
    }

    fn base(&self) -> *mut T {
        if self.len == 0 {
            std::ptr::NonNull::<T>::dangling().as_ptr()
        } else {
            self.mem.ptr().cast()
        }
    }
}

impl<T: Element> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // `mem` (the registration) must end before `owner` (the vector) is freed: replace
        // the memory with an empty one first, which drops the real one now.
        let device = self.mem.device();
        if let Ok(empty) = PinnedBytes::alloc(device, 0, 1) {
            drop(std::mem::replace(&mut self.mem, empty));
        }
    }
}

impl<T: Element> Deref for PinnedBuffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the memory holds `len` initialised elements (zeroed, copied in, a
        // vector's, or written by a finished copy of the same dtype), aligned for `T`
        // (page-aligned, cache-line aligned on the host device, or the vector's).
        unsafe { std::slice::from_raw_parts(self.base(), self.len) }
    }
}

impl<T: Element> DerefMut for PinnedBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`; `&mut self` makes the access exclusive (no copy can be in
        // flight: a copy owns the buffer until it has finished).
        unsafe { std::slice::from_raw_parts_mut(self.base(), self.len) }
    }
}

impl<T: Element + std::fmt::Debug> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedBuffer")
            .field("dtype", &format_args!("{}", T::DTYPE))
            .field("len", &self.len)
            .field("registered", &self.is_registered())
            .field("device", &self.device())
            .finish()
    }
}

/// An asynchronous copy between an array and a [`PinnedBuffer`] in flight: it owns the
/// buffer until the copy has finished. [`wait`](HostCopy::wait) hands the buffer back;
/// dropping the guard waits for the copy and frees the buffer.
#[must_use = "the buffer comes back with `wait()`; dropping the copy waits for it and frees the buffer"]
pub struct HostCopy<T: Element> {
    buf: Option<PinnedBuffer<T>>,
    done: Event,
}

impl<T: Element> HostCopy<T> {
    /// Whether the copy has finished (never blocks).
    pub fn is_done(&self) -> Result<bool> {
        self.done.is_complete()
    }

    /// The event recorded on the copy's stream right after the copy: another stream that
    /// must see the copied data (or must not overwrite its source early) waits for it with
    /// [`Stream::wait_event`], with no event of its own to record. Every event recorded
    /// after a copy costs the copy's stream about a microsecond or more on the GPU (on an
    /// H100, two more events after each of 512 copies of 16 MiB made a three-stream
    /// pipeline of 89.8 ms take 92.2), so pipelines order their stages on this one.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, PinnedBuffer, Stream};
    /// let (upload, compute) = (Stream::new()?, Stream::new()?);
    /// let a = Array::zeros(&[4], DType::F32)?;
    /// let copy = a.copy_from_host_async(PinnedBuffer::from_slice(&[1.0f32, 2.0, 3.0, 4.0])?, &upload)?;
    /// compute.wait_event(copy.event())?;
    /// let squared = compute.with(|| cuprum::ops::multiply(&a, &a))?;
    /// assert_eq!(squared.to_vec::<f32>()?, vec![1.0, 4.0, 9.0, 16.0]);
    /// copy.wait()?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn event(&self) -> &Event {
        &self.done
    }

    /// Waits for the copy and returns the buffer. If the device failed meanwhile, the error
    /// comes back and the buffer is leaked (the copy's end cannot be known).
    pub fn wait(mut self) -> Result<PinnedBuffer<T>> {
        let mut buf = self.finish()?;
        if T::DTYPE == DType::Bool {
            normalise_bools(&mut buf);
        }
        Ok(buf)
    }

    fn finish(&mut self) -> Result<PinnedBuffer<T>> {
        let r = self.done.synchronize();
        let Some(buf) = self.buf.take() else {
            bail!(InvalidArgument, "the copy's buffer was already handed back");
        };
        match r {
            Ok(()) => Ok(buf),
            Err(e) => {
                std::mem::forget(buf);
                Err(e)
            }
        }
    }
}

impl<T: Element> Drop for HostCopy<T> {
    fn drop(&mut self) {
        if self.buf.is_some() {
            let _ = self.finish();
        }
    }
}

/// Rewrites a bool buffer's bytes to 0 or 1 (a raw kernel may have stored other bytes in
/// a bool array; `bool` takes only those two).
fn normalise_bools<T: Element>(buf: &mut PinnedBuffer<T>) {
    let n = buf.len;
    if n == 0 {
        return;
    }
    // SAFETY: T is bool (one byte); the buffer's `n` bytes are read and written as `u8`
    // before anything reads them as `bool`.
    let raw = unsafe { std::slice::from_raw_parts_mut(buf.base().cast::<u8>(), n) };
    for b in raw {
        *b = u8::from(*b != 0);
    }
}

impl Array {
    /// Queues a copy of this array (C order; any view, a non-contiguous one packed on
    /// `stream` first) into `buf` on `stream` and returns at once; the [`HostCopy`] gives
    /// the buffer back when the copy has finished. `T` must be the array's dtype and
    /// `buf.len()` its size (otherwise a `DType` / `Shape` error, and `buf` is dropped).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ErrorKind, PinnedBuffer, Stream};
    /// let s = Stream::current()?;
    /// let a = Array::arange(0.0, 4.0, 1.0, DType::I32)?.reshape(&[2, 2])?;
    /// let out = a.t().copy_to_host_async(PinnedBuffer::<i32>::zeroed(4)?, &s)?.wait()?;
    /// assert_eq!(&out[..], &[0, 2, 1, 3]);
    /// let bad = a.copy_to_host_async(PinnedBuffer::<i32>::zeroed(3)?, &s);
    /// assert_eq!(bad.err().map(|e| e.kind()), Some(ErrorKind::Shape));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn copy_to_host_async<T: Element>(
        &self,
        buf: PinnedBuffer<T>,
        stream: &Stream,
    ) -> Result<HostCopy<T>> {
        self.check_host_copy::<T>("copy_to_host_async", buf.len(), stream)?;
        let packed;
        let src = if self.is_c_contiguous() {
            self
        } else {
            packed = Array::empty_on(&self.shape, self.dtype, stream)?;
            kernels::copy(self, &packed, stream)?;
            &packed
        };
        let done = Event::new_on(stream.device())?;
        if !buf.is_empty() {
            let device = stream.device();
            device.check_fault()?;
            // SAFETY: `src` is contiguous with `buf.len()` elements of `T` (checked), its
            // memory stays allocated until the copy has run on `stream` (`ptr_on` records
            // the use); the buffer moves into the guard, which keeps it untouched and
            // allocated until the copy's event has completed.
            unsafe { stream.copy_dtoh_async(buf.base().cast(), src.ptr_on(stream), src.nbytes()) }?;
        }
        done.record(stream)?;
        Ok(HostCopy {
            buf: Some(buf),
            done,
        })
    }

    /// Queues a copy of `buf` (C order) into this array (any view; a non-contiguous one is
    /// filled through a contiguous copy on `stream`) and returns at once; the
    /// [`HostCopy`] gives the buffer back when the copy has read it. Work queued later on
    /// `stream` sees the new values. `T` must be the array's dtype and `buf.len()` its size.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, PinnedBuffer, Stream};
    /// let s = Stream::current()?;
    /// let a = Array::zeros(&[3], DType::F64)?;
    /// let buf = a.copy_from_host_async(PinnedBuffer::from_slice(&[1.0, 2.0, 3.0])?, &s)?.wait()?;
    /// assert_eq!(a.to_vec::<f64>()?, vec![1.0, 2.0, 3.0]);
    /// assert_eq!(buf.len(), 3);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn copy_from_host_async<T: Element>(
        &self,
        buf: PinnedBuffer<T>,
        stream: &Stream,
    ) -> Result<HostCopy<T>> {
        self.check_writeable("copy_from_host_async")?;
        self.check_host_copy::<T>("copy_from_host_async", buf.len(), stream)?;
        let staged = if self.is_c_contiguous() {
            None
        } else {
            Some(Array::empty_on(&self.shape, self.dtype, stream)?)
        };
        let dst = staged.as_ref().unwrap_or(self);
        let done = Event::new_on(stream.device())?;
        if !buf.is_empty() {
            let device = stream.device();
            device.check_fault()?;
            // SAFETY: `dst` is contiguous with `buf.len()` elements of `T` (checked), its
            // memory stays allocated until the copy has run on `stream` (`ptr_on`); the
            // buffer holds valid `T`s and moves into the guard, which keeps it unchanged
            // and allocated until the copy's event has completed.
            unsafe { stream.copy_htod_async(dst.ptr_on(stream), buf.base().cast(), dst.nbytes()) }?;
        }
        if let Some(staged) = &staged {
            kernels::copy(staged, self, stream)?;
        }
        done.record(stream)?;
        Ok(HostCopy {
            buf: Some(buf),
            done,
        })
    }

    fn check_host_copy<T: Element>(&self, what: &str, len: usize, stream: &Stream) -> Result<()> {
        crate::runtime::refuse_in_capture(what, stream)?;
        if T::DTYPE != self.dtype {
            bail!(
                DType,
                "{what}: the array holds {} but the buffer {} ({})",
                self.dtype,
                T::DTYPE,
                T::DTYPE.rust_name()
            );
        }
        if len != self.size() {
            bail!(
                Shape,
                "{what}: the array of shape {} has {} elements, the buffer {len}",
                format_shape(&self.shape),
                self.size()
            );
        }
        if stream.device() != self.device() {
            bail!(
                InvalidArgument,
                "{what}: the array lives on {} but the stream belongs to {}",
                self.device(),
                stream.device()
            );
        }
        Ok(())
    }
}
