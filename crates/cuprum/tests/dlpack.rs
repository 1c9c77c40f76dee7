//! DLPack (`cuprum::dlpack`): export and import without a copy for every dtype, odd shapes
//! (0-d, empty, one element), strided and negative-stride views, `byte_offset`; the legacy
//! form both ways; versions; the read-only flag (every write path refuses, reads work); the
//! exporter's deleter run exactly once in every drop order (counted by test producers);
//! `from_raw_parts`; every error a bad tensor gets; and, on a real GPU, the stream rules
//! with a spinning kernel in flight on the producer's and on the consumer's side.
//!
//! The test producer builds `DLManagedTensorVersioned`/`DLManagedTensor`s by hand over the
//! memory of a cuprum array (so it runs on the GPU and on the host device alike) or over
//! host memory (`kDLCPU`), and counts its deleter's calls. Values are random, never zeros,
//! and compared with the host data they were made from.

mod common;

use common::{Rng, assert_err};
use cuprum::dlpack::ffi::{
    DLDataType, DLDataTypeCode, DLDevice, DLDeviceType, DLManagedTensor, DLManagedTensorVersioned,
    DLPackVersion, DLTensor, DlpackFlags,
};
use cuprum::dlpack::{ConsumerStream, DlpackTensor, ExportOptions, StreamHandle, ffi};
use cuprum::internal::SLOW_FILL;
use cuprum::{Array, DType, Device, Element, ErrorKind, ops, s};
use half::{bf16, f16};
use num_complex::Complex;
use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

// -----------------------------------------------------------------------------------------
// A test producer
// -----------------------------------------------------------------------------------------

/// What a hand-made tensor describes.
#[derive(Clone)]
struct Desc {
    data: u64,
    device: (i32, i32),
    dtype: DLDataType,
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    byte_offset: u64,
    flags: DlpackFlags,
    version: (u32, u32),
}

impl Desc {
    /// The description of a C-contiguous cuprum array.
    fn of(a: &Array) -> Desc {
        Desc {
            data: a.data_ptr(),
            device: a.dlpack_device(),
            dtype: code(a.dtype()),
            shape: a.shape().iter().map(|&n| n as i64).collect(),
            strides: Some(a.strides().iter().map(|&s| s as i64).collect()),
            byte_offset: 0,
            flags: DlpackFlags::empty(),
            version: (1, 0),
        }
    }

    fn dl_tensor(&mut self, shape: &mut [i64], strides: Option<&mut Vec<i64>>) -> DLTensor {
        DLTensor {
            data: self.data as *mut c_void,
            device: DLDevice {
                device_type: DLDeviceType(self.device.0 as u32),
                device_id: self.device.1,
            },
            ndim: self.shape.len() as i32,
            dtype: self.dtype,
            shape: if shape.is_empty() {
                std::ptr::null_mut()
            } else {
                shape.as_mut_ptr()
            },
            strides: strides.map_or(std::ptr::null_mut(), |s| s.as_mut_ptr()),
            byte_offset: self.byte_offset,
        }
    }
}

/// The DLPack code of a dtype, written out here (not taken from cuprum).
fn code(d: DType) -> DLDataType {
    let (code, bits) = match d {
        DType::Bool => (6, 8),
        DType::I8 => (0, 8),
        DType::I16 => (0, 16),
        DType::I32 => (0, 32),
        DType::I64 => (0, 64),
        DType::U8 => (1, 8),
        DType::U16 => (1, 16),
        DType::U32 => (1, 32),
        DType::U64 => (1, 64),
        DType::F16 => (2, 16),
        DType::BF16 => (4, 16),
        DType::F32 => (2, 32),
        DType::F64 => (2, 64),
        DType::C64 => (5, 64),
        DType::C128 => (5, 128),
        DType::Record(r) => panic!("DLPack has no record dtype ({})", r.name()),
    };
    DLDataType {
        code: DLDataTypeCode(code),
        bits,
        lanes: 1,
    }
}

/// A versioned tensor the test made: the managed struct first, then what it owns.
#[repr(C)]
struct Made {
    managed: DLManagedTensorVersioned,
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    _keep: Box<dyn Any>,
    deleted: Arc<AtomicUsize>,
}

/// A legacy tensor the test made.
#[repr(C)]
struct MadeLegacy {
    managed: DLManagedTensor,
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    _keep: Box<dyn Any>,
    deleted: Arc<AtomicUsize>,
}

unsafe extern "C" fn delete_made(p: *mut DLManagedTensorVersioned) {
    // SAFETY: `p` is the box `produce` leaked, deleted once (the count checks it).
    let b = unsafe { Box::from_raw(p.cast::<Made>()) };
    b.deleted.fetch_add(1, Ordering::SeqCst);
}

unsafe extern "C" fn delete_made_legacy(p: *mut DLManagedTensor) {
    // SAFETY: `p` is the box `produce_legacy` leaked, deleted once.
    let b = unsafe { Box::from_raw(p.cast::<MadeLegacy>()) };
    b.deleted.fetch_add(1, Ordering::SeqCst);
}

/// A versioned tensor over `d`, keeping `keep` alive; its deleter counts into the result.
fn produce(d: Desc, keep: Box<dyn Any>) -> (DlpackTensor, Arc<AtomicUsize>) {
    let (p, n) = produce_raw(d, keep);
    // SAFETY: `p` is a fresh tensor whose ownership passes here.
    (unsafe { DlpackTensor::from_raw_versioned(p) }.unwrap(), n)
}

fn produce_raw(
    mut d: Desc,
    keep: Box<dyn Any>,
) -> (*mut DLManagedTensorVersioned, Arc<AtomicUsize>) {
    let deleted = Arc::new(AtomicUsize::new(0));
    let b = Box::into_raw(Box::new(Made {
        managed: DLManagedTensorVersioned {
            version: DLPackVersion {
                major: d.version.0,
                minor: d.version.1,
            },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete_made),
            flags: d.flags,
            dl_tensor: d.dl_tensor(&mut [], None),
        },
        shape: d.shape.clone(),
        strides: d.strides.clone(),
        _keep: keep,
        deleted: deleted.clone(),
    }));
    // SAFETY: `b` is live and never moves; the vectors' buffers stay put until the deleter.
    unsafe {
        let t = d.dl_tensor(&mut (*b).shape, (*b).strides.as_mut());
        (*b).managed.dl_tensor = t;
        (*b).managed.manager_ctx = b.cast();
    }
    (b.cast(), deleted)
}

/// A legacy tensor over `d`.
fn produce_legacy(mut d: Desc, keep: Box<dyn Any>) -> (DlpackTensor, Arc<AtomicUsize>) {
    let deleted = Arc::new(AtomicUsize::new(0));
    let b = Box::into_raw(Box::new(MadeLegacy {
        managed: DLManagedTensor {
            dl_tensor: d.dl_tensor(&mut [], None),
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete_made_legacy),
        },
        shape: d.shape.clone(),
        strides: d.strides.clone(),
        _keep: keep,
        deleted: deleted.clone(),
    }));
    // SAFETY: as in `produce_raw`; the box's ownership passes to the DlpackTensor.
    let t = unsafe {
        let t = d.dl_tensor(&mut (*b).shape, (*b).strides.as_mut());
        (*b).managed.dl_tensor = t;
        DlpackTensor::from_raw_legacy(b.cast())
    };
    (t.unwrap(), deleted)
}

/// The deleters counted by `n` that have run, once every release found finished has
/// returned: another test's thread may have taken this test's release off the list and be
/// running its deleter while this call finds the list empty (a deadlock bound of 10 s,
/// deleters here take microseconds).
fn count(n: &Arc<AtomicUsize>) -> usize {
    cuprum::dlpack::release_finished();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while cuprum::internal::foreign_releases_running() > 0 && std::time::Instant::now() < until {
        std::thread::yield_now();
    }
    n.load(Ordering::SeqCst)
}

/// Waits for the device, then gives back the imports whose work has run.
fn settle() {
    Device::current().unwrap().synchronize().unwrap();
    cuprum::dlpack::release_finished();
}

// -----------------------------------------------------------------------------------------
// Random values of every dtype
// -----------------------------------------------------------------------------------------

trait Gen: Element + PartialEq {
    fn draw(r: &mut Rng) -> Self;
}
macro_rules! gen_int {
    ($($t:ty),*) => {$(impl Gen for $t {
        fn draw(r: &mut Rng) -> Self { (r.next_u64() as $t) | 1 }
    })*};
}
gen_int!(i8, i16, i32, i64, u8, u16, u32, u64);
impl Gen for bool {
    fn draw(r: &mut Rng) -> Self {
        r.next_u64() & 1 == 1
    }
}
impl Gen for f16 {
    fn draw(r: &mut Rng) -> Self {
        f16::from_f64(common::nz(r, -100.0, 100.0))
    }
}
impl Gen for bf16 {
    fn draw(r: &mut Rng) -> Self {
        bf16::from_f64(common::nz(r, -100.0, 100.0))
    }
}
impl Gen for f32 {
    fn draw(r: &mut Rng) -> Self {
        common::nz(r, -100.0, 100.0) as f32
    }
}
impl Gen for f64 {
    fn draw(r: &mut Rng) -> Self {
        common::nz(r, -100.0, 100.0)
    }
}
impl Gen for Complex<f32> {
    fn draw(r: &mut Rng) -> Self {
        Complex::new(f32::draw(r), f32::draw(r))
    }
}
impl Gen for Complex<f64> {
    fn draw(r: &mut Rng) -> Self {
        Complex::new(f64::draw(r), f64::draw(r))
    }
}

fn values<T: Gen>(n: usize, seed: u64) -> Vec<T> {
    let mut r = Rng::new(seed);
    (0..n).map(|_| T::draw(&mut r)).collect()
}

const SHAPES: &[&[usize]] = &[&[], &[0], &[1], &[7], &[3, 5], &[2, 0, 3], &[2, 3, 4]];

/// Every shape: export → import (cuprum's own export, then the foreign path through the
/// legacy form and through a test producer), zero-copy, equal values, dtype and strides.
fn round_trip<T: Gen>() {
    for (i, shape) in SHAPES.iter().enumerate() {
        let n: usize = shape.iter().product();
        let host = values::<T>(n, 7 + i as u64);
        let a = Array::from_slice(&host, shape).unwrap();
        let tag = format!("{} {shape:?}", T::DTYPE);

        let t = a.to_dlpack(&ExportOptions::default()).unwrap();
        assert_eq!(t.shape(), Desc::of(&a).shape.as_slice(), "{tag}");
        assert_eq!(t.device(), a.dlpack_device(), "{tag}");
        let back = Array::from_dlpack(t).unwrap();
        check_same(&back, &a, &host, &tag);

        let p = a
            .to_dlpack(&ExportOptions::default())
            .unwrap()
            .into_raw_legacy()
            .unwrap();
        // SAFETY: `p` came from `into_raw_legacy` and is consumed once.
        let legacy =
            Array::from_dlpack(unsafe { DlpackTensor::from_raw_legacy(p) }.unwrap()).unwrap();
        check_same(&legacy, &a, &host, &tag);

        let (t, deleted) = produce(Desc::of(&a), Box::new(()));
        let foreign = Array::from_dlpack(t).unwrap();
        check_same(&foreign, &a, &host, &tag);
        assert!(foreign.is_writeable());
        drop(foreign);
        settle();
        assert_eq!(count(&deleted), 1, "{tag}");
    }
}

fn check_same<T: Gen>(got: &Array, want: &Array, host: &[T], tag: &str) {
    assert_eq!(got.dtype(), T::DTYPE, "{tag}");
    assert_eq!(got.shape(), want.shape(), "{tag}");
    assert_eq!(got.strides(), want.strides(), "{tag}");
    assert_eq!(got.data_ptr(), want.data_ptr(), "{tag}: zero-copy");
    assert_eq!(got.device(), want.device(), "{tag}");
    assert_eq!(got.to_vec::<T>().unwrap(), host, "{tag}");
}

#[test]
fn every_dtype_and_shape_round_trips_without_a_copy() {
    require_gpu!();
    round_trip::<bool>();
    round_trip::<i8>();
    round_trip::<i16>();
    round_trip::<i32>();
    round_trip::<i64>();
    round_trip::<u8>();
    round_trip::<u16>();
    round_trip::<u32>();
    round_trip::<u64>();
    round_trip::<f16>();
    round_trip::<bf16>();
    round_trip::<f32>();
    round_trip::<f64>();
    round_trip::<Complex<f32>>();
    round_trip::<Complex<f64>>();
}

#[test]
fn dtype_and_device_codes_are_dlpacks() {
    require_gpu!();
    for &d in DType::ALL {
        let a = Array::zeros(&[2], d).unwrap();
        let t = a.to_dlpack(&ExportOptions::default()).unwrap();
        let p = t.into_raw_versioned().unwrap();
        // SAFETY: `p` is live until it is wrapped again below.
        let dt = unsafe { (*p).dl_tensor.dtype };
        assert_eq!(
            (dt.code, dt.bits, dt.lanes),
            (code(d).code, code(d).bits, 1),
            "{d}"
        );
        // SAFETY: as above.
        let (version, flags, offset) =
            unsafe { ((*p).version, (*p).flags, (*p).dl_tensor.byte_offset) };
        assert_eq!((version.major, flags, offset), (1, DlpackFlags::empty(), 0));
        // SAFETY: consumed once.
        drop(unsafe { DlpackTensor::from_raw_versioned(p) }.unwrap());
    }
    let dev = Device::current().unwrap();
    let a = Array::zeros(&[1], DType::F32).unwrap();
    if dev.is_host() {
        assert_eq!(a.dlpack_device(), (ffi::KDL_CPU, 0));
    } else {
        assert_eq!(a.dlpack_device(), (ffi::KDL_CUDA, dev.ordinal() as i32));
    }
}

// -----------------------------------------------------------------------------------------
// Views, strides, byte_offset
// -----------------------------------------------------------------------------------------

#[test]
fn strided_and_reversed_views_export_and_import() {
    require_gpu!();
    let host = values::<f32>(24, 3);
    let a = Array::from_slice(&host, &[4, 6]).unwrap();
    let views = [
        a.slice(&s![.., 1]).unwrap(),
        a.slice(&s![1..3, ..;2]).unwrap(),
        a.t(),
        a.slice(&s![..;-1, 2..5]).unwrap(),
        a.slice(&s![2, 3]).unwrap(),
    ];
    for v in &views {
        let want = v.to_vec::<f32>().unwrap();
        let t = v.to_dlpack(&ExportOptions::default()).unwrap();
        let st: Vec<isize> = t.strides().unwrap().iter().map(|&x| x as isize).collect();
        assert_eq!(st, v.strides());
        // The foreign path, through the legacy form.
        let p = t.into_raw_legacy().unwrap();
        // SAFETY: consumed once.
        let b = Array::from_dlpack(unsafe { DlpackTensor::from_raw_legacy(p) }.unwrap()).unwrap();
        assert_eq!(b.data_ptr(), v.data_ptr());
        assert_eq!((b.shape(), b.strides()), (v.shape(), v.strides()));
        assert_eq!(b.to_vec::<f32>().unwrap(), want);
        // Views of the import read the same elements.
        assert_eq!(b.copy().unwrap().to_vec::<f32>().unwrap(), want);
    }
}

#[test]
fn byte_offset_negative_strides_and_null_strides_are_honoured() {
    require_gpu!();
    let host = values::<i32>(12, 5);
    let a = Array::from_slice(&host, &[12]).unwrap();
    // Elements 3..9 through byte_offset.
    let mut d = Desc::of(&a);
    d.byte_offset = 3 * 4;
    d.shape = vec![6];
    let (t, n1) = produce(d, Box::new(()));
    assert_eq!(
        Array::from_dlpack(t).unwrap().to_vec::<i32>().unwrap(),
        host[3..9]
    );
    // Reversed: element [0] is host[11], stride -1.
    let mut d = Desc::of(&a);
    d.byte_offset = 11 * 4;
    d.strides = Some(vec![-1]);
    let (t, n2) = produce(d, Box::new(()));
    let r = Array::from_dlpack(t).unwrap();
    let want: Vec<i32> = host.iter().rev().copied().collect();
    assert_eq!(r.to_vec::<i32>().unwrap(), want);
    drop(r);
    // Null strides (before DLPack 1.2): C order.
    let mut d = Desc::of(&a);
    d.shape = vec![3, 4];
    d.strides = None;
    let (t, n3) = produce(d, Box::new(()));
    let c = Array::from_dlpack(t).unwrap();
    assert_eq!(c.strides(), &[4, 1]);
    assert_eq!(c.to_vec::<i32>().unwrap(), host);
    drop(c);
    settle();
    assert_eq!((count(&n1), count(&n2), count(&n3)), (1, 1, 1));
}

// -----------------------------------------------------------------------------------------
// Host memory (kDLCPU) and the host device
// -----------------------------------------------------------------------------------------

#[test]
fn host_memory_imports_on_the_host_device() {
    let host_dev = common::host_device();
    let v = values::<f64>(10, 9);
    let mut store = v.clone();
    let mut d = Desc {
        data: store.as_mut_ptr() as u64,
        device: (ffi::KDL_CPU, 0),
        dtype: code(DType::F64),
        shape: vec![2, 5],
        strides: Some(vec![5, 1]),
        byte_offset: 0,
        flags: DlpackFlags::empty(),
        version: (1, 7),
    };
    let (t, deleted) = produce(d.clone(), Box::new(store));
    let a = Array::from_dlpack(t).unwrap();
    assert_eq!(a.device(), host_dev);
    assert_eq!(a.to_vec::<f64>().unwrap(), v);
    assert_eq!(a.dlpack_device(), (ffi::KDL_CPU, 0));
    drop(a);
    assert_eq!(count(&deleted), 1, "the host device releases at once");
    // kDLCUDAHost (page-locked host memory) is host memory to the host device.
    let mut store = v.clone();
    d.data = store.as_mut_ptr() as u64;
    d.device = (ffi::KDL_CUDA_HOST, 0);
    let (t, deleted) = produce(d, Box::new(store));
    let a = Array::from_dlpack(t).unwrap();
    assert_eq!(a.device(), host_dev);
    assert_eq!(a.to_vec::<f64>().unwrap(), v);
    drop(a);
    assert_eq!(count(&deleted), 1);
}

// -----------------------------------------------------------------------------------------
// Lifetimes: the deleter runs once, in every drop order
// -----------------------------------------------------------------------------------------

#[test]
fn imported_memory_lives_until_the_last_view_is_gone() {
    require_gpu!();
    let host = values::<f32>(12, 11);
    let a = Array::from_slice(&host, &[3, 4]).unwrap();
    let (t, deleted) = produce(Desc::of(&a), Box::new(a.clone()));
    let imp = Array::from_dlpack(t).unwrap();
    let col = imp.slice(&s![.., 2]).unwrap();
    let tr = imp.t();
    drop(imp);
    settle();
    assert_eq!(count(&deleted), 0, "views still hold the import");
    assert_eq!(
        col.to_vec::<f32>().unwrap(),
        vec![host[2], host[6], host[10]]
    );
    drop(col);
    settle();
    assert_eq!(count(&deleted), 0);
    assert_eq!(tr.shape(), &[4, 3]);
    drop(tr);
    settle();
    assert_eq!(count(&deleted), 1, "the last view gave the memory back");
    settle();
    assert_eq!(count(&deleted), 1, "and only once");
}

#[test]
fn a_reexported_import_keeps_the_producer_alive_in_both_drop_orders() {
    require_gpu!();
    for array_first in [true, false] {
        let host = values::<u16>(6, 13);
        let a = Array::from_slice(&host, &[6]).unwrap();
        let (t, deleted) = produce(Desc::of(&a), Box::new(a.clone()));
        let imp = Array::from_dlpack(t).unwrap();
        let again = imp.to_dlpack(&ExportOptions::default()).unwrap();
        if array_first {
            drop(imp);
            settle();
            assert_eq!(count(&deleted), 0);
            let p = again.into_raw_legacy().unwrap();
            // SAFETY: consumed once.
            let b =
                Array::from_dlpack(unsafe { DlpackTensor::from_raw_legacy(p) }.unwrap()).unwrap();
            assert_eq!(b.to_vec::<u16>().unwrap(), host);
            drop(b);
        } else {
            drop(again);
            settle();
            assert_eq!(count(&deleted), 0);
            assert_eq!(imp.to_vec::<u16>().unwrap(), host);
            drop(imp);
        }
        settle();
        assert_eq!(count(&deleted), 1, "array_first = {array_first}");
    }
}

#[test]
fn an_export_outlives_its_array_and_the_array_outlives_its_export() {
    require_gpu!();
    let host = values::<i64>(9, 17);
    // The array first.
    let a = Array::from_slice(&host, &[9]).unwrap();
    let t = a.to_dlpack(&ExportOptions::default()).unwrap();
    drop(a);
    let p = t.into_raw_versioned().unwrap();
    // Other allocations must not get the exported memory.
    let other = Array::from_slice(&values::<i64>(9, 99), &[9]).unwrap();
    // SAFETY: consumed once.
    let b = Array::from_dlpack(unsafe { DlpackTensor::from_raw_versioned(p) }.unwrap()).unwrap();
    assert_eq!(b.to_vec::<i64>().unwrap(), host);
    assert_ne!(b.data_ptr(), other.data_ptr());
    // The tensor first.
    let a = Array::from_slice(&host, &[9]).unwrap();
    drop(a.to_dlpack(&ExportOptions::default()).unwrap());
    let p = a
        .to_dlpack(&ExportOptions::default())
        .unwrap()
        .into_raw_legacy()
        .unwrap();
    // SAFETY: the legacy tensor is ours; calling its deleter is what a consumer does.
    unsafe { ((*p).deleter.unwrap())(p) };
    assert_eq!(a.to_vec::<i64>().unwrap(), host);
}

#[test]
fn a_failed_import_calls_the_deleter_once() {
    require_gpu!();
    let a = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let mut d = Desc::of(&a);
    d.dtype.lanes = 4;
    let (t, deleted) = produce(d, Box::new(()));
    assert_err(Array::from_dlpack(t), ErrorKind::DType, "4 lanes");
    assert_eq!(count(&deleted), 1);
}

// -----------------------------------------------------------------------------------------
// Versions and the legacy form
// -----------------------------------------------------------------------------------------

#[test]
fn major_versions_other_than_one_are_refused_after_the_deleter() {
    require_gpu!();
    let a = Array::from_slice(&[1u8, 2], &[2]).unwrap();
    for (major, minor) in [(0, 8), (2, 0)] {
        let mut d = Desc::of(&a);
        d.version = (major, minor);
        let (p, deleted) = produce_raw(d, Box::new(()));
        // SAFETY: a fresh tensor; the call takes ownership.
        let r = unsafe { DlpackTensor::from_raw_versioned(p) };
        assert_err(
            r,
            ErrorKind::Unsupported,
            &format!("DLPack version {major}.{minor}"),
        );
        assert_eq!(count(&deleted), 1);
    }
    let mut d = Desc::of(&a);
    d.version = (1, 99);
    let (t, deleted) = produce(d, Box::new(()));
    assert_eq!(t.version(), Some((1, 99)));
    assert_eq!(
        Array::from_dlpack(t).unwrap().to_vec::<u8>().unwrap(),
        vec![1, 2]
    );
    settle();
    assert_eq!(count(&deleted), 1);
}

#[test]
fn legacy_and_versioned_forms_convert_both_ways() {
    require_gpu!();
    let host = values::<f64>(4, 21);
    let a = Array::from_slice(&host, &[2, 2]).unwrap();
    let (t, deleted) = produce_legacy(Desc::of(&a), Box::new(()));
    assert_eq!(t.version(), None);
    assert!(!t.is_read_only());
    // legacy → versioned → legacy → import: the producer's legacy deleter once.
    let p = t.into_raw_versioned().unwrap();
    // SAFETY: consumed once each.
    let t = unsafe { DlpackTensor::from_raw_versioned(p) }.unwrap();
    assert_eq!(t.version().map(|v| v.0), Some(1));
    let p = t.into_raw_legacy().unwrap();
    // SAFETY: consumed once.
    let b = Array::from_dlpack(unsafe { DlpackTensor::from_raw_legacy(p) }.unwrap()).unwrap();
    assert_eq!(b.to_vec::<f64>().unwrap(), host);
    assert_eq!(count(&deleted), 0);
    drop(b);
    settle();
    assert_eq!(count(&deleted), 1);
    // A legacy tensor dropped unconsumed.
    let (t, deleted) = produce_legacy(Desc::of(&a), Box::new(()));
    drop(t);
    assert_eq!(count(&deleted), 1);
}

#[test]
fn null_pointers_are_errors() {
    // SAFETY: null is refused before anything is read.
    let r = unsafe { DlpackTensor::from_raw_versioned(std::ptr::null_mut()) };
    assert_err(
        r,
        ErrorKind::InvalidArgument,
        "null DLManagedTensorVersioned",
    );
    // SAFETY: as above.
    let r = unsafe { DlpackTensor::from_raw_legacy(std::ptr::null_mut()) };
    assert_err(r, ErrorKind::InvalidArgument, "null DLManagedTensor");
}

// -----------------------------------------------------------------------------------------
// Read-only
// -----------------------------------------------------------------------------------------

#[test]
fn a_read_only_import_refuses_writes_and_reads() {
    require_gpu!();
    let host = values::<f32>(6, 23);
    let a = Array::from_slice(&host, &[2, 3]).unwrap();
    let mut d = Desc::of(&a);
    d.flags = DlpackFlags::READ_ONLY;
    let (t, deleted) = produce(d, Box::new(()));
    assert!(t.is_read_only());
    let r = Array::from_dlpack(t).unwrap();
    assert!(!r.is_writeable());
    let row = r.slice(&s![1, ..]).unwrap();
    assert!(
        !row.is_writeable(),
        "views of a read-only array are read-only"
    );
    // Reads work.
    assert_eq!(r.to_vec::<f32>().unwrap(), host);
    let sum = ops::add(&r, &r).unwrap();
    assert!(sum.is_writeable());
    let want: Vec<f32> = host.iter().map(|x| x + x).collect();
    assert_eq!(sum.to_vec::<f32>().unwrap(), want);
    // Every write path refuses, naming itself.
    assert_err(
        r.fill(1.0f32),
        ErrorKind::InvalidArgument,
        "fill writes to a read-only array",
    );
    assert_err(
        row.copy_from_slice(&[1.0f32, 2.0, 3.0]),
        ErrorKind::InvalidArgument,
        "copy_from_slice",
    );
    assert_err(r.assign(&sum), ErrorKind::InvalidArgument, "assign");
    assert_err(
        ops::add_into(&sum, &sum, &r),
        ErrorKind::InvalidArgument,
        "read-only",
    );
    assert_err(
        r.inplace(|x| *x += 1.0f32),
        ErrorKind::InvalidArgument,
        "read-only",
    );
    let mask = ops::greater(&sum, 0.0f32).unwrap();
    assert_err(
        r.masked(&mask).set(0.0f32),
        ErrorKind::InvalidArgument,
        "masked assignment",
    );
    let idx = Array::from_slice(&[0i64], &[1]).unwrap();
    assert_err(
        ops::put(&r, &idx, 0.0f32),
        ErrorKind::InvalidArgument,
        "put",
    );
    assert_err(r.sort(Some(-1)), ErrorKind::InvalidArgument, "sort");
    let k = cuprum::ElementwiseKernel::new("T x", "T y", "y = x", "dlpack_copy").unwrap();
    assert_err(
        k.call((&sum, &r)),
        ErrorKind::InvalidArgument,
        "output 'y' of 'dlpack_copy'",
    );
    // The values are untouched.
    assert_eq!(r.to_vec::<f32>().unwrap(), host);
    // Re-exports stay read-only, and have no legacy form.
    let again = row.to_dlpack(&ExportOptions::default()).unwrap();
    assert!(again.is_read_only());
    assert_err(again.into_raw_legacy(), ErrorKind::Unsupported, "read-only");
    drop((r, row));
    settle();
    assert_eq!(count(&deleted), 1);
}

#[test]
fn exports_flag_read_only_when_asked() {
    require_gpu!();
    let a = Array::from_slice(&[3i32, 4], &[2]).unwrap();
    let t = a
        .to_dlpack(&ExportOptions {
            read_only: true,
            ..Default::default()
        })
        .unwrap();
    assert!(t.is_read_only());
    let b = Array::from_dlpack(t).unwrap();
    assert!(!b.is_writeable());
    assert!(a.is_writeable(), "the exporter's own array stays writeable");
    assert_eq!(b.to_vec::<i32>().unwrap(), vec![3, 4]);
    assert!(
        !a.to_dlpack(&ExportOptions::default())
            .unwrap()
            .is_read_only()
    );
}

// -----------------------------------------------------------------------------------------
// Bad tensors
// -----------------------------------------------------------------------------------------

#[test]
fn bad_tensors_are_typed_errors_naming_what_was_given() {
    require_gpu!();
    let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4]).unwrap();
    let bad = |f: &dyn Fn(&mut Desc)| {
        let mut d = Desc::of(&a);
        f(&mut d);
        let (t, deleted) = produce(d, Box::new(()));
        let r = Array::from_dlpack(t);
        assert_eq!(count(&deleted), 1, "the deleter ran on the error");
        r
    };
    let m = assert_err(
        bad(&|d| {
            d.dtype = DLDataType {
                code: DLDataTypeCode(2),
                bits: 8,
                lanes: 1,
            }
        }),
        ErrorKind::DType,
        "code 2, 8 bits, 1 lanes",
    );
    assert!(m.contains("expected"), "{m}");
    assert_err(
        bad(&|d| {
            d.dtype = DLDataType {
                code: DLDataTypeCode(3),
                bits: 64,
                lanes: 1,
            }
        }),
        ErrorKind::DType,
        "code 3",
    );
    assert_err(
        bad(&|d| d.device = (4, 0)),
        ErrorKind::Unsupported,
        "DLPack device type 4",
    );
    assert_err(
        bad(&|d| d.device = (ffi::KDL_CUDA, -1)),
        ErrorKind::InvalidArgument,
        "device id -1",
    );
    assert_err(
        bad(&|d| d.shape = vec![-2]),
        ErrorKind::InvalidArgument,
        "negative extent -2",
    );
    assert_err(
        bad(&|d| d.data = 0),
        ErrorKind::InvalidArgument,
        "null data pointer",
    );
    assert_err(
        bad(&|d| d.byte_offset = 3),
        ErrorKind::InvalidArgument,
        "not aligned for float64",
    );
    assert_err(
        bad(&|d| {
            d.shape = vec![1 << 62, 4];
            d.strides = Some(vec![1 << 62, 1]);
        }),
        ErrorKind::Shape,
        "too large",
    );
    assert_err(
        bad(&|d| {
            d.shape = vec![1 << 40, 4];
            d.strides = Some(vec![1 << 40, 1]);
        }),
        ErrorKind::InvalidArgument,
        "reaches beyond the address space",
    );
    // An empty tensor may have a null data pointer.
    let mut d = Desc::of(&a);
    d.data = 0;
    d.shape = vec![0, 3];
    d.strides = Some(vec![3, 1]);
    let (t, deleted) = produce(d, Box::new(()));
    let empty = Array::from_dlpack(t).unwrap();
    assert_eq!(empty.shape(), &[0, 3]);
    assert!(empty.to_vec::<f64>().unwrap().is_empty());
    drop(empty);
    settle();
    assert_eq!(count(&deleted), 1);
}

// -----------------------------------------------------------------------------------------
// Streams
// -----------------------------------------------------------------------------------------

#[test]
fn consumer_streams_from_python_ints() {
    // SAFETY: the handles made here (3, 0xabc) are compared, never given to the driver.
    unsafe {
        assert_eq!(ConsumerStream::from_python_int(-1).unwrap(), None);
        assert_eq!(
            ConsumerStream::from_python_int(1).unwrap(),
            Some(ConsumerStream::Legacy)
        );
        assert_eq!(
            ConsumerStream::from_python_int(2).unwrap(),
            Some(ConsumerStream::PerThread)
        );
        assert_eq!(
            ConsumerStream::from_python_int(3).unwrap(),
            Some(ConsumerStream::Raw(StreamHandle::new(3)))
        );
        assert_err(
            ConsumerStream::from_python_int(0),
            ErrorKind::InvalidArgument,
            "stream=0",
        );
        assert_err(
            ConsumerStream::from_python_int(-5),
            ErrorKind::InvalidArgument,
            "stream=-5",
        );
        assert_eq!(ConsumerStream::Legacy.handle() as usize, 1);
        let raw = ConsumerStream::Raw(StreamHandle::new(0xabc));
        assert_eq!(raw.handle() as usize, 0xabc);
    }
}

#[test]
fn exports_with_a_consumer_stream_work_on_every_device() {
    require_gpu!();
    let host = values::<f32>(16, 29);
    let a = Array::from_slice(&host, &[16]).unwrap();
    let own = cuprum::Stream::new().unwrap();
    for cs in [
        ConsumerStream::Legacy,
        ConsumerStream::PerThread,
        // SAFETY: `own` is a live stream of `a`'s device for the whole loop.
        ConsumerStream::Raw(unsafe { StreamHandle::new(own.raw_handle() as usize) }),
    ] {
        let t = a
            .to_dlpack(&ExportOptions {
                consumer_stream: Some(cs),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(
            Array::from_dlpack(t).unwrap().to_vec::<f32>().unwrap(),
            host
        );
    }
}

#[test]
fn foreign_streams_are_borrowed() {
    require_gpu!();
    let dev = Device::current().unwrap();
    let own = cuprum::Stream::new_on(dev).unwrap();
    // SAFETY: `own` outlives `s` and the work queued on it.
    let s = unsafe { cuprum::Stream::from_raw(&dev, own.raw_handle()) }.unwrap();
    assert_eq!(s, own);
    let a = s.with(|| Array::from_slice(&[1u32, 2, 3], &[3])).unwrap();
    assert_eq!(a.to_vec::<u32>().unwrap(), vec![1, 2, 3]);
    drop(a);
    drop(s);
    own.synchronize().unwrap(); // still alive: the borrowed handle destroyed nothing
    if !dev.is_host() {
        // SAFETY: null is refused before use.
        let r = unsafe { cuprum::Stream::from_raw(&dev, std::ptr::null_mut()) };
        assert_err(r, ErrorKind::InvalidArgument, "null CUstream");
    }
}

/// Copies `n` floats from a raw address (work cuprum does not track: a consumer's).
const RAW_COPY: &str = r#"
extern "C" __global__ void raw_copy(const float* src, float* dst, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x)
        dst[i] = src[i];
}"#;
const SPIN: i64 = 200_000_000;

#[test]
fn an_export_orders_the_producers_pending_work_before_the_consumer_stream() {
    require_cuda!();
    let n = 1 << 16;
    let slow = cuprum::RawKernel::new(SLOW_FILL, "slow_fill");
    let copy = cuprum::RawKernel::new(RAW_COPY, "raw_copy");
    let (producer, consumer) = (
        cuprum::Stream::new().unwrap(),
        cuprum::Stream::new().unwrap(),
    );
    let a = producer.with(|| Array::zeros(&[n], DType::F32)).unwrap();
    producer
        .with(|| slow.launch(64, 256, (&a, 7.0f32, n as i64, SPIN)))
        .unwrap();
    let t = a
        .to_dlpack(&ExportOptions {
            // SAFETY: `consumer` is a live stream of the device until the test ends.
            consumer_stream: Some(ConsumerStream::Raw(unsafe {
                StreamHandle::new(consumer.raw_handle() as usize)
            })),
            ..Default::default()
        })
        .unwrap();
    // The consumer reads the raw address on its stream, as a foreign library would.
    let out = consumer.with(|| Array::zeros(&[n], DType::F32)).unwrap();
    consumer
        .with(|| copy.launch(64, 256, (a.data_ptr(), &out, n as i64)))
        .unwrap();
    consumer.synchronize().unwrap();
    assert!(
        out.to_vec::<f32>().unwrap().iter().all(|&v| v == 7.0),
        "the consumer ran before the producer's slow fill"
    );
    drop(t);
}

#[test]
fn an_import_counts_as_used_on_the_importing_stream() {
    require_cuda!();
    let n = 1 << 16;
    let slow = cuprum::RawKernel::new(SLOW_FILL, "slow_fill");
    let base = Array::zeros(&[n], DType::F32).unwrap();
    Device::current().unwrap().synchronize().unwrap();
    let (importer, other) = (
        cuprum::Stream::new().unwrap(),
        cuprum::Stream::new().unwrap(),
    );
    let (t, deleted) = produce(Desc::of(&base), Box::new(base.clone()));
    let imp = importer.with(|| Array::from_dlpack(t)).unwrap();
    // Slow work on the importing stream, then a read on another stream: it waits.
    importer
        .with(|| slow.launch(64, 256, (&imp, 5.0f32, n as i64, SPIN)))
        .unwrap();
    let copy = other.with(|| imp.copy()).unwrap();
    assert!(copy.to_vec::<f32>().unwrap().iter().all(|&v| v == 5.0));
    // Slow work in flight on the import when the array is dropped: the deleter waits for it
    // without a host synchronisation.
    importer
        .with(|| slow.launch(64, 256, (&imp, 6.0f32, n as i64, SPIN)))
        .unwrap();
    assert!(
        !importer.is_done().unwrap(),
        "the slow kernel runs on the importing stream"
    );
    drop((imp, copy));
    // The deleter must not run while the kernel writes the memory. Released already only
    // if the kernel has finished meanwhile: on an H100 with four test threads the release
    // was found done at this point, while alone it never is (most likely this thread's
    // driver calls waited behind another test's device synchronisation, by which time the
    // 0.1 s kernel had finished).
    if count(&deleted) == 1 {
        assert!(
            importer.is_done().unwrap(),
            "released while a kernel still writes the memory"
        );
    } else {
        assert!(cuprum::internal::foreign_releases_pending() >= 1);
    }
    importer.synchronize().unwrap();
    settle();
    assert_eq!(count(&deleted), 1);
    assert!(base.to_vec::<f32>().unwrap().iter().all(|&v| v == 6.0));
}

// -----------------------------------------------------------------------------------------
// from_raw_parts
// -----------------------------------------------------------------------------------------

/// Counts its drops.
struct Owner(Arc<AtomicUsize>, #[allow(dead_code)] Array);
impl Drop for Owner {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn raw_parts_with_an_owner() {
    require_gpu!();
    let host = values::<i16>(12, 31);
    let a = Array::from_slice(&host, &[12]).unwrap();
    let dropped = Arc::new(AtomicUsize::new(0));
    let owner = Owner(dropped.clone(), a.clone());
    // SAFETY: 12 int16 at `a.data_ptr()` on `a.device()`, kept alive by `owner`.
    let v = unsafe {
        Array::from_raw_parts(
            a.data_ptr(),
            DType::I16,
            &[3, 4],
            None,
            a.device(),
            Box::new(owner),
        )
    }
    .unwrap();
    assert_eq!(v.data_ptr(), a.data_ptr());
    assert_eq!(v.to_vec::<i16>().unwrap(), host);
    // Transposed through strides.
    let owner = Owner(dropped.clone(), a.clone());
    // SAFETY: as above.
    let t = unsafe {
        Array::from_raw_parts(
            a.data_ptr(),
            DType::I16,
            &[4, 3],
            Some(&[1, 4]),
            a.device(),
            Box::new(owner),
        )
    }
    .unwrap();
    assert_eq!(
        t.copy().unwrap().to_vec::<i16>().unwrap(),
        v.t().copy().unwrap().to_vec::<i16>().unwrap()
    );
    drop((v, t));
    settle();
    assert_eq!(count(&dropped), 2);
    // SAFETY: refused before use.
    let r = unsafe {
        Array::from_raw_parts(
            a.data_ptr(),
            DType::I16,
            &[3, 4],
            Some(&[1]),
            a.device(),
            Box::new(()),
        )
    };
    assert_err(
        r,
        ErrorKind::InvalidArgument,
        "1 strides for a shape of 2 dimensions",
    );
    // SAFETY: refused before use.
    let r = unsafe { Array::from_raw_parts(0, DType::I16, &[3], None, a.device(), Box::new(())) };
    assert_err(r, ErrorKind::InvalidArgument, "null data pointer");
}
