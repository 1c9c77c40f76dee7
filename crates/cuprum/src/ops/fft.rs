//! Discrete Fourier transforms: NumPy's `numpy.fft` (CuPy's `cupy.fft`) over cuFFT on a
//! GPU and `rustfft` on the host device — [`fft`], [`ifft`], [`fft2`], [`ifft2`], [`fftn`],
//! [`ifftn`], the real transforms [`rfft`], [`irfft`], [`rfft2`], [`irfft2`], [`rfftn`],
//! [`irfftn`], the Hermitian ones [`hfft`], [`ihfft`], and the helpers [`fftfreq`],
//! [`rfftfreq`], [`fftshift`], [`ifftshift`].
//!
//! Precision follows CuPy, not NumPy 1: float16, float32 and complex64 inputs transform in
//! single precision (complex64 results, float32 for the inverse real transforms),
//! everything else (integers, bool, float64, complex128) in double precision. A complex
//! input to a real transform loses its imaginary part (CuPy's cast).
//!
//! How a transform runs: lengths are fitted first (`n` / `s`: an axis is cut to its first
//! `n` values or zero-padded at the end), then the axes go to the backend in groups of up
//! to three (cuFFT's plans have at most three axes; a transform over several axes is
//! separable): each group's axes are moved last and the data made C-contiguous (a copy
//! only where the axes are not already the trailing ones of a contiguous array), one
//! batched plan runs over all the other axes at once, and the result is viewed back in the
//! original axis order. The real transforms keep NumPy's axis roles: `rfftn` halves the
//! *last axis given* (its group runs first, as cuFFT's R2C), `irfftn` transforms the other
//! axes back first and rebuilds the last given axis last (C2R, on a copy: cuFFT overwrites
//! a C2R input). Normalisation (`norm`) is one scale of the result. Results are new arrays
//! on the input's device, queued on its stream: C-contiguous when the transform's last
//! group is the trailing axes, else (as CuPy's) the plan's output viewed in the input's
//! axis order, which saves copying it back.
//!
//! Measured and not taken (H100, 2026-12-06, cuFFT 12 outside the library, one run, µs):
//! transforming leading axes where they lie (cuFFT's strided layout: stride = the trailing
//! axes' size, distance 1) instead of moving them last — the columns of a 4096 × 2049
//! complex64 array took 126.3 out of place and 104.0 in place, where the contiguous
//! columns after a transposing copy take 54.6 plus the copy (about 45); and splitting a
//! real transform of a whole array into the rows' R2C and the other axes' C2C (PyTorch's
//! order): `rfft2` of 4096² float32 52.8 + 104.0 against 154.1 for one 2-d R2C plan, and
//! `rfftn` of 256³ 470.1 against 167.3 for one 3-d plan. One plan per group of trailing
//! axes stays.
//!
//! Two single-precision axes on a GPU with thread-block clusters (`fft_columns.rs`, where
//! the tuned choice `fft.columns` takes the length): cuFFT's 1-d plan over the rows, and
//! cuprum's own column pass in place in the C-ordered result (for C2R first, in the
//! input's copy, then the rows' C2R plan). Why (`ncu` on an H100, 2026-12-06, the kernels
//! of each library's `rfft2` of 4096² float32, µs): all three ran cuFFT's
//! `vector_fft_symm_r2c` over the rows (44.5), then the columns — PyTorch as a separate 1-d
//! C2C plan that reads the rows' result strided and writes each column contiguously
//! (`regular_fft`, 72.4; its result has strides (1, 4096) in elements, column-major), CuPy
//! and cuprum within the 2-d plan, in place in the C-ordered result (`regular_fft_factor`,
//! 97.0–98.4), reading 8 bytes of each row at a time. cuprum keeps NumPy's and CuPy's
//! layout (a column-major result would break `view` to another item size and raw kernels
//! that index the result as C-ordered), so its column pass has to be faster in that
//! layout; `fft_columns.rs` has its design and measurements (the whole `rfft2` 154.5 →
//! 137.4 µs on an H100, PyTorch's 133–135 in the same runs; with the twiddles in a
//! constant table, 130.8 µs against PyTorch's 133.9 in one run of 2026-12-07).
//!
//! Measured and not taken before it (H100, 2026-12-06, one run): a column pass of one
//! block per `C` adjacent columns (no cluster) — a Stockham radix-16 FFT of the 4096-value
//! columns in shared memory, the block reading them row by row. The pass alone took 107.8
//! µs for `C` = 4 (1024 threads, 160 KiB of shared memory: one block per SM), 138.0–150.5
//! for `C` = 2 and 208.2–227.4 for `C` = 1; as a tuned family, `rfft2` of 4096²: cuFFT's
//! two-axis plan 156.9, `C` = 4 166.9. A block read 8 × `C` bytes of each row (32 at most:
//! four columns of 4096 complex64 are 128 KiB, and the rows of 2049 values are not
//! sector-aligned), as scattered as cuFFT's reads; the cluster's 16 columns are one
//! 128-byte segment of a row.

use super::fft_columns::{columns_per_block, plan_into, rows_then_columns};
use crate::array::shape::normalize_axis;
use crate::array::{Array, DType, SliceArg};
use crate::error::{Result, bail};
use crate::runtime::{FftKind, Stream};
use smallvec::SmallVec;

type Axes = SmallVec<[usize; 4]>;

/// Which direction carries the `1/n` scale (NumPy's `norm` argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Norm {
    /// The inverse transforms scale by `1/n`, the forward ones not at all (`"backward"`,
    /// NumPy's default).
    #[default]
    Backward,
    /// Both directions scale by `1/√n` (`"ortho"`).
    Ortho,
    /// The forward transforms scale by `1/n`, the inverse ones not at all (`"forward"`).
    Forward,
}

impl Norm {
    /// NumPy's spelling: `None` and `"backward"`, `"ortho"`, `"forward"`.
    ///
    /// ```
    /// use cuprum::ops::fft::Norm;
    /// assert_eq!(Norm::parse(Some("ortho"))?, Norm::Ortho);
    /// assert_eq!(Norm::parse(None)?, Norm::Backward);
    /// assert!(Norm::parse(Some("both")).is_err());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn parse(norm: Option<&str>) -> Result<Norm> {
        Ok(match norm {
            None | Some("backward") => Norm::Backward,
            Some("ortho") => Norm::Ortho,
            Some("forward") => Norm::Forward,
            Some(other) => bail!(
                InvalidArgument,
                "Invalid norm value {other}; should be \"backward\", \"ortho\" or \"forward\"."
            ),
        })
    }

    /// The other direction's scaling (what `hfft` and `ihfft` use).
    fn swapped(self) -> Norm {
        match self {
            Norm::Backward => Norm::Forward,
            Norm::Ortho => Norm::Ortho,
            Norm::Forward => Norm::Backward,
        }
    }

    /// The scale of a transform of `n` points in direction `forward` (`None`: 1).
    fn factor(self, n: usize, forward: bool) -> Option<f64> {
        match (self, forward) {
            (Norm::Ortho, _) => Some(1.0 / (n as f64).sqrt()),
            (Norm::Backward, false) | (Norm::Forward, true) => Some(1.0 / n as f64),
            _ => None,
        }
    }
}

/// The complex dtype a complex-to-complex transform of `d` computes in.
fn complex_of(d: DType) -> DType {
    match d {
        DType::F16 | DType::BF16 | DType::F32 | DType::C64 => DType::C64,
        _ => DType::C128,
    }
}

/// The real dtype a real-to-complex transform of `d` reads.
fn real_of(d: DType) -> DType {
    match d {
        DType::F16 | DType::BF16 | DType::F32 | DType::C64 => DType::F32,
        _ => DType::F64,
    }
}

fn check_records(a: &Array, what: &str) -> Result<()> {
    if a.dtype().is_record() {
        bail!(
            DType,
            "{what}: a record dtype has no Fourier transform (got {})",
            a.dtype()
        );
    }
    Ok(())
}

/// `a` in dtype `d` (a view when it already is).
fn cast(a: &Array, d: DType) -> Result<Array> {
    if a.dtype() == d {
        Ok(a.clone())
    } else if a.dtype().is_complex() && !d.is_complex() {
        crate::ops::real(a)?.astype(d)
    } else {
        a.astype(d)
    }
}

fn check_points(n: usize) -> Result<()> {
    if n < 1 {
        bail!(
            InvalidArgument,
            "Invalid number of FFT data points ({n}) specified."
        );
    }
    Ok(())
}

/// `a` with axis `axis` cut to its first `n` values or zero-padded at the end to `n`.
fn fit(a: &Array, axis: usize, n: usize) -> Result<Array> {
    let len = a.shape()[axis];
    if n == len {
        return Ok(a.clone());
    }
    let mut args: Vec<SliceArg> = vec![
        SliceArg::Range {
            start: None,
            end: None,
            step: 1
        };
        a.ndim()
    ];
    if n < len {
        args[axis] = SliceArg::Range {
            start: None,
            end: Some(n as isize),
            step: 1,
        };
        return a.slice(&args);
    }
    let mut shape = a.shape().to_vec();
    shape[axis] = n;
    let out = Array::zeros(&shape, a.dtype())?;
    args[axis] = SliceArg::Range {
        start: None,
        end: Some(len as isize),
        step: 1,
    };
    out.slice(&args)?.assign(a)?;
    Ok(out)
}

/// The normalised axes (`None`: all of them), refusing repeats.
fn axes_of(a: &Array, axes: Option<&[isize]>) -> Result<Axes> {
    let Some(axes) = axes else {
        return Ok((0..a.ndim()).collect());
    };
    let mut out = Axes::new();
    for &ax in axes {
        let ax = normalize_axis(ax, a.ndim())?;
        if out.contains(&ax) {
            bail!(Shape, "Duplicate axes not allowed.");
        }
        out.push(ax);
    }
    Ok(out)
}

/// Axes and lengths of an n-d transform from NumPy's `s` and `axes` (`s` alone takes the
/// last `len(s)` axes; `axes` alone keeps the lengths; the lengths of `real_last`'s last
/// axis default to `2 (m - 1)` for the inverse real transforms).
fn cook(
    a: &Array,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    inverse_real: bool,
) -> Result<(Axes, SmallVec<[usize; 4]>)> {
    if a.ndim() == 0 {
        bail!(
            Shape,
            "a Fourier transform needs at least one axis (got a 0-d array)"
        );
    }
    let axes: Axes = match (s, axes) {
        (Some(s), Some(axes)) if s.len() != axes.len() => {
            bail!(Shape, "Shape and axes have different lengths.")
        }
        (Some(s), None) => {
            if s.len() > a.ndim() {
                bail!(
                    Shape,
                    "Shape has more entries ({}) than the array has axes ({})",
                    s.len(),
                    a.ndim()
                );
            }
            (a.ndim() - s.len()..a.ndim()).collect()
        }
        (_, axes) => axes_of(a, axes)?,
    };
    let lens: SmallVec<[usize; 4]> = match s {
        Some(s) => s.iter().copied().collect(),
        None => {
            let mut l: SmallVec<[usize; 4]> = axes.iter().map(|&ax| a.shape()[ax]).collect();
            if inverse_real && let Some(last) = l.last_mut() {
                *last = 2 * last.saturating_sub(1);
            }
            l
        }
    };
    for &n in &lens {
        check_points(n)?;
    }
    Ok((axes, lens))
}

/// Runs one backend plan over `group` (≤ 3 axes, moved last in this order) of `x`.
/// `out_last` is the last axis' real-space length of a C2R transform.
fn run_group(
    x: &Array,
    group: &[usize],
    kind: FftKind,
    forward: bool,
    out_last: usize,
) -> Result<Array> {
    let nd = x.ndim();
    let mut perm: SmallVec<[isize; 8]> = (0..nd)
        .filter(|ax| !group.contains(ax))
        .map(|ax| ax as isize)
        .collect();
    let batch_axes = perm.len();
    perm.extend(group.iter().map(|&ax| ax as isize));
    let moved = x.permute(&perm)?;
    // cuFFT overwrites a C2R input: never the caller's memory.
    let y = if kind == FftKind::C2R && moved.is_c_contiguous() {
        moved.copy()?
    } else {
        moved.to_contiguous()?
    };
    let mut shape: SmallVec<[usize; 8]> = y.shape().iter().copied().collect();
    let mut dims: SmallVec<[usize; 3]> = shape[batch_axes..].iter().copied().collect();
    let last = nd - 1;
    let double = matches!(y.dtype(), DType::F64 | DType::C128);
    let want_in = match (kind, double) {
        (FftKind::R2C, false) => DType::F32,
        (FftKind::R2C, true) => DType::F64,
        (_, false) => DType::C64,
        (_, true) => DType::C128,
    };
    // The plan reads exactly the elements these imply: anything else is refused here.
    if y.dtype() != want_in || (kind == FftKind::C2R && shape[last] != out_last / 2 + 1) {
        bail!(
            InvalidArgument,
            "an FFT of kind {kind:?} cannot read {} data of shape {}",
            y.dtype(),
            crate::array::shape::format_shape(y.shape())
        );
    }
    let out_dtype = match (kind, double) {
        (FftKind::C2R, false) => DType::F32,
        (FftKind::C2R, true) => DType::F64,
        (_, false) => DType::C64,
        (_, true) => DType::C128,
    };
    match kind {
        FftKind::C2C => {}
        FftKind::R2C => shape[last] = shape[last] / 2 + 1,
        FftKind::C2R => {
            shape[last] = out_last;
            if let Some(l) = dims.last_mut() {
                *l = out_last;
            }
        }
    }
    let stream = Stream::for_device(y.device())?;
    let out = Array::empty_on(&shape, out_dtype, &stream)?;
    let batch: usize = shape[..batch_axes].iter().product();
    if batch > 0 && out.size() > 0 {
        let columns = match dims[..] {
            [rows, _] if !double => columns_per_block(stream.device(), rows)?,
            _ => None,
        };
        match columns {
            None => plan_into(&stream, kind, double, dims, batch, &y, &out, forward)?,
            // The two axes as cuFFT's 1-d plan over the rows and cuprum's column pass.
            Some(l) => {
                let n = dims[1];
                rows_then_columns(&stream, kind, [batch, dims[0], n], &y, &out, l, forward)?
            }
        }
    }
    let mut back: SmallVec<[isize; 8]> = SmallVec::from_elem(0, nd);
    for (i, &p) in perm.iter().enumerate() {
        back[p as usize] = i as isize;
    }
    out.permute(&back)
}

/// Complex-to-complex transforms of `x` (complex) over `axes`, unnormalised.
fn c2c_axes(mut x: Array, axes: &[usize], forward: bool) -> Result<Array> {
    let mut rest = axes;
    while !rest.is_empty() {
        let cut = rest.len().saturating_sub(3);
        x = run_group(&x, &rest[cut..], FftKind::C2C, forward, 0)?;
        rest = &rest[..cut];
    }
    Ok(x)
}

/// Scales `x` (a fresh result) by `norm`'s factor for `n` points.
fn finish(x: Array, norm: Norm, n: usize, forward: bool) -> Result<Array> {
    if let Some(f) = norm.factor(n, forward) {
        if matches!(x.dtype(), DType::F32 | DType::C64) {
            crate::ops::multiply_into(&x, f as f32, &x)?;
        } else {
            crate::ops::multiply_into(&x, f, &x)?;
        }
    }
    Ok(x)
}

/// The complex transform over `axes` with lengths `lens` (both cooked).
fn complex_nd(a: &Array, axes: &[usize], lens: &[usize], norm: Norm, fwd: bool) -> Result<Array> {
    let mut x = cast(a, complex_of(a.dtype()))?;
    for (&ax, &n) in axes.iter().zip(lens) {
        x = fit(&x, ax, n)?;
    }
    if axes.is_empty() {
        return x.copy();
    }
    let y = c2c_axes(x, axes, fwd)?;
    finish(y, norm, lens.iter().product(), fwd)
}

fn real_nd(a: &Array, axes: &[usize], lens: &[usize], norm: Norm) -> Result<Array> {
    let mut x = cast(a, real_of(a.dtype()))?;
    for (&ax, &n) in axes.iter().zip(lens) {
        x = fit(&x, ax, n)?;
    }
    let cut = axes.len().saturating_sub(3);
    let y = run_group(&x, &axes[cut..], FftKind::R2C, true, 0)?;
    let y = c2c_axes(y, &axes[..cut], true)?;
    finish(y, norm, lens.iter().product(), true)
}

fn inverse_real_nd(a: &Array, axes: &[usize], lens: &[usize], norm: Norm) -> Result<Array> {
    let mut x = cast(a, complex_of(a.dtype()))?;
    let k = axes.len();
    for (i, (&ax, &n)) in axes.iter().zip(lens).enumerate() {
        x = fit(&x, ax, if i + 1 == k { n / 2 + 1 } else { n })?;
    }
    let cut = k.saturating_sub(3);
    let x = c2c_axes(x, &axes[..cut], false)?;
    let y = run_group(&x, &axes[cut..], FftKind::C2R, false, lens[k - 1])?;
    finish(y, norm, lens.iter().product(), false)
}

fn one(a: &Array, n: Option<usize>, axis: isize) -> Result<(Axes, SmallVec<[usize; 4]>)> {
    if a.ndim() == 0 {
        bail!(
            Shape,
            "a Fourier transform needs at least one axis (got a 0-d array)"
        );
    }
    let ax = normalize_axis(axis, a.ndim())?;
    let n = n.unwrap_or(a.shape()[ax]);
    check_points(n)?;
    Ok((SmallVec::from_slice(&[ax]), SmallVec::from_slice(&[n])))
}

/// Runs `f` on `a`'s device (its stream current), checking the dtype first.
fn on_device(a: &Array, what: &str, f: impl Fn() -> Result<Array>) -> Result<Array> {
    check_records(a, what)?;
    if let Some(r) = super::programs::elsewhere_then(a, &f) {
        return r;
    }
    f()
}

/// The 1-D discrete Fourier transform along `axis` (NumPy's `fft.fft`): `n` points (the
/// axis cut or zero-padded; `None`: its length).
///
/// Errors: [`Shape`](crate::ErrorKind::Shape) for a 0-d array or an axis out of range,
/// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) for `n = 0` (or an empty axis),
/// [`DType`](crate::ErrorKind::DType) for records, [`Fft`](crate::ErrorKind::Fft) when cuFFT
/// is missing or fails.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops::fft::{self, Norm}};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4])?;
/// let f = fft::fft(&a, None, -1, Norm::Backward)?;          // complex128
/// let v: Vec<num_complex::Complex64> = f.to_vec()?;
/// assert_eq!((v[0].re, v[1].re, v[1].im, v[2].re), (10.0, -2.0, 2.0, -2.0));
/// let back = fft::ifft(&f, None, -1, Norm::Backward)?;
/// let b: Vec<num_complex::Complex64> = back.to_vec()?;
/// assert!((b[3].re - 4.0).abs() < 1e-12 && b[3].im.abs() < 1e-12);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn fft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    on_device(a, "fft", || {
        let (axes, lens) = one(a, n, axis)?;
        complex_nd(a, &axes, &lens, norm, true)
    })
}

/// The inverse of [`fft`] (NumPy's `fft.ifft`), scaled by `1/n` by default.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops::fft::{self, Norm}};
/// let a = Array::from_slice(&[4.0f32, 0.0, 0.0, 0.0], &[4])?;
/// let x = fft::ifft(&a, None, 0, Norm::Backward)?;
/// assert_eq!(x.dtype(), DType::C64);
/// let v: Vec<num_complex::Complex32> = x.to_vec()?;
/// assert!(v.iter().all(|c| (c.re - 1.0).abs() < 1e-6 && c.im.abs() < 1e-6));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn ifft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    on_device(a, "ifft", || {
        let (axes, lens) = one(a, n, axis)?;
        complex_nd(a, &axes, &lens, norm, false)
    })
}

/// The n-d discrete Fourier transform (NumPy's `fft.fftn`): over `axes` (`None`: all, or
/// the last `s.len()` when `s` is given), each fitted to its entry of `s`.
///
/// Errors: as [`fft`], plus [`Shape`](crate::ErrorKind::Shape) when `s` and `axes` differ
/// in length or an axis repeats.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops::fft::{self, Norm}};
/// let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// let f = fft::fftn(&a, None, None, Norm::Backward)?;
/// let v: Vec<num_complex::Complex32> = f.to_vec()?;
/// assert_eq!((v[0].re, v[3].re), (21.0, -9.0));            // sum, row difference
/// let g = fft::fftn(&a, Some(&[4]), Some(&[1]), Norm::Backward)?;  // axis 1 padded to 4
/// assert_eq!(g.shape(), &[2, 4]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn fftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    on_device(a, "fftn", || {
        let (axes, lens) = cook(a, s, axes, false)?;
        complex_nd(a, &axes, &lens, norm, true)
    })
}

/// The inverse of [`fftn`] (NumPy's `fft.ifftn`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops::fft::{self, Norm}};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// let back = fft::ifftn(&fft::fftn(&a, None, None, Norm::Ortho)?, None, None, Norm::Ortho)?;
/// let v: Vec<num_complex::Complex64> = back.to_vec()?;
/// assert!((v[2].re - 3.0).abs() < 1e-12);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn ifftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    on_device(a, "ifftn", || {
        let (axes, lens) = cook(a, s, axes, false)?;
        complex_nd(a, &axes, &lens, norm, false)
    })
}

/// The 2-d transform (NumPy's `fft.fft2`): [`fftn`] over `axes` (NumPy's default
/// `[-2, -1]`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops::fft::{self, Norm}};
/// let a = Array::ones(&[3, 4, 5], DType::F32)?;
/// let f = fft::fft2(&a, None, &[-2, -1], Norm::Backward)?;
/// let v: Vec<num_complex::Complex32> = f.to_vec()?;
/// assert_eq!((v[0].re, v[1].re, v[20].re), (20.0, 0.0, 20.0));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn fft2(a: &Array, s: Option<&[usize]>, axes: &[isize], norm: Norm) -> Result<Array> {
    fftn(a, s, Some(axes), norm)
}

/// The inverse of [`fft2`] (NumPy's `fft.ifft2`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops::fft::{self, Norm}};
/// let a = Array::ones(&[2, 2], DType::C64)?;
/// let x = fft::ifft2(&a, None, &[-2, -1], Norm::Backward)?;
/// let v: Vec<num_complex::Complex32> = x.to_vec()?;
/// assert_eq!((v[0].re, v[1].re), (1.0, 0.0));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn ifft2(a: &Array, s: Option<&[usize]>, axes: &[isize], norm: Norm) -> Result<Array> {
    ifftn(a, s, Some(axes), norm)
}

/// The transform of real input (NumPy's `fft.rfft`): the `n / 2 + 1` non-negative
/// frequencies along `axis`.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops::fft::{self, Norm}};
/// let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5])?;
/// let f = fft::rfft(&a, None, -1, Norm::Backward)?;
/// assert_eq!((f.shape(), f.dtype()), (&[3usize][..], DType::C64));
/// let v: Vec<num_complex::Complex32> = f.to_vec()?;
/// assert_eq!(v[0].re, 15.0);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn rfft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    on_device(a, "rfft", || {
        let (axes, lens) = one(a, n, axis)?;
        real_nd(a, &axes, &lens, norm)
    })
}

/// The inverse of [`rfft`] (NumPy's `fft.irfft`): `n` real values along `axis` (`None`:
/// `2 (m - 1)` for `m` input values); the input is cut or padded to `n / 2 + 1`.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops::fft::{self, Norm}};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0], &[5])?;
/// let back = fft::irfft(&fft::rfft(&a, None, 0, Norm::Backward)?, Some(5), 0, Norm::Backward)?;
/// let v: Vec<f64> = back.to_vec()?;
/// assert!(v.iter().zip([1.0, 2.0, 3.0, 4.0, 5.0]).all(|(x, y)| (x - y).abs() < 1e-12));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn irfft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    on_device(a, "irfft", || {
        let (axes, mut lens) = one(a, n, axis)?;
        if n.is_none() {
            lens[0] = 2 * a.shape()[axes[0]].saturating_sub(1);
            check_points(lens[0])?;
        }
        inverse_real_nd(a, &axes, &lens, norm)
    })
}

/// The n-d transform of real input (NumPy's `fft.rfftn`): the last axis given is halved.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops::fft::{self, Norm}};
/// let a = Array::ones(&[4, 6], DType::F64)?;
/// let f = fft::rfftn(&a, None, None, Norm::Backward)?;
/// assert_eq!(f.shape(), &[4, 4]);
/// let g = fft::rfftn(&a, None, Some(&[1, 0]), Norm::Backward)?;  // axis 0 halved
/// assert_eq!(g.shape(), &[3, 6]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn rfftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    on_device(a, "rfftn", || {
        let (axes, lens) = cook(a, s, axes, false)?;
        if axes.is_empty() {
            bail!(Shape, "rfftn needs at least one axis");
        }
        real_nd(a, &axes, &lens, norm)
    })
}

/// The inverse of [`rfftn`] (NumPy's `fft.irfftn`): the last axis given becomes `s`'s last
/// entry (`None`: `2 (m - 1)`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops::fft::{self, Norm}};
/// let a = Array::ones(&[4, 6], DType::F32)?;
/// let f = fft::rfftn(&a, None, None, Norm::Backward)?;
/// let back = fft::irfftn(&f, Some(&[4, 6]), None, Norm::Backward)?;
/// assert_eq!((back.shape(), back.dtype()), (&[4usize, 6][..], DType::F32));
/// assert!(back.to_vec::<f32>()?.iter().all(|v| (v - 1.0).abs() < 1e-6));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn irfftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    on_device(a, "irfftn", || {
        let (axes, lens) = cook(a, s, axes, true)?;
        if axes.is_empty() {
            bail!(Shape, "irfftn needs at least one axis");
        }
        inverse_real_nd(a, &axes, &lens, norm)
    })
}

/// [`rfftn`] over two axes (NumPy's `fft.rfft2`, default `[-2, -1]`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops::fft::{self, Norm}};
/// let f = fft::rfft2(&Array::ones(&[2, 8, 8], DType::F32)?, None, &[-2, -1], Norm::Backward)?;
/// assert_eq!(f.shape(), &[2, 8, 5]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn rfft2(a: &Array, s: Option<&[usize]>, axes: &[isize], norm: Norm) -> Result<Array> {
    rfftn(a, s, Some(axes), norm)
}

/// [`irfftn`] over two axes (NumPy's `fft.irfft2`, default `[-2, -1]`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops::fft::{self, Norm}};
/// let x = fft::irfft2(&Array::ones(&[8, 5], DType::C64)?, None, &[-2, -1], Norm::Backward)?;
/// assert_eq!(x.shape(), &[8, 8]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn irfft2(a: &Array, s: Option<&[usize]>, axes: &[isize], norm: Norm) -> Result<Array> {
    irfftn(a, s, Some(axes), norm)
}

/// The transform of a Hermitian-symmetric signal (NumPy's `fft.hfft`): `n` real values
/// (`None`: `2 (m - 1)`), `irfft` of the conjugate with the other direction's scaling.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops::fft::{self, Norm}};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// let h = fft::hfft(&a, None, -1, Norm::Backward)?;        // [1, 2, 3, 2] transformed
/// assert_eq!(h.to_vec::<f64>()?, vec![8.0, -2.0, 0.0, -2.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn hfft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    on_device(a, "hfft", || {
        let c = crate::ops::conjugate(&cast(a, complex_of(a.dtype()))?)?;
        irfft(&c, n, axis, norm.swapped())
    })
}

/// The inverse of [`hfft`] (NumPy's `fft.ihfft`): the conjugate of `rfft` with the other
/// direction's scaling.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops::fft::{self, Norm}};
/// let a = Array::from_slice(&[8.0f64, -2.0, 0.0, -2.0], &[4])?;
/// let v: Vec<num_complex::Complex64> = fft::ihfft(&a, None, -1, Norm::Backward)?.to_vec()?;
/// assert_eq!((v[0].re, v[1].re, v[2].re), (1.0, 2.0, 3.0));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn ihfft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    on_device(a, "ihfft", || {
        let r = rfft(a, n, axis, norm.swapped())?;
        crate::ops::conjugate(&r)
    })
}

/// The sample frequencies of an `n`-point transform with sample spacing `d` (NumPy's
/// `fft.fftfreq`): `[0, 1, …, ⌈n/2⌉ - 1, -⌊n/2⌋, …, -1] / (d n)`, float64.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// let f = cuprum::ops::fft::fftfreq(5, 0.5)?;
/// assert_eq!(f.to_vec::<f64>()?, vec![0.0, 0.4, 0.8, -0.8, -0.4]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn fftfreq(n: usize, d: f64) -> Result<Array> {
    check_points(n)?;
    let val = 1.0 / (n as f64 * d);
    let pos = n.div_ceil(2);
    let v: Vec<f64> = (0..n)
        .map(|i| {
            let k = if i < pos {
                i as f64
            } else {
                i as f64 - n as f64
            };
            k * val
        })
        .collect();
    Array::from_slice(&v, &[n])
}

/// The sample frequencies of [`rfft`] (NumPy's `fft.rfftfreq`): `[0, 1, …, ⌊n/2⌋] / (d n)`.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// let f = cuprum::ops::fft::rfftfreq(4, 1.0)?;
/// assert_eq!(f.to_vec::<f64>()?, vec![0.0, 0.25, 0.5]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn rfftfreq(n: usize, d: f64) -> Result<Array> {
    check_points(n)?;
    let val = 1.0 / (n as f64 * d);
    let v: Vec<f64> = (0..n / 2 + 1).map(|i| i as f64 * val).collect();
    Array::from_slice(&v, &[n / 2 + 1])
}

fn shift(a: &Array, axes: Option<&[isize]>, inverse: bool) -> Result<Array> {
    let axes = axes_of(a, axes)?;
    if axes.is_empty() {
        return Ok(a.clone());
    }
    let shifts: Vec<isize> = axes
        .iter()
        .map(|&ax| {
            let h = (a.shape()[ax] / 2) as isize;
            if inverse { -h } else { h }
        })
        .collect();
    let axes: Vec<isize> = axes.iter().map(|&ax| ax as isize).collect();
    crate::ops::roll_axes(a, &shifts, &axes)
}

/// Moves the zero frequency to the middle (NumPy's `fft.fftshift`): each of `axes`
/// (`None`: all) rolled by half its length.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// let f = cuprum::ops::fft::fftfreq(5, 1.0)?;
/// let s = cuprum::ops::fft::fftshift(&f, None)?;
/// assert_eq!(s.to_vec::<f64>()?, vec![-0.4, -0.2, 0.0, 0.2, 0.4]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn fftshift(a: &Array, axes: Option<&[isize]>) -> Result<Array> {
    shift(a, axes, false)
}

/// The inverse of [`fftshift`] (NumPy's `fft.ifftshift`; differs for odd lengths).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::ops::fft::{fftfreq, fftshift, ifftshift};
/// let f = fftfreq(5, 1.0)?;
/// let back = ifftshift(&fftshift(&f, None)?, None)?;
/// assert_eq!(back.to_vec::<f64>()?, f.to_vec::<f64>()?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn ifftshift(a: &Array, axes: Option<&[isize]>) -> Result<Array> {
    shift(a, axes, true)
}
