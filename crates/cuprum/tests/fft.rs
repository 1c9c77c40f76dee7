//! Integration tests of `ops::fft` (cuFFT on a GPU, rustfft on the host device) against a
//! direct O(n²) DFT in float64 on the host: every transform (complex, real, Hermitian, 1-d,
//! 2-d, n-d over any axes, more than three axes), lengths that are powers of two, primes
//! and neither, `n`/`s` cutting and padding, every `norm`, non-contiguous inputs, empty
//! batches, the dtype rules (single precision stays single), the frequency helpers, and
//! every error with its kind and message.

mod common;

use common::{Rng, assert_err};
use cuprum::ops::fft::{self, Norm};
use cuprum::{Array, DType, ErrorKind};
use num_complex::{Complex32, Complex64};

type C = Complex64;

/// A host array: shape and C-order values.
#[derive(Clone, Debug)]
struct H {
    shape: Vec<usize>,
    v: Vec<C>,
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

impl H {
    fn random(rng: &mut Rng, shape: &[usize], real: bool) -> H {
        let n: usize = shape.iter().product();
        let v = (0..n)
            .map(|_| {
                let im = if real { 0.0 } else { rng.f64(-1.0, 1.0) };
                C::new(rng.f64(-1.0, 1.0), im)
            })
            .collect();
        H {
            shape: shape.to_vec(),
            v,
        }
    }

    /// Cut or zero-pad `axis` to `n`.
    fn fit(&self, axis: usize, n: usize) -> H {
        let mut shape = self.shape.clone();
        shape[axis] = n;
        let (so, sn) = (strides(&self.shape), strides(&shape));
        let total: usize = shape.iter().product();
        let mut v = vec![C::new(0.0, 0.0); total];
        for (i, out) in v.iter_mut().enumerate() {
            let mut src = 0;
            let mut ok = true;
            for d in 0..shape.len() {
                let idx = i / sn[d] % shape[d];
                if idx >= self.shape[d] {
                    ok = false;
                }
                src += idx * so[d];
            }
            if ok {
                *out = self.v[src];
            }
        }
        H { shape, v }
    }

    /// The unnormalised DFT along `axis` (sign -1 forward).
    fn dft(&self, axis: usize, forward: bool) -> H {
        let n = self.shape[axis];
        let st = strides(&self.shape);
        let sign = if forward { -1.0 } else { 1.0 };
        let mut v = vec![C::new(0.0, 0.0); self.v.len()];
        for (i, out) in v.iter_mut().enumerate() {
            let k = i / st[axis] % n;
            let base = i - k * st[axis];
            let mut acc = C::new(0.0, 0.0);
            for j in 0..n {
                let ang = sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                acc += self.v[base + j * st[axis]] * C::new(ang.cos(), ang.sin());
            }
            *out = acc;
        }
        H {
            shape: self.shape.clone(),
            v,
        }
    }

    fn scale(mut self, f: f64) -> H {
        for x in &mut self.v {
            *x *= f;
        }
        self
    }

    /// The first `m` values along `axis`.
    fn head(&self, axis: usize, m: usize) -> H {
        self.fit(axis, m)
    }

    fn real(&self) -> Vec<f64> {
        self.v.iter().map(|c| c.re).collect()
    }

    fn upload(&self, dtype: DType) -> Array {
        let a = match dtype {
            DType::C64 => {
                let v: Vec<Complex32> = self
                    .v
                    .iter()
                    .map(|c| Complex32::new(c.re as f32, c.im as f32))
                    .collect();
                Array::from_slice(&v, &self.shape)
            }
            DType::C128 => Array::from_slice(&self.v, &self.shape),
            DType::F32 => {
                let v: Vec<f32> = self.v.iter().map(|c| c.re as f32).collect();
                Array::from_slice(&v, &self.shape)
            }
            DType::F64 => Array::from_slice(&self.real(), &self.shape),
            other => panic!("upload: {other}"),
        };
        a.unwrap()
    }
}

/// The array's values as complex128.
fn download(a: &Array) -> Vec<C> {
    match a.dtype() {
        DType::C64 => a
            .to_vec::<Complex32>()
            .unwrap()
            .into_iter()
            .map(|c| C::new(c.re.into(), c.im.into()))
            .collect(),
        DType::C128 => a.to_vec::<C>().unwrap(),
        DType::F32 => a
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(|x| C::new(x.into(), 0.0))
            .collect(),
        DType::F64 => a
            .to_vec::<f64>()
            .unwrap()
            .into_iter()
            .map(|x| C::new(x, 0.0))
            .collect(),
        other => panic!("download: {other}"),
    }
}

/// Compares `got` with `want`; the tolerance scales with the largest magnitude.
fn check(got: &Array, want: &H, single: bool, what: &str) {
    assert_eq!(got.shape(), &want.shape[..], "{what}: shape");
    let g = download(got);
    let scale = want.v.iter().map(|c| c.norm()).fold(1.0, f64::max);
    let tol = if single { 2e-5 } else { 1e-11 } * scale * (want.v.len().max(2) as f64).log2();
    for (i, (x, y)) in g.iter().zip(&want.v).enumerate() {
        assert!(
            (x - y).norm() <= tol,
            "{what}: element {i}: got {x}, want {y} (tolerance {tol:e})"
        );
    }
}

fn all_axes_dft(h: &H, axes: &[usize], forward: bool) -> H {
    axes.iter().fold(h.clone(), |x, &ax| x.dft(ax, forward))
}

#[test]
fn one_dimensional_transforms_match_the_direct_sum() {
    require_gpu!();
    let mut rng = Rng::new(11);
    for n in [1usize, 2, 3, 5, 8, 17, 100, 128, 243, 1000] {
        for (dtype, single) in [
            (DType::C64, true),
            (DType::C128, false),
            (DType::F32, true),
            (DType::F64, false),
        ] {
            let real = !dtype.is_complex();
            let h = H::random(&mut rng, &[3, n], real);
            let a = h.upload(dtype);
            let f = fft::fft(&a, None, -1, Norm::Backward).unwrap();
            let want_dtype = if single { DType::C64 } else { DType::C128 };
            assert_eq!(f.dtype(), want_dtype, "fft of {dtype}");
            check(&f, &h.dft(1, true), single, &format!("fft n={n} {dtype}"));
            let i = fft::ifft(&a, None, 1, Norm::Backward).unwrap();
            let want = h.dft(1, false).scale(1.0 / n as f64);
            check(&i, &want, single, &format!("ifft n={n} {dtype}"));
        }
    }
}

#[test]
fn integers_and_half_floats_choose_their_precision() {
    require_gpu!();
    let a = Array::from_slice(&[1i32, 2, 3, 4], &[4]).unwrap();
    let f = fft::fft(&a, None, 0, Norm::Backward).unwrap();
    assert_eq!(f.dtype(), DType::C128);
    assert_eq!(
        f.to_vec::<C>().unwrap(),
        vec![
            C::new(10.0, 0.0),
            C::new(-2.0, 2.0),
            C::new(-2.0, 0.0),
            C::new(-2.0, -2.0)
        ]
    );
    let h = Array::from_slice(&[half::f16::from_f32(1.0); 4], &[4]).unwrap();
    assert_eq!(
        fft::fft(&h, None, 0, Norm::Backward).unwrap().dtype(),
        DType::C64
    );
    assert_eq!(
        fft::rfft(&h, None, 0, Norm::Backward).unwrap().dtype(),
        DType::C64
    );
    let b = Array::from_slice(&[true, false, true], &[3]).unwrap();
    let r = fft::rfft(&b, None, 0, Norm::Backward).unwrap();
    assert_eq!(r.dtype(), DType::C128);
    assert_eq!(r.to_vec::<C>().unwrap()[0], C::new(2.0, 0.0));
    // A complex input to a real transform loses its imaginary part (CuPy's cast).
    let z = Array::from_slice(&[C::new(1.0, 5.0), C::new(2.0, -5.0)], &[2]).unwrap();
    let r = fft::rfft(&z, None, 0, Norm::Backward).unwrap();
    assert_eq!(
        r.to_vec::<C>().unwrap(),
        vec![C::new(3.0, 0.0), C::new(-1.0, 0.0)]
    );
}

#[test]
fn lengths_are_cut_and_padded_along_any_axis_of_any_view() {
    require_gpu!();
    let mut rng = Rng::new(12);
    let h = H::random(&mut rng, &[6, 5], false);
    let a = h.upload(DType::C128);
    for n in [1usize, 3, 5, 8, 13] {
        let f = fft::fft(&a, Some(n), 0, Norm::Backward).unwrap();
        check(
            &f,
            &h.fit(0, n).dft(0, true),
            false,
            &format!("axis 0 n={n}"),
        );
        let f = fft::fft(&a, Some(n), -1, Norm::Backward).unwrap();
        check(
            &f,
            &h.fit(1, n).dft(1, true),
            false,
            &format!("axis 1 n={n}"),
        );
    }
    // A transposed view and a stepped slice.
    let t = a.t();
    let ht = H {
        shape: vec![5, 6],
        v: (0..30).map(|i| h.v[(i % 6) * 5 + i / 6]).collect(),
    };
    check(
        &fft::fft(&t, None, 1, Norm::Backward).unwrap(),
        &ht.dft(1, true),
        false,
        "transposed",
    );
    let s = a.slice(&cuprum::s![..;2]).unwrap();
    let hs = H {
        shape: vec![3, 5],
        v: (0..15).map(|i| h.v[(i / 5) * 10 + i % 5]).collect(),
    };
    check(
        &fft::fft(&s, None, 0, Norm::Backward).unwrap(),
        &hs.dft(0, true),
        false,
        "stepped",
    );
}

#[test]
fn n_dimensional_transforms_cover_any_axes() {
    require_gpu!();
    let mut rng = Rng::new(13);
    let h = H::random(&mut rng, &[3, 4, 5, 2, 3], false);
    for dtype in [DType::C64, DType::C128] {
        let single = dtype == DType::C64;
        let a = h.upload(dtype);
        // All five axes: two groups (three axes, then two).
        let f = fft::fftn(&a, None, None, Norm::Backward).unwrap();
        check(
            &f,
            &all_axes_dft(&h, &[0, 1, 2, 3, 4], true),
            single,
            "fftn all",
        );
        // A subset out of order, and its inverse.
        let axes = [3isize, 0, -1];
        let f = fft::fftn(&a, None, Some(&axes), Norm::Ortho).unwrap();
        let want = all_axes_dft(&h, &[3, 0, 4], true).scale(1.0 / (18f64).sqrt());
        check(&f, &want, single, "fftn subset ortho");
        let i = fft::ifftn(&a, None, Some(&axes), Norm::Forward).unwrap();
        check(
            &i,
            &all_axes_dft(&h, &[3, 0, 4], false),
            single,
            "ifftn forward",
        );
        // `s` alone takes the last axes.
        let f = fft::fftn(&a, Some(&[7, 2]), None, Norm::Backward).unwrap();
        let want = all_axes_dft(&h.fit(3, 7).fit(4, 2), &[3, 4], true);
        check(&f, &want, single, "fftn s");
        // fft2's default axes.
        let f = fft::fft2(&a, None, &[-2, -1], Norm::Backward).unwrap();
        check(&f, &all_axes_dft(&h, &[3, 4], true), single, "fft2");
        let i = fft::ifft2(&a, Some(&[2, 4]), &[0, 2], Norm::Backward).unwrap();
        let want = all_axes_dft(&h.fit(0, 2).fit(2, 4), &[0, 2], false).scale(1.0 / 8.0);
        check(&i, &want, single, "ifft2 s axes");
    }
}

#[test]
fn real_transforms_keep_numpys_axis_roles() {
    require_gpu!();
    let mut rng = Rng::new(14);
    for (dtype, single) in [(DType::F32, true), (DType::F64, false)] {
        for n in [1usize, 2, 7, 8, 30] {
            let h = H::random(&mut rng, &[2, n], true);
            let a = h.upload(dtype);
            let f = fft::rfft(&a, None, -1, Norm::Backward).unwrap();
            let want = h.dft(1, true).head(1, n / 2 + 1);
            check(&f, &want, single, &format!("rfft n={n}"));
            // irfft rebuilds the signal of length n from n/2+1 values.
            let back = fft::irfft(&f, Some(n), -1, Norm::Backward).unwrap();
            assert_eq!(back.dtype(), dtype);
            check(&back, &h, single, &format!("irfft n={n}"));
        }
        // rfftn over all axes, and over axes (2, 0): axis 0 halved.
        let h = H::random(&mut rng, &[6, 3, 5], true);
        let a = h.upload(dtype);
        let f = fft::rfftn(&a, None, None, Norm::Backward).unwrap();
        let want = all_axes_dft(&h, &[0, 1, 2], true).head(2, 3);
        check(&f, &want, single, "rfftn");
        let back = fft::irfftn(&f, Some(&[6, 3, 5]), None, Norm::Backward).unwrap();
        check(&back, &h, single, "irfftn");
        let f = fft::rfftn(&a, None, Some(&[2, 0]), Norm::Ortho).unwrap();
        let want = all_axes_dft(&h, &[0, 2], true)
            .head(0, 4)
            .scale(1.0 / 30f64.sqrt());
        check(&f, &want, single, "rfftn axes (2, 0)");
        let back = fft::irfftn(&f, Some(&[5, 6]), Some(&[2, 0]), Norm::Ortho).unwrap();
        check(&back, &h, single, "irfftn axes (2, 0)");
        // rfft2 / irfft2 with the default length 2 (m - 1) (an even last axis: the same).
        let h4 = H::random(&mut rng, &[6, 3, 4], true);
        let f = fft::rfft2(&h4.upload(dtype), None, &[-2, -1], Norm::Forward).unwrap();
        let want = all_axes_dft(&h4, &[1, 2], true)
            .head(2, 3)
            .scale(1.0 / 12.0);
        check(&f, &want, single, "rfft2 forward");
        let back = fft::irfft2(&f, None, &[-2, -1], Norm::Forward).unwrap();
        check(&back, &h4, single, "irfft2 default length");
        // Whole arrays of 2 to 4 axes: the rows' real transform, then the leading axes'
        // complex one where they lie (and back in the other order), odd and even lengths.
        for shape in [&[33usize, 20][..], &[5, 7, 9], &[3, 4, 2, 6], &[1, 9]] {
            let h = H::random(&mut rng, shape, true);
            let axes: Vec<usize> = (0..shape.len()).collect();
            let last = shape.len() - 1;
            let f = fft::rfftn(&h.upload(dtype), None, None, Norm::Backward).unwrap();
            let want = all_axes_dft(&h, &axes, true).head(last, shape[last] / 2 + 1);
            check(&f, &want, single, &format!("rfftn whole {shape:?}"));
            let back = fft::irfftn(&f, Some(shape), None, Norm::Backward).unwrap();
            check(&back, &h, single, &format!("irfftn whole {shape:?}"));
            // The input of the inverse is left as it was (the C2R ran on an intermediate).
            check(&f, &want, single, &format!("irfftn input kept {shape:?}"));
        }
    }
}

#[test]
fn hermitian_transforms_and_norms() {
    require_gpu!();
    let a = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3]).unwrap();
    let h = fft::hfft(&a, None, -1, Norm::Backward).unwrap();
    assert_eq!(h.to_vec::<f64>().unwrap(), vec![8.0, -2.0, 0.0, -2.0]);
    let h5 = fft::hfft(&a, Some(5), -1, Norm::Ortho).unwrap();
    // [1, 2, 3, 3, 2] transformed, scaled by 1/√5.
    let want: Vec<f64> = (0..5)
        .map(|k| {
            let x = [1.0, 2.0, 3.0, 3.0, 2.0];
            (0..5)
                .map(|j| x[j] * (2.0 * std::f64::consts::PI * (j * k) as f64 / 5.0).cos())
                .sum::<f64>()
                / 5f64.sqrt()
        })
        .collect();
    for (g, w) in h5.to_vec::<f64>().unwrap().iter().zip(&want) {
        assert!((g - w).abs() < 1e-12, "{g} {w}");
    }
    let back = fft::ihfft(&h, None, -1, Norm::Backward).unwrap();
    let v = back.to_vec::<C>().unwrap();
    for (g, w) in v.iter().zip([1.0, 2.0, 3.0]) {
        assert!((g - C::new(w, 0.0)).norm() < 1e-12, "{g}");
    }
    // Each norm scales the forward and inverse transforms as NumPy does.
    let x = Array::from_slice(&[1.0f64, 0.0, 0.0, 0.0], &[4]).unwrap();
    for (norm, fwd, inv) in [
        (Norm::Backward, 1.0, 0.25),
        (Norm::Ortho, 0.5, 0.5),
        (Norm::Forward, 0.25, 1.0),
    ] {
        let f = fft::fft(&x, None, 0, norm).unwrap().to_vec::<C>().unwrap();
        assert!(f.iter().all(|c| (c.re - fwd).abs() < 1e-15), "{norm:?}");
        let i = fft::ifft(&x, None, 0, norm).unwrap().to_vec::<C>().unwrap();
        assert!(i.iter().all(|c| (c.re - inv).abs() < 1e-15), "{norm:?}");
    }
}

#[test]
fn empty_batches_and_frequency_helpers() {
    require_gpu!();
    let e = Array::zeros(&[0, 4], DType::F32).unwrap();
    let f = fft::fft(&e, None, -1, Norm::Backward).unwrap();
    assert_eq!((f.shape(), f.dtype()), (&[0usize, 4][..], DType::C64));
    let r = fft::rfft(&e, None, -1, Norm::Backward).unwrap();
    assert_eq!(r.shape(), &[0, 3]);
    let i = fft::irfft(&r, Some(4), -1, Norm::Backward).unwrap();
    assert_eq!((i.shape(), i.dtype()), (&[0usize, 4][..], DType::F32));
    assert_eq!(
        fft::fftfreq(8, 0.1).unwrap().to_vec::<f64>().unwrap(),
        [0.0, 1.0, 2.0, 3.0, -4.0, -3.0, -2.0, -1.0]
            .iter()
            .map(|k| k / 0.8)
            .collect::<Vec<_>>()
    );
    assert_eq!(
        fft::rfftfreq(5, 1.0).unwrap().to_vec::<f64>().unwrap(),
        vec![0.0, 0.2, 0.4]
    );
    let a = Array::arange(0.0, 6.0, 1.0, DType::I32)
        .unwrap()
        .reshape(&[2, 3])
        .unwrap();
    assert_eq!(
        fft::fftshift(&a, None).unwrap().to_vec::<i32>().unwrap(),
        vec![5, 3, 4, 2, 0, 1]
    );
    assert_eq!(
        fft::ifftshift(&a, Some(&[1]))
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![1, 2, 0, 4, 5, 3]
    );
}

#[test]
fn bad_arguments_are_refused_with_numpys_messages() {
    require_gpu!();
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    assert_err(
        fft::fft(&a, Some(0), -1, Norm::Backward),
        ErrorKind::InvalidArgument,
        "Invalid number of FFT data points (0) specified.",
    );
    assert_err(
        fft::fft(&a, None, 2, Norm::Backward),
        ErrorKind::Shape,
        "axis 2 is out of bounds for array of dimension 2",
    );
    let z = Array::scalar(1.0f32).unwrap();
    assert_err(
        fft::fft(&z, None, -1, Norm::Backward),
        ErrorKind::Shape,
        "at least one axis",
    );
    assert_err(
        fft::fftn(&a, Some(&[2, 2]), Some(&[0]), Norm::Backward),
        ErrorKind::Shape,
        "Shape and axes have different lengths.",
    );
    assert_err(
        fft::fftn(&a, None, Some(&[0, -2]), Norm::Backward),
        ErrorKind::Shape,
        "Duplicate axes not allowed.",
    );
    assert_err(
        fft::irfft(
            &Array::zeros(&[1], DType::C64).unwrap(),
            None,
            0,
            Norm::Backward,
        ),
        ErrorKind::InvalidArgument,
        "Invalid number of FFT data points (0) specified.",
    );
    let empty = Array::zeros(&[3, 0], DType::F32).unwrap();
    assert_err(
        fft::fft(&empty, None, -1, Norm::Backward),
        ErrorKind::InvalidArgument,
        "Invalid number of FFT data points (0) specified.",
    );
    assert_err(
        Norm::parse(Some("both")),
        ErrorKind::InvalidArgument,
        "Invalid norm value both; should be \"backward\", \"ortho\" or \"forward\".",
    );
    assert_err(fft::fftfreq(0, 1.0), ErrorKind::InvalidArgument, "(0)");
}

/// The plan cache's limit is the process's: the tests that change it run one at a time.
static LIMIT: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn a_captured_transform_keeps_its_plan_for_every_replay() {
    require_cuda!();
    let _one = LIMIT.lock().unwrap_or_else(|p| p.into_inner());
    let mut rng = Rng::new(15);
    let h = H::random(&mut rng, &[4, 96], false);
    let x = h.upload(DType::C64);
    let s = cuprum::Stream::new().unwrap();
    let (g, y) = s
        .capture(|| s.with(|| fft::fft(&x, None, -1, Norm::Backward)))
        .unwrap();
    // The cache is cleared and refilled with other plans: the graph's plan stays alive.
    cuprum::runtime::clear_fft_plan_cache();
    let limit = cuprum::runtime::fft_plan_cache_limit();
    cuprum::runtime::set_fft_plan_cache_limit(1);
    for n in [5usize, 7, 9] {
        let z = Array::ones(&[n], DType::C64).unwrap();
        fft::fft(&z, None, 0, Norm::Backward).unwrap();
    }
    cuprum::runtime::set_fft_plan_cache_limit(limit);
    for _ in 0..3 {
        g.launch(&s).unwrap();
        s.synchronize().unwrap();
        check(&y, &h.dft(1, true), true, "replayed transform");
    }
}

#[test]
fn plans_are_cached_up_to_the_limit() {
    require_gpu!();
    let _one = LIMIT.lock().unwrap_or_else(|p| p.into_inner());
    let limit = cuprum::runtime::fft_plan_cache_limit();
    cuprum::runtime::clear_fft_plan_cache();
    assert_eq!(cuprum::runtime::fft_plan_cache_len(), 0);
    cuprum::runtime::set_fft_plan_cache_limit(2);
    let mut rng = Rng::new(16);
    for n in [3usize, 4, 5, 6] {
        let h = H::random(&mut rng, &[n], false);
        let f = fft::fft(&h.upload(DType::C128), None, 0, Norm::Backward).unwrap();
        check(&f, &h.dft(0, true), false, "with a small cache");
    }
    assert!(cuprum::runtime::fft_plan_cache_len() <= 2);
    cuprum::runtime::set_fft_plan_cache_limit(0);
    let h = H::random(&mut rng, &[7], false);
    let f = fft::fft(&h.upload(DType::C128), None, 0, Norm::Backward).unwrap();
    check(&f, &h.dft(0, true), false, "without a cache");
    assert_eq!(cuprum::runtime::fft_plan_cache_len(), 0);
    cuprum::runtime::set_fft_plan_cache_limit(limit);
}
