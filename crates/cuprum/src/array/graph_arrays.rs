//! `Graph::rebind`: swapping the arrays a captured graph reads and writes for later runs,
//! without capturing it again (CUDA's executable-graph update, driven by arrays).
//!
//! A graph replays fixed addresses; rebinding rewrites them. The replacement must have the
//! replaced array's dtype, shape and strides: the captured kernels keep their shapes,
//! strides and launch sizes, only the memory moves. Every address inside the old array's
//! bytes (its lowest to its highest element) moves to the same offset in the new one —
//! kernel arguments, copies and memsets alike (how the words are found:
//! `runtime/cuda/graph_rebind.rs`). Memory of the old array's buffer outside those bytes
//! (another view of it) is not touched. The graph keeps the new array's memory for as
//! long as it can run and lets the old one go once no node uses it and earlier runs are
//! done. Only later launches see the change; a run already queued keeps the old arrays.

use super::device_array::Array;
use crate::error::{Result, bail};
use crate::runtime::Graph;

impl Graph {
    /// Makes every later [`launch`](Graph::launch) use `new` where the captured work used
    /// `old` (same dtype, shape and strides), without capturing again; returns how many
    /// addresses in the graph changed. A graph made once then serves many inputs and
    /// outputs, e.g. a ring of buffers in a pipeline.
    ///
    /// Errors: `new` of another dtype, shape or strides than `old`, either on another
    /// device than the graph, an empty array, or an `old` the captured work does not use.
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// use cuprum::{Array, ElementwiseKernel, Stream};
    /// let s = Stream::new()?;
    /// let k = ElementwiseKernel::new("T x", "T y", "y = 2 * x + 1", "twice_plus_one")?;
    /// let x = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    /// let y = Array::from_slice(&[0.0f32; 3], &[3])?;
    /// let (mut graph, ()) = s.capture(|| k.run((&x, &y)))?;
    /// let (x2, y2) = (Array::from_slice(&[10.0f32, 20.0, 30.0], &[3])?, Array::empty_like(&y)?);
    /// graph.rebind(&x, &x2)?;
    /// graph.rebind(&y, &y2)?;
    /// graph.launch(&s)?;
    /// s.synchronize()?;
    /// assert_eq!(y2.to_vec::<f32>()?, vec![21.0, 41.0, 61.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn rebind(&mut self, old: &Array, new: &Array) -> Result<usize> {
        check_same_layout(old, new)?;
        for (a, which) in [(old, "old"), (new, "new")] {
            if a.device() != self.device() {
                bail!(
                    DeviceMismatch,
                    "Graph::rebind: the {which} array is on {} but the graph runs on {}",
                    a.device(),
                    self.device()
                );
            }
        }
        let from = byte_span(old)?;
        let to = new.data_ptr() - (old.data_ptr() - from.start);
        self.rebind_buffer(&old.buf, from, &new.buf, to)
    }
}

/// The two arrays have one dtype, shape and strides.
fn check_same_layout(old: &Array, new: &Array) -> Result<()> {
    if old.dtype() != new.dtype() {
        bail!(
            DType,
            "Graph::rebind: the new array must have the old array's dtype {}, got {}",
            old.dtype(),
            new.dtype()
        );
    }
    if old.shape() != new.shape() || old.strides() != new.strides() {
        bail!(
            Shape,
            "Graph::rebind: the new array must have the old array's shape {:?} and strides \
             {:?}, got shape {:?} and strides {:?}",
            old.shape(),
            old.strides(),
            new.shape(),
            new.strides()
        );
    }
    Ok(())
}

/// The device bytes from `a`'s lowest element to the end of its highest one.
fn byte_span(a: &Array) -> Result<std::ops::Range<u64>> {
    if a.shape().contains(&0) {
        bail!(
            InvalidArgument,
            "Graph::rebind of an empty array (shape {:?}): the captured work touches none of \
             its memory",
            a.shape()
        );
    }
    let item = a.dtype().itemsize() as i128;
    let (mut lo, mut hi) = (0i128, 0i128);
    for (&n, &s) in a.shape().iter().zip(a.strides()) {
        let reach = (n as i128 - 1) * s as i128 * item;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    let p = a.data_ptr() as i128;
    Ok((p + lo) as u64..(p + hi + item) as u64)
}
