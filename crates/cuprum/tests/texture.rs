//! Textures and surfaces (`cuprum::texture`): CUDA arrays filled and read back, texture
//! objects sampled by ElementwiseKernels and raw kernels in 1, 2 and 3 dimensions (CuPy's
//! `TestElementwiseKernelTexture` and more), against a CPU model of CUDA's texture fetch
//! (the CUDA C++ Programming Guide's "Texture Fetching": point and linear filtering with
//! 8-bit fixed-point weights, each address mode, normalized coordinates, normalized-float
//! reads); linear and pitched resources; surface reads and writes with each boundary mode;
//! lifetimes; and every error a bad description gets. On the GPU, or on the host device
//! where there is none.

mod common;

use common::{Rng, assert_err};
use cuprum::texture::{
    AddressMode, ChannelFormat, ChannelKind, CudaArray, FilterMode, ReadMode, Resource,
    SurfaceObject, TEXTURE_ALIGNMENT, TextureDesc, TextureObject,
};
use cuprum::{Array, DType, ElementwiseKernel, ErrorKind, RawKernel, RawModule, ScanKernel};
use std::sync::{RwLock, RwLockReadGuard};

/// The capture test and the others take turns: a context-wide synchronisation in another
/// test's thread while a stream captures is refused by CUDA and invalidates the capture.
static TURNS: RwLock<()> = RwLock::new(());

fn shared_turn() -> RwLockReadGuard<'static, ()> {
    TURNS.read().unwrap_or_else(|e| e.into_inner())
}

fn f32_format() -> ChannelFormat {
    ChannelFormat::new([32, 0, 0, 0], ChannelKind::Float).unwrap()
}

fn random_f32(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.f64(-4.0, 4.0) as f32).collect()
}

/// A CUDA array of float32 texels of `extent` filled with random values (returned, C order).
fn filled(rng: &mut Rng, extent: [usize; 3]) -> (CudaArray, Vec<f32>) {
    let arr = CudaArray::new(f32_format(), extent).unwrap();
    let shape = arr.host_shape();
    let data = random_f32(rng, shape.iter().product());
    arr.copy_from(&Array::from_slice(&data, &shape).unwrap())
        .unwrap();
    (arr, data)
}

/// `data` (float32) in device memory that starts at a multiple of CUDA's texture
/// alignment, as linear and pitched resources need: a view of a larger array.
fn aligned_f32(data: &[f32], shape: &[usize]) -> Array {
    let extra = TEXTURE_ALIGNMENT / 4;
    let big = Array::zeros(&[data.len() + extra], DType::F32).unwrap();
    let past = (big.data_ptr() % TEXTURE_ALIGNMENT as u64) as usize;
    let skip = ((TEXTURE_ALIGNMENT - past) % TEXTURE_ALIGNMENT) / 4;
    let view = big
        .slice(&cuprum::s![skip as isize..(skip + data.len()) as isize])
        .unwrap();
    view.copy_from_slice(data).unwrap();
    let shape: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    let view = view.reshape(&shape).unwrap();
    assert_eq!(view.data_ptr() % TEXTURE_ALIGNMENT as u64, 0);
    view
}

fn point_clamp() -> TextureDesc {
    TextureDesc {
        address: [AddressMode::Clamp; 3],
        ..TextureDesc::default()
    }
}

#[test]
fn cuda_arrays_copy_in_and_out_in_1_2_and_3_dimensions() {
    require_gpu!();
    let _turn = shared_turn();
    let mut rng = Rng::new(1);
    for extent in [[1, 0, 0], [37, 0, 0], [5, 7, 0], [3, 4, 6], [1, 1, 1]] {
        let (arr, data) = filled(&mut rng, extent);
        let back = Array::zeros(&arr.host_shape(), DType::F32).unwrap();
        arr.copy_to(&back).unwrap();
        assert_eq!(back.to_vec::<f32>().unwrap(), data, "{extent:?}");
    }
    // Two channels of uint16: the row holds width × 2 values.
    let f = ChannelFormat::of(DType::U16, 2).unwrap();
    let arr = CudaArray::new(f, [3, 2, 0]).unwrap();
    assert_eq!(arr.host_shape(), vec![2, 6]);
    let v: Vec<u16> = (0..12).map(|i| i * 1000 + 7).collect();
    arr.copy_from(&Array::from_slice(&v, &[2, 6]).unwrap())
        .unwrap();
    let back = Array::zeros(&[2, 6], DType::U16).unwrap();
    arr.copy_to(&back).unwrap();
    assert_eq!(back.to_vec::<u16>().unwrap(), v);
}

/// CuPy's `TestElementwiseKernelTexture`: `y = tex{1,2,3}D<T>(texObj, …) + x` over float32
/// point-sampled, clamped textures of each dimension.
#[test]
fn elementwise_kernels_sample_textures_as_cupys_test_does() {
    require_gpu!();
    let _turn = shared_turn();
    let mut rng = Rng::new(2);
    let k1 = ElementwiseKernel::new(
        "T x, U texObj",
        "T y",
        "T temp = tex1D<T>(texObj, float(i)); y = temp + x;",
        "test_tex1D",
    )
    .unwrap();
    let k2 = ElementwiseKernel::new(
        "T x, U texObj, uint64 width",
        "T y",
        "T temp = tex2D<T>(texObj, (float)(i % width), (float)(i / width)); y = temp + x;",
        "test_tex2D",
    )
    .unwrap();
    let k3 = ElementwiseKernel::new(
        "T x, U texObj, uint64 width, uint64 height",
        "T y",
        "T temp = tex3D<T>(texObj, (float)((i % (width * height)) % width), \
         (float)((i % (width * height)) / width), (float)((i / (width * height)))); y = temp + x;",
        "test_tex3D",
    )
    .unwrap();
    for extent in [
        [3, 0, 0],
        [3, 4, 0],
        [3, 4, 5],
        [257, 0, 0],
        [33, 9, 0],
        [17, 3, 2],
    ] {
        let (arr, data) = filled(&mut rng, extent);
        let tex = TextureObject::new(&Resource::Array(arr.clone()), &point_clamp()).unwrap();
        let n = data.len();
        let xv = random_f32(&mut rng, n);
        let x = Array::from_slice(&xv, &arr.host_shape()).unwrap();
        let [w, h, _] = extent;
        let (w64, h64) = (cuprum::Scalar::U64(w as u64), cuprum::Scalar::U64(h as u64));
        let y = match arr.ndim() {
            1 => k1.call((&x, &tex)),
            2 => k2.call((&x, &tex, w64)),
            _ => k3.call((&x, &tex, w64, h64)),
        }
        .unwrap();
        let want: Vec<f32> = data.iter().zip(&xv).map(|(t, x)| t + x).collect();
        assert_eq!(y.to_vec::<f32>().unwrap(), want, "{extent:?}");
    }
}

/// CUDA's address modes for texel index `i` of `n` (`None`: the border).
fn address(i: i64, n: i64, mode: AddressMode, normalized: bool) -> Option<i64> {
    let mode = match mode {
        AddressMode::Wrap | AddressMode::Mirror if !normalized => AddressMode::Clamp,
        m => m,
    };
    match mode {
        AddressMode::Clamp => Some(i.clamp(0, n - 1)),
        AddressMode::Border => (0..n).contains(&i).then_some(i),
        AddressMode::Wrap => Some(i.rem_euclid(n)),
        AddressMode::Mirror => {
            let p = i.rem_euclid(2 * n);
            Some(if p < n { p } else { 2 * n - 1 - p })
        }
    }
}

/// The coordinate in texels of `x` (normalized: wrap and mirror applied to the fraction
/// first, as the guide defines them).
fn texel_coord(x: f32, n: usize, mode: AddressMode, normalized: bool) -> f32 {
    if !normalized {
        return x;
    }
    let x = match mode {
        AddressMode::Wrap => x - x.floor(),
        AddressMode::Mirror => {
            let f = x.floor();
            let r = x - f;
            if (f as i64) % 2 == 0 { r } else { 1.0 - r }
        }
        _ => x,
    };
    x * n as f32
}

/// A 1-D fetch of `t` at `x` as the guide defines it, and as an H100 does it (CuPy's
/// fetches of the same texture agree bit for bit, `scripts/texture_vs_cupy.py`): linear
/// filtering in border mode samples a 1-D texture as a row of a 2-D one at `y = 0`, half
/// of its weight on the border row beside it. Also returns how far the hardware's
/// rounding may move it where the model does not pin it down (half a weight step).
fn fetch_1d(t: &[f32], x: f32, d: &TextureDesc, border: f32) -> (f32, f32) {
    let n = t.len();
    let mode = d.address[0];
    let xt = texel_coord(x, n, mode, d.normalized_coords);
    let at = |i: i64| match address(i, n as i64, mode, d.normalized_coords) {
        Some(j) => t[j as usize],
        None => border,
    };
    match d.filter {
        FilterMode::Point => (at(xt.floor() as i64), 0.0),
        FilterMode::Linear => {
            let xb = xt - 0.5;
            let i = xb.floor();
            let a = ((xb - i) * 256.0).round() / 256.0;
            let (lo, hi) = (at(i as i64), at(i as i64 + 1));
            let v = (1.0 - a) * lo + a * hi;
            if mode == AddressMode::Border {
                // each weight halved: rounded to 1/256 again where it is odd
                (0.5 * border + 0.5 * v, (lo.abs() + hi.abs()) / 512.0)
            } else {
                (v, 0.0)
            }
        }
    }
}

#[test]
fn one_d_fetches_follow_cudas_filtering_and_address_modes() {
    require_gpu!();
    let _turn = shared_turn();
    let mut rng = Rng::new(3);
    let n = 13;
    let (arr, data) = filled(&mut rng, [n, 0, 0]);
    let k = ElementwiseKernel::new(
        "float32 x, U t",
        "float32 y",
        "y = tex1D<float>(t, x)",
        "fetch1",
    )
    .unwrap();
    // Coordinates inside, on texel edges, and well outside the texture.
    let mut xs: Vec<f32> = (0..200).map(|_| rng.f64(-2.5, 2.5) as f32).collect();
    xs.extend([0.0, 0.5, 1.0, 0.25, -0.0, 0.999, 1.5]);
    let unnormalized: Vec<f32> = xs.iter().map(|x| x * n as f32).collect();
    for mode in [
        AddressMode::Wrap,
        AddressMode::Clamp,
        AddressMode::Mirror,
        AddressMode::Border,
    ] {
        for filter in [FilterMode::Point, FilterMode::Linear] {
            for normalized in [false, true] {
                let d = TextureDesc {
                    address: [mode; 3],
                    filter,
                    normalized_coords: normalized,
                    border_color: [0.75, 0.0, 0.0, 0.0],
                    ..TextureDesc::default()
                };
                let tex = TextureObject::new(&Resource::Array(arr.clone()), &d).unwrap();
                let coords = if normalized { &xs } else { &unnormalized };
                let x = Array::from_slice(coords, &[coords.len()]).unwrap();
                let got = k.call((&x, &tex)).unwrap().to_vec::<f32>().unwrap();
                for (c, g) in coords.iter().zip(&got) {
                    let (want, slack) = fetch_1d(&data, *c, &d, 0.75);
                    assert!(
                        (g - want).abs() <= 2e-6 * (1.0 + want.abs()) + slack,
                        "{mode:?} {filter:?} normalized={normalized} x={c}: got {g}, want {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn two_d_linear_filtering_is_bilinear() {
    require_gpu!();
    let _turn = shared_turn();
    let mut rng = Rng::new(4);
    let (w, h) = (6usize, 5usize);
    let (arr, data) = filled(&mut rng, [w, h, 0]);
    let d = TextureDesc {
        filter: FilterMode::Linear,
        ..point_clamp()
    };
    let tex = TextureObject::new(&Resource::Array(arr), &d).unwrap();
    let k = ElementwiseKernel::new(
        "float32 x, float32 y, U t",
        "float32 z",
        "z = tex2D<float>(t, x, y)",
        "fetch2",
    )
    .unwrap();
    let m = 300;
    let xs: Vec<f32> = (0..m)
        .map(|_| rng.f64(-1.0, w as f64 + 1.0) as f32)
        .collect();
    let ys: Vec<f32> = (0..m)
        .map(|_| rng.f64(-1.0, h as f64 + 1.0) as f32)
        .collect();
    let (xa, ya) = (
        Array::from_slice(&xs, &[m]).unwrap(),
        Array::from_slice(&ys, &[m]).unwrap(),
    );
    let got = k.call((&xa, &ya, &tex)).unwrap().to_vec::<f32>().unwrap();
    let at = |i: i64, j: i64| {
        let (i, j) = (i.clamp(0, w as i64 - 1), j.clamp(0, h as i64 - 1));
        data[j as usize * w + i as usize]
    };
    let weight = |c: f32| {
        let b = c - 0.5;
        let i = b.floor();
        (i as i64, ((b - i) * 256.0).round() / 256.0)
    };
    for k in 0..m {
        let ((i, a), (j, b)) = (weight(xs[k]), weight(ys[k]));
        // Each of the four weights is itself rounded to 1/256 (an H100's fetches, and
        // CuPy's of the same texture, match this to the last bit and no single pair of
        // 8-bit weights); a tie (a product an odd multiple of 1/512) may round either way.
        let texels = [at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1)];
        let products = [(1.0 - a) * (1.0 - b), a * (1.0 - b), (1.0 - a) * b, a * b];
        let want: f32 = products
            .iter()
            .zip(&texels)
            .map(|(w, t)| (w * 256.0).round() / 256.0 * t)
            .sum();
        let tie = products.iter().any(|w| (w * 256.0).fract() == 0.5);
        let slack = if tie {
            texels.iter().map(|t| t.abs()).sum::<f32>() / 256.0
        } else {
            0.0
        };
        assert!(
            (got[k] - want).abs() <= 4e-6 * (1.0 + want.abs()) + slack,
            "({}, {}): got {}, want {want}",
            xs[k],
            ys[k],
            got[k]
        );
    }
}

#[test]
fn integer_textures_read_as_integers_or_normalized_floats() {
    require_gpu!();
    let _turn = shared_turn();
    let fetch = RawModule::new(
        r#"
extern "C" __global__ void as_int(cudaTextureObject_t t, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<signed char>(t, i + 0.5f);
}
extern "C" __global__ void as_float(cudaTextureObject_t t, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float>(t, i + 0.5f);
}
extern "C" __global__ void as_float_u16(cudaTextureObject_t t, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float>(t, i + 0.5f);
}"#,
    );
    let v: Vec<i8> = vec![-128, -127, -1, 0, 1, 64, 127, -64, 5];
    let n = v.len();
    let arr = CudaArray::new(ChannelFormat::of(DType::I8, 1).unwrap(), [n, 0, 0]).unwrap();
    arr.copy_from(&Array::from_slice(&v, &[n]).unwrap())
        .unwrap();
    let ints = TextureObject::new(&Resource::Array(arr.clone()), &point_clamp()).unwrap();
    let out = Array::zeros(&[n], DType::I32).unwrap();
    let f = fetch.get_function("as_int").unwrap();
    f.launch(1u32, 32u32, (&ints, &out, n as i32)).unwrap();
    let want: Vec<i32> = v.iter().map(|&x| x as i32).collect();
    assert_eq!(out.to_vec::<i32>().unwrap(), want);

    let norm = TextureDesc {
        read: ReadMode::NormalizedFloat,
        ..point_clamp()
    };
    let floats = TextureObject::new(&Resource::Array(arr), &norm).unwrap();
    let outf = Array::zeros(&[n], DType::F32).unwrap();
    let f = fetch.get_function("as_float").unwrap();
    f.launch(1u32, 32u32, (&floats, &outf, n as i32)).unwrap();
    let want: Vec<f32> = v.iter().map(|&x| (x as f32 / 127.0).max(-1.0)).collect();
    let got = outf.to_vec::<f32>().unwrap();
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-6,
            "int8 normalized: got {got:?}, want {want:?}"
        );
    }

    let u: Vec<u16> = vec![0, 1, 65535, 32768, 1000];
    let arr = CudaArray::new(ChannelFormat::of(DType::U16, 1).unwrap(), [u.len(), 0, 0]).unwrap();
    arr.copy_from(&Array::from_slice(&u, &[u.len()]).unwrap())
        .unwrap();
    let t = TextureObject::new(&Resource::Array(arr), &norm).unwrap();
    let outf = Array::zeros(&[u.len()], DType::F32).unwrap();
    let f = fetch.get_function("as_float_u16").unwrap();
    f.launch(1u32, 32u32, (&t, &outf, u.len() as i32)).unwrap();
    let got = outf.to_vec::<f32>().unwrap();
    for (g, x) in got.iter().zip(&u) {
        let w = *x as f32 / 65535.0;
        assert!(
            (g - w).abs() <= 1e-6,
            "uint16 normalized: {x} read {g}, want {w}"
        );
    }
}

#[test]
fn four_channel_textures_fill_vector_results() {
    require_gpu!();
    let _turn = shared_turn();
    let k = RawKernel::new(
        r#"extern "C" __global__ void rgba(cudaTextureObject_t t, float* out, int w, int h) {
    int x = threadIdx.x, y = blockIdx.x;
    if (x >= w || y >= h) return;
    float4 v = tex2D<float4>(t, x + 0.5f, y + 0.5f);
    float* o = out + 4 * (y * w + x);
    o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = v.w;
}"#,
        "rgba",
    );
    let (w, h) = (5usize, 3usize);
    let v: Vec<u8> = (0..w * h * 4).map(|i| (i * 37 % 256) as u8).collect();
    let arr = CudaArray::new(ChannelFormat::of(DType::U8, 4).unwrap(), [w, h, 0]).unwrap();
    assert_eq!(arr.host_shape(), vec![h, 4 * w]);
    arr.copy_from(&Array::from_slice(&v, &[h, 4 * w]).unwrap())
        .unwrap();
    let d = TextureDesc {
        read: ReadMode::NormalizedFloat,
        ..point_clamp()
    };
    let t = TextureObject::new(&Resource::Array(arr), &d).unwrap();
    let out = Array::zeros(&[w * h * 4], DType::F32).unwrap();
    k.launch(h as u32, 32u32, (&t, &out, w as i32, h as i32))
        .unwrap();
    let got = out.to_vec::<f32>().unwrap();
    for (g, x) in got.iter().zip(&v) {
        assert!(
            (g - *x as f32 / 255.0).abs() <= 1e-6,
            "uchar4 texel {x} read as {g}"
        );
    }
}

#[test]
fn linear_and_pitched_resources_read_device_memory() {
    require_gpu!();
    let _turn = shared_turn();
    let mut rng = Rng::new(5);
    let n = 100;
    let v = random_f32(&mut rng, n);
    let mem = aligned_f32(&v, &[n]);
    // The first 90 texels only: index 95 is outside and reads zero.
    let res = Resource::Linear {
        array: mem.clone(),
        format: f32_format(),
        bytes: 90 * 4,
    };
    let t = TextureObject::new(&res, &TextureDesc::default()).unwrap();
    let k = ElementwiseKernel::new(
        "int32 j, U t",
        "float32 y",
        "y = tex1Dfetch<float>(t, j)",
        "fetch",
    )
    .unwrap();
    let js: Vec<i32> = vec![0, 1, 50, 89, 3, 95];
    let ja = Array::from_slice(&js, &[js.len()]).unwrap();
    let y = k.call((&ja, &t)).unwrap();
    let want: Vec<f32> = js
        .iter()
        .map(|&j| if j < 90 { v[j as usize] } else { 0.0 })
        .collect();
    assert_eq!(y.to_vec::<f32>().unwrap(), want);

    // Pitched: 4 rows of 7 texels, 32 texels (128 bytes) apart, in a 4 × 32 array.
    let (w, h, pitch) = (7usize, 4usize, 32usize);
    let all = random_f32(&mut rng, h * pitch);
    let mem = aligned_f32(&all, &[h, pitch]);
    let res = Resource::Pitch2D {
        array: mem,
        format: f32_format(),
        width: w,
        height: h,
        pitch: pitch * 4,
    };
    let t = TextureObject::new(&res, &point_clamp()).unwrap();
    let k = ElementwiseKernel::new(
        "int32 x, int32 y, U t",
        "float32 z",
        "z = tex2D<float>(t, x + 0.5f, y + 0.5f)",
        "fetch_pitched",
    )
    .unwrap();
    let (xs, ys): (Vec<i32>, Vec<i32>) = (0..h as i32)
        .flat_map(|y| (0..w as i32 + 2).map(move |x| (x, y)))
        .unzip();
    let xa = Array::from_slice(&xs, &[xs.len()]).unwrap();
    let ya = Array::from_slice(&ys, &[ys.len()]).unwrap();
    let z = k.call((&xa, &ya, &t)).unwrap();
    let want: Vec<f32> = xs
        .iter()
        .zip(&ys)
        .map(|(&x, &y)| all[y as usize * pitch + (x as usize).min(w - 1)])
        .collect();
    assert_eq!(z.to_vec::<f32>().unwrap(), want);
}

#[test]
fn surfaces_write_and_read_cuda_arrays_with_each_boundary_mode() {
    require_gpu!();
    let _turn = shared_turn();
    let (w, h) = (9usize, 4usize);
    let arr =
        CudaArray::for_surfaces(ChannelFormat::of(DType::F32, 1).unwrap(), [w, h, 0]).unwrap();
    let s = SurfaceObject::new(&arr).unwrap();
    let m = RawModule::new(
        r#"
extern "C" __global__ void fill(cudaSurfaceObject_t s, int w, int h) {
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h) surf2Dwrite(float(100 * y + x), s, x * 4, y);
}
// Reads one texel past each edge: zero mode reads 0, clamp mode the edge.
extern "C" __global__ void read(cudaSurfaceObject_t s, float* zero, float* clamp, int w) {
    int y = blockIdx.x;
    zero[2 * y] = surf2Dread<float>(s, w * 4, y, cudaBoundaryModeZero);
    zero[2 * y + 1] = surf2Dread<float>(s, -4, y, cudaBoundaryModeZero);
    clamp[2 * y] = surf2Dread<float>(s, w * 4, y, cudaBoundaryModeClamp);
    clamp[2 * y + 1] = surf2Dread<float>(s, -4, y, cudaBoundaryModeClamp);
    // Dropped writes outside.
    surf2Dwrite(-1.0f, s, (w + 3) * 4, y, cudaBoundaryModeZero);
}
extern "C" __global__ void trap(cudaSurfaceObject_t s, int w) {
    surf2Dwrite(1.0f, s, (w + 1) * 4, 0);
}"#,
    );
    m.get_function("fill")
        .unwrap()
        .launch(h as u32, 32u32, (&s, w as i32, h as i32))
        .unwrap();
    let back = Array::zeros(&[h, w], DType::F32).unwrap();
    arr.copy_to(&back).unwrap();
    let want: Vec<f32> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (100 * y + x) as f32))
        .collect();
    assert_eq!(back.to_vec::<f32>().unwrap(), want);

    let zero = Array::ones(&[2 * h], DType::F32).unwrap();
    let clamp = Array::zeros(&[2 * h], DType::F32).unwrap();
    m.get_function("read")
        .unwrap()
        .launch(h as u32, 1u32, (&s, &zero, &clamp, w as i32))
        .unwrap();
    assert_eq!(zero.to_vec::<f32>().unwrap(), vec![0.0; 2 * h]);
    let edges: Vec<f32> = (0..h)
        .flat_map(|y| [(100 * y + w - 1) as f32, (100 * y) as f32])
        .collect();
    assert_eq!(clamp.to_vec::<f32>().unwrap(), edges);
    arr.copy_to(&back).unwrap();
    assert_eq!(
        back.to_vec::<f32>().unwrap(),
        want,
        "a zero-mode write outside changed nothing"
    );
}

/// A surface access outside the array in trap mode faults the kernel (on the host device:
/// a GPU's context would not survive the trap, so the GPU suite leaves it out).
#[test]
fn an_access_outside_a_surface_in_trap_mode_is_a_kernel_fault() {
    common::host_device().with(|| {
        let arr = CudaArray::for_surfaces(f32_format(), [4, 0, 0]).unwrap();
        let s = SurfaceObject::new(&arr).unwrap();
        let k = RawKernel::new(
            "extern \"C\" __global__ void out(cudaSurfaceObject_t s) {\n  surf1Dwrite(1.0f, s, 16);\n}\n",
            "out",
        );
        let e = k.launch(1u32, 1u32, (&s,)).and_then(|_| cuprum::Device::current()?.synchronize());
        let e = e.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::KernelFault, "{e}");
        assert!(e.to_string().contains(":2"), "names the line: {e}");
    });
}

#[test]
fn objects_keep_what_they_read_alive() {
    require_gpu!();
    let _turn = shared_turn();
    let mut rng = Rng::new(6);
    let (arr, data) = filled(&mut rng, [11, 0, 0]);
    let t = TextureObject::new(&Resource::Array(arr), &point_clamp()).unwrap();
    // The array's last handle is the texture's now; clones share the object.
    let t2 = t.clone();
    drop(t);
    let k = ElementwiseKernel::new("U t", "float32 y", "y = tex1D<float>(t, i + 0.5f)", "keep")
        .unwrap();
    let out = Array::zeros(&[11], DType::F32).unwrap();
    k.call((&t2, &out)).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), data);
    assert_eq!(t2.handle(), t2.clone().handle());
    // Linear memory: dropping the array leaves the texture's copy of the view.
    let mem = aligned_f32(&data, &[11]);
    let lin = TextureObject::new(
        &Resource::Linear {
            array: mem,
            format: f32_format(),
            bytes: 44,
        },
        &TextureDesc::default(),
    )
    .unwrap();
    let k = ElementwiseKernel::new(
        "U t",
        "float32 y",
        "y = tex1Dfetch<float>(t, i)",
        "keep_lin",
    )
    .unwrap();
    k.call((&lin, &out)).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), data);
}

/// A texture object dropped inside a graph capture is kept (the graph samples it when
/// launched): the capture goes on, and every replay reads the texture.
#[test]
fn a_texture_dropped_inside_a_capture_lives_on_for_the_graph() {
    require_cuda!();
    let _turn = TURNS.write().unwrap_or_else(|e| e.into_inner());
    let mut rng = Rng::new(7);
    let (arr, data) = filled(&mut rng, [300, 0, 0]);
    let k = ElementwiseKernel::new(
        "U t",
        "float32 y",
        "y = tex1D<float>(t, i + 0.5f)",
        "in_graph",
    )
    .unwrap();
    let s = cuprum::Stream::new().unwrap();
    let out = s.with(|| Array::zeros(&[300], DType::F32)).unwrap();
    let (graph, ()) = s
        .capture(|| {
            let t = TextureObject::new(&Resource::Array(arr.clone()), &point_clamp())?;
            k.call((&t, &out))?;
            drop(t);
            Ok(())
        })
        .unwrap();
    drop(arr);
    for _ in 0..2 {
        s.with(|| out.copy_from_slice(&[0f32; 300])).unwrap();
        graph.launch(&s).unwrap();
        s.synchronize().unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), data);
    }
}

#[test]
fn bad_descriptions_are_refused_with_what_was_expected() {
    // Formats: no device needed.
    let bad = |bits, kind| ChannelFormat::new(bits, kind).map(|_| ());
    assert_err(
        bad([0, 0, 0, 0], ChannelKind::Float),
        ErrorKind::InvalidArgument,
        "no channel",
    );
    assert_err(
        bad([8, 8, 8, 0], ChannelKind::Unsigned),
        ErrorKind::InvalidArgument,
        "3-channel",
    );
    assert_err(
        bad([8, 16, 0, 0], ChannelKind::Signed),
        ErrorKind::InvalidArgument,
        "different widths",
    );
    assert_err(
        bad([8, 0, 0, 0], ChannelKind::Float),
        ErrorKind::InvalidArgument,
        "unsupported channel width",
    );
    assert_err(
        bad([0, 32, 0, 0], ChannelKind::Float),
        ErrorKind::InvalidArgument,
        "zero bits before",
    );
    assert_err(
        ChannelFormat::of(DType::F64, 1),
        ErrorKind::DType,
        "float64",
    );
    assert_err(
        ChannelFormat::of(DType::F32, 3),
        ErrorKind::InvalidArgument,
        "expected 1, 2 or 4",
    );
    assert_err(
        ChannelKind::from_code(7),
        ErrorKind::InvalidArgument,
        "got 7",
    );
    assert_err(
        AddressMode::from_code(4),
        ErrorKind::InvalidArgument,
        "unknown value 4",
    );

    require_gpu!();
    let _turn = shared_turn();
    let f = f32_format();
    assert_err(
        CudaArray::new(f, [0, 0, 0]),
        ErrorKind::InvalidArgument,
        "width must be at least 1",
    );
    assert_err(
        CudaArray::new(f, [4, 0, 3]),
        ErrorKind::InvalidArgument,
        "needs a height",
    );
    assert_err(
        CudaArray::new(f, [20_000, 2, 2]),
        ErrorKind::InvalidArgument,
        "at most 16384",
    );
    assert_err(
        CudaArray::new(f, [200_000, 0, 0]),
        ErrorKind::InvalidArgument,
        "at most 131072",
    );

    let arr = CudaArray::new(f, [4, 3, 0]).unwrap();
    let wrong_shape = Array::zeros(&[4, 3], DType::F32).unwrap();
    assert_err(
        arr.copy_from(&wrong_shape),
        ErrorKind::Shape,
        "expected shape (3, 4)",
    );
    let wrong_dtype = Array::zeros(&[3, 4], DType::F64).unwrap();
    assert_err(
        arr.copy_to(&wrong_dtype),
        ErrorKind::DType,
        "expected a float32 array",
    );
    let strided = Array::zeros(&[4, 3], DType::F32).unwrap().t();
    assert_err(
        arr.copy_from(&strided),
        ErrorKind::InvalidArgument,
        "C-contiguous",
    );

    let ints = CudaArray::new(ChannelFormat::of(DType::I32, 1).unwrap(), [4, 0, 0]).unwrap();
    let linear = TextureDesc {
        filter: FilterMode::Linear,
        ..TextureDesc::default()
    };
    assert_err(
        TextureObject::new(&Resource::Array(ints.clone()), &linear),
        ErrorKind::InvalidArgument,
        "linear filtering needs float results",
    );
    let norm = TextureDesc {
        read: ReadMode::NormalizedFloat,
        ..TextureDesc::default()
    };
    assert_err(
        TextureObject::new(&Resource::Array(ints.clone()), &norm),
        ErrorKind::InvalidArgument,
        "8- or 16-bit",
    );
    assert_err(
        SurfaceObject::new(&ints),
        ErrorKind::InvalidArgument,
        "made for surfaces",
    );
    let mem = aligned_f32(&[0.0; 16], &[16]);
    let lin = |bytes| Resource::Linear {
        array: mem.clone(),
        format: f,
        bytes,
    };
    for bytes in [0, 6, 68] {
        assert_err(
            TextureObject::new(&lin(bytes), &TextureDesc::default()),
            ErrorKind::InvalidArgument,
            "positive multiple of the texel",
        );
    }
    let pitched = Resource::Pitch2D {
        array: mem.clone(),
        format: f,
        width: 3,
        height: 3,
        pitch: 8,
    };
    assert_err(
        TextureObject::new(&pitched, &TextureDesc::default()),
        ErrorKind::InvalidArgument,
        "a pitch of at least a row (12 bytes)",
    );
    // CUDA's alignments: the memory's start, and the pitch.
    let off = Resource::Linear {
        array: mem.slice(&cuprum::s![1..]).unwrap(),
        format: f,
        bytes: 8,
    };
    assert_err(
        TextureObject::new(&off, &TextureDesc::default()),
        ErrorKind::InvalidArgument,
        "4 bytes past one",
    );
    let odd_pitch = Resource::Pitch2D {
        array: mem.clone(),
        format: f,
        width: 2,
        height: 2,
        pitch: 36,
    };
    assert_err(
        TextureObject::new(&odd_pitch, &TextureDesc::default()),
        ErrorKind::InvalidArgument,
        "multiple of 32 bytes",
    );

    // Only the elementwise and reduction kernels take a texture operand.
    let t = TextureObject::new(&Resource::Array(arr), &TextureDesc::default()).unwrap();
    let scan = ScanKernel::new("T x, U t", "T y", "x", "a + b", "0", "scan_tex").unwrap();
    let x = Array::zeros(&[4], DType::F32).unwrap();
    assert_err(
        scan.call((&x, &t)),
        ErrorKind::Unsupported,
        "texture object",
    );
    assert_err(cuprum::ops::add(&x, &t), ErrorKind::DType, "texture object");
    // A texture for a parameter declared as a float: refused before anything compiles.
    let k = ElementwiseKernel::new("float32 t, T x", "T y", "y = x + t", "not_a_tex").unwrap();
    assert_err(k.call((&t, &x)), ErrorKind::DType, "texture object");
}
