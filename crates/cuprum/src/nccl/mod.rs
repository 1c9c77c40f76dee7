//! Collectives over several GPUs through NCCL, NVIDIA's collective communication library,
//! loaded at run time (see [`version`] for where it is looked for).
//!
//! A [`Communicator`] joins ranks, one GPU each. In one process it holds every local GPU
//! ([`Communicator::new`], `ncclCommInitAll`); across processes (and machines) each process
//! holds one rank and the ranks meet through a [`UniqueId`] that rank 0 creates and shares,
//! as 256 hex digits, through a file ([`Communicator::from_unique_id_file`]: rank 0 writes
//! it atomically, the others wait for it to appear) or an environment variable
//! ([`UniqueId::from_env`]). Under a launcher (torchrun, Slurm, mpirun),
//! [`Communicator::from_env`] and [`crate::dist::init`] read the rank and meet the other
//! ranks over TCP (the `dist` layer above this one).
//!
//! Point to point: [`Communicator::send`], [`Communicator::recv`] and grouped
//! [`Communicator::p2p`]. Faults: a watchdog (`watchdog.rs`) aborts a communicator whose
//! peer failed (NCCL's asynchronous error) or whose collective outlives the timeout; every
//! later call, and [`Communicator::synchronize`], returns
//! [`ErrorKind::CommAborted`](crate::ErrorKind::CommAborted).
//!
//! Every collective takes one array per local rank (in the communicator's rank order), runs
//! on each array's device and is stream-ordered like every other call: on the current
//! stream when it belongs to that device, else the device's default stream, after the work
//! already queued on the arrays. Before any NCCL call a collective checks the arrays'
//! devices, dtypes, contiguity and sizes, and takes each address with `ptr_on` for its
//! rank's stream (so the buffers' cross-stream rules hold). The local ranks' calls are
//! grouped (`ncclGroupStart`/`ncclGroupEnd`), so one thread drives all GPUs.
//!
//! Reductions: [`ReduceOp`] `Sum`, `Prod`, `Max`, `Min` on every integer and floating dtype
//! NCCL knows (int8/uint8/int32/uint32/int64/uint64, float16, bfloat16, float32, float64),
//! `Avg` on the floating ones. Arrays must be C-contiguous.
//!
//! Environment: before NCCL is loaded, cuprum sets `NCCL_NVLS_ENABLE=0` (NVLink multicast
//! stays off) and `NCCL_P2P_DIRECT_DISABLE=1` (arrays live in each device's stream-ordered
//! memory pool, which other GPUs of the process may not access directly, so NCCL must not
//! read or write a peer's user buffer itself), each only when the variable is not set yet.
//!
//! ```
//! # if !cuprum_doctest::nccl()? { return Ok(()); }
//! use cuprum::{Array, DType, Device};
//! use cuprum::nccl::{Communicator, ReduceOp};
//! let devices = Device::all()?;
//! let comm = Communicator::new(&devices)?;
//! // One array per GPU, each holding its rank + 1.
//! let xs: Vec<Array> = devices
//!     .iter()
//!     .enumerate()
//!     .map(|(r, &d)| d.with(|| Array::full(&[1024], (r + 1) as f32, DType::F32)))
//!     .collect::<cuprum::Result<_>>()?;
//! comm.all_reduce(&xs, &xs, ReduceOp::Sum)?;          // in place
//! let n = devices.len() as f32;
//! assert_eq!(xs[0].to_vec::<f32>()?[0], n * (n + 1.0) / 2.0);
//! # Ok::<(), cuprum::Error>(())
//! ```

mod library;
mod p2p;
mod watchdog;

pub use p2p::P2p;

use crate::array::{Array, DType};
use crate::error::{Result, bail, err};
use crate::runtime::{Device, Stream};
use library::{RawComm, RawUniqueId, nccl};
use std::ffi::{c_int, c_void};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use watchdog::Guarded;

/// The version of the NCCL library cuprum loads, as `(major, minor, patch)`, loading it if
/// needed; an [`ErrorKind::Nccl`](crate::ErrorKind::Nccl) error when it cannot be loaded.
///
/// NCCL is looked for at `CUPRUM_NCCL` when that variable is set (and only there), else
/// through the loader (`LD_LIBRARY_PATH`, the system folders: `libnccl.so.2`), else in the
/// pip wheel `nvidia-nccl-cu13` (`nvidia/nccl/lib/libnccl.so.2` in the site-packages of the
/// Python that `CUPRUM_PYTHON` names, `python3` by default), else in
/// `$CUDA_HOME/lib64`, `$CUDA_PATH/lib64` and `/usr/local/cuda/lib64`. No GPU is needed.
///
/// ```
/// match cuprum::nccl::version() {
///     Ok((major, minor, patch)) => println!("NCCL {major}.{minor}.{patch}"),
///     Err(e) => println!("no NCCL: {e}"),
/// }
/// ```
pub fn version() -> Result<(u32, u32, u32)> {
    let n = nccl()?;
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid out pointer.
    n.check(unsafe { (n.get_version)(&mut v) }, "ncclGetVersion")?;
    let v = v.max(0) as u32;
    // NCCL_VERSION_CODE: major*10000 + minor*100 + patch since 2.9 (major*1000 + … before).
    Ok(if v >= 10000 {
        (v / 10000, (v / 100) % 100, v % 100)
    } else {
        (v / 1000, (v / 100) % 10, v % 100)
    })
}

/// Where NCCL was loaded from (a path or a library name), loading it if needed.
///
/// ```
/// if let Ok(from) = cuprum::nccl::library_path() {
///     println!("NCCL from {from}");
/// }
/// ```
pub fn library_path() -> Result<String> {
    Ok(nccl()?.origin.clone())
}

/// A reduction of a collective (NCCL's `ncclRedOp_t`).
///
/// ```
/// use cuprum::nccl::ReduceOp;
/// assert_eq!(ReduceOp::Sum.to_string(), "sum");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The sum over ranks.
    Sum,
    /// The product over ranks.
    Prod,
    /// The largest value.
    Max,
    /// The smallest value.
    Min,
    /// The mean over ranks (floating dtypes only).
    Avg,
}

impl ReduceOp {
    fn raw(self) -> c_int {
        match self {
            ReduceOp::Sum => 0,
            ReduceOp::Prod => 1,
            ReduceOp::Max => 2,
            ReduceOp::Min => 3,
            ReduceOp::Avg => 4,
        }
    }
}

impl std::fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Avg => "avg",
        })
    }
}

/// NCCL's `ncclDataType_t` of a dtype.
fn nccl_dtype(what: &str, d: DType) -> Result<c_int> {
    Ok(match d {
        DType::I8 => 0,
        DType::U8 => 1,
        DType::I32 => 2,
        DType::U32 => 3,
        DType::I64 => 4,
        DType::U64 => 5,
        DType::F16 => 6,
        DType::F32 => 7,
        DType::F64 => 8,
        DType::BF16 => 9,
        _ => bail!(
            Unsupported,
            "{what}: NCCL has no {d} type; expected int8, uint8, int32, uint32, int64, uint64, \
             float16, bfloat16, float32 or float64"
        ),
    })
}

/// The identifier that the ranks of one multi-process communicator share (NCCL's
/// `ncclUniqueId`, 128 bytes). Rank 0 creates it with [`UniqueId::new`] and hands it to the
/// others, as hex text ([`to_hex`](UniqueId::to_hex)) in a file or an environment variable.
///
/// ```
/// # if !cuprum_doctest::nccl()? { return Ok(()); }
/// let id = cuprum::nccl::UniqueId::new()?;
/// let text = id.to_hex();
/// assert_eq!(text.len(), 256);
/// assert_eq!(cuprum::nccl::UniqueId::from_hex(&text)?, id);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UniqueId([u8; 128]);

impl std::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UniqueId({}…)", &self.to_hex()[..16])
    }
}

impl UniqueId {
    /// A fresh identifier (`ncclGetUniqueId`; on rank 0, which also listens at the address
    /// it holds). Needs NCCL, not a GPU.
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// let id = cuprum::nccl::UniqueId::new()?;
    /// // hand `id.to_hex()` to the other ranks, e.g. in an environment variable
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn new() -> Result<UniqueId> {
        let n = nccl()?;
        let mut raw = RawUniqueId { internal: [0; 128] };
        // SAFETY: `raw` is a valid out pointer of NCCL's 128-byte id type.
        n.check(unsafe { (n.get_unique_id)(&mut raw) }, "ncclGetUniqueId")?;
        Ok(UniqueId(raw.internal.map(|c| c as u8)))
    }

    /// The 128 bytes as 256 lowercase hex digits.
    ///
    /// ```
    /// let id = cuprum::nccl::UniqueId::from_hex(&"ab".repeat(128))?;
    /// assert_eq!(id.to_hex(), "ab".repeat(128));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Reads [`to_hex`](UniqueId::to_hex)'s text back (surrounding whitespace ignored).
    ///
    /// ```
    /// let err = cuprum::nccl::UniqueId::from_hex("12ab").unwrap_err();
    /// assert_eq!(err.kind(), cuprum::ErrorKind::InvalidArgument);
    /// ```
    pub fn from_hex(text: &str) -> Result<UniqueId> {
        let t = text.trim();
        if t.len() != 256 || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!(
                InvalidArgument,
                "an NCCL unique id is 256 hex digits, given {} characters{}",
                t.len(),
                if t.bytes().all(|b| b.is_ascii_hexdigit()) {
                    ""
                } else {
                    " that are not all hex digits"
                }
            );
        }
        let mut out = [0u8; 128];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(&t[2 * i..2 * i + 2], 16)
                .map_err(|e| err!(InvalidArgument, "bad hex in NCCL unique id: {e}"))?;
        }
        Ok(UniqueId(out))
    }

    /// Reads the identifier from the environment variable `var` (hex text).
    ///
    /// ```
    /// let err = cuprum::nccl::UniqueId::from_env("CUPRUM_SURELY_UNSET_ID").unwrap_err();
    /// assert_eq!(err.kind(), cuprum::ErrorKind::InvalidArgument);
    /// ```
    pub fn from_env(var: &str) -> Result<UniqueId> {
        match std::env::var(var) {
            Ok(v) => UniqueId::from_hex(&v),
            Err(_) => bail!(
                InvalidArgument,
                "expected the NCCL unique id (256 hex digits) in the environment variable \
                 {var}, which is not set"
            ),
        }
    }

    /// The 128 bytes.
    ///
    /// ```
    /// let id = cuprum::nccl::UniqueId::from_bytes(&[7; 128])?;
    /// assert_eq!(id.as_bytes(), &[7; 128]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn as_bytes(&self) -> &[u8; 128] {
        &self.0
    }

    /// An identifier from its 128 bytes (as [`as_bytes`](UniqueId::as_bytes) gives them).
    ///
    /// ```
    /// let e = cuprum::nccl::UniqueId::from_bytes(&[0; 3]).unwrap_err();
    /// assert!(e.to_string().contains("given 3"), "{e}");
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<UniqueId> {
        let b: [u8; 128] = bytes.try_into().map_err(|_| {
            err!(
                InvalidArgument,
                "an NCCL unique id is 128 bytes, given {}",
                bytes.len()
            )
        })?;
        Ok(UniqueId(b))
    }

    fn raw(&self) -> RawUniqueId {
        RawUniqueId {
            internal: self.0.map(|b| b as std::ffi::c_char),
        }
    }
}

/// `Unsupported` for the host device: NCCL ranks are GPUs (checked before NCCL is loaded).
fn gpu_rank(device: Device) -> Result<()> {
    device.require_gpu("NCCL communicators")
}

/// One local rank: its NCCL communicator (under the watchdog), rank and GPU.
type Rank = Arc<Guarded>;

/// A group of ranks, one GPU each, for NCCL collectives (see the [module](self) docs).
///
/// It holds the ranks of this process: every GPU given to [`Communicator::new`], or one
/// rank for the multi-process forms. The communicators are destroyed when it is dropped.
/// A `Communicator` may be moved to another thread but not shared (NCCL communicators are
/// not safe to use from two threads at once). NCCL's ordering rule applies: the collectives
/// of communicators that share GPUs must be queued in the same order on every GPU (for
/// example, from one thread at a time), else they can wait for each other forever.
pub struct Communicator {
    local: Vec<Rank>,
    size: usize,
}

// SAFETY: the NCCL communicators are plain handles that may be used from any thread, one
// thread at a time; `Communicator` is not `Sync`, so `&self` methods never run concurrently.
unsafe impl Send for Communicator {}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ranks: Vec<String> = self
            .local
            .iter()
            .map(|r| format!("rank {} on device {}", r.rank, r.device.ordinal()))
            .collect();
        write!(
            f,
            "Communicator({} ranks; here: {})",
            self.size,
            ranks.join(", ")
        )
    }
}

/// Waits for the queued collectives (bounded by the watchdog's timeout), then destroys the
/// communicators (an aborted one is already freed).
impl Drop for Communicator {
    fn drop(&mut self) {
        for r in &self.local {
            r.close();
        }
    }
}

impl Communicator {
    /// A communicator over `devices` in this process (`ncclCommInitAll`): rank `i` is
    /// `devices[i]`. One device gives a one-rank communicator, whose collectives copy.
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// let comm = cuprum::nccl::Communicator::new(&cuprum::Device::all()?)?;
    /// assert_eq!(comm.size(), cuprum::Device::count()?);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn new(devices: &[Device]) -> Result<Communicator> {
        if devices.is_empty() {
            bail!(
                InvalidArgument,
                "a communicator needs at least one device, given none"
            );
        }
        for (i, d) in devices.iter().enumerate() {
            gpu_rank(*d)?;
            if let Some(j) = devices[..i].iter().position(|e| e == d) {
                bail!(
                    InvalidArgument,
                    "a communicator needs distinct devices, given device {} twice (at {j} and {i})",
                    d.ordinal()
                );
            }
        }
        let n = nccl()?;
        let list: Vec<c_int> = devices.iter().map(|d| d.ordinal() as c_int).collect();
        for d in devices {
            d.bind()?;
        }
        let mut comms: Vec<RawComm> = vec![std::ptr::null_mut(); devices.len()];
        // SAFETY: `comms` has room for `list.len()` handles; `list` holds valid ordinals
        // whose primary contexts cuprum holds.
        n.check(
            unsafe { (n.comm_init_all)(comms.as_mut_ptr(), list.len() as c_int, list.as_ptr()) },
            "ncclCommInitAll",
        )?;
        Ok(Communicator {
            local: comms
                .into_iter()
                .zip(devices)
                .enumerate()
                .map(|(rank, (comm, &device))| Guarded::new(comm, rank, devices.len(), device))
                .collect(),
            size: devices.len(),
        })
    }

    /// One rank of a communicator of `size` ranks that meet through `id` (`ncclCommInitRank`),
    /// on `device`. Every rank must call this (usually one per process); it returns once all
    /// have joined.
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// use cuprum::nccl::{Communicator, UniqueId};
    /// // rank 0 of 1: a communicator of one process
    /// let comm = Communicator::from_unique_id(&UniqueId::new()?, 0, 1, cuprum::Device::get(0)?)?;
    /// assert_eq!((comm.size(), comm.ranks()), (1, vec![0]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_unique_id(
        id: &UniqueId,
        rank: usize,
        size: usize,
        device: Device,
    ) -> Result<Communicator> {
        if size == 0 || rank >= size {
            bail!(
                InvalidArgument,
                "expected a rank in 0..{size} of a communicator of {size} ranks, given rank {rank}"
            );
        }
        gpu_rank(device)?;
        let n = nccl()?;
        device.bind()?;
        let mut comm: RawComm = std::ptr::null_mut();
        // SAFETY: `comm` is a valid out pointer; the device's context is current, which is
        // the device NCCL takes for this rank.
        n.check(
            unsafe { (n.comm_init_rank)(&mut comm, size as c_int, id.raw(), rank as c_int) },
            "ncclCommInitRank",
        )?;
        Ok(Communicator {
            local: vec![Guarded::new(comm, rank, size, device)],
            size,
        })
    }

    /// [`from_unique_id`](Communicator::from_unique_id) with the id shared through a file:
    /// rank 0 creates the id and writes it to `path` (atomically: a temporary file renamed);
    /// the other ranks wait up to `timeout` for the file to appear and read it. Use a fresh
    /// path for each run (a file left from an earlier run would hand out a stale id); on
    /// several machines, a path on a shared file system.
    ///
    /// ```no_run
    /// use cuprum::{Device, nccl::Communicator};
    /// use std::time::Duration;
    /// let rank: usize = std::env::var("RANK").unwrap_or("0".into()).parse().unwrap_or(0);
    /// let size: usize = std::env::var("WORLD_SIZE").unwrap_or("1".into()).parse().unwrap_or(1);
    /// let dev = Device::get(rank % Device::count()?)?;
    /// let comm = Communicator::from_unique_id_file("/tmp/run42.ncclid", rank, size, dev,
    ///                                              Duration::from_secs(60))?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_unique_id_file(
        path: impl AsRef<Path>,
        rank: usize,
        size: usize,
        device: Device,
        timeout: Duration,
    ) -> Result<Communicator> {
        let path = path.as_ref();
        if size == 0 || rank >= size {
            bail!(
                InvalidArgument,
                "expected a rank in 0..{size} of a communicator of {size} ranks, given rank {rank}"
            );
        }
        let id = if rank == 0 {
            let id = UniqueId::new()?;
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            std::fs::write(&tmp, id.to_hex())
                .and_then(|()| std::fs::rename(&tmp, path))
                .map_err(|e| err!(Io, "writing the NCCL unique id to {}: {e}", path.display()))?;
            id
        } else {
            read_id_file(path, timeout)?
        };
        Communicator::from_unique_id(&id, rank, size, device)
    }

    /// The number of ranks of the whole communicator (all processes).
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// let devices = cuprum::Device::all()?;
    /// let comm = cuprum::nccl::Communicator::new(&devices)?;
    /// assert_eq!(comm.size(), devices.len());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn size(&self) -> usize {
        self.size
    }

    /// The ranks this process holds, in the order collectives take their arrays.
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// let comm = cuprum::nccl::Communicator::new(&cuprum::Device::all()?)?;
    /// assert_eq!(comm.ranks(), (0..comm.size()).collect::<Vec<_>>());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn ranks(&self) -> Vec<usize> {
        self.local.iter().map(|r| r.rank).collect()
    }

    /// The device of each local rank, in [`ranks`](Communicator::ranks) order.
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// let devices = cuprum::Device::all()?;
    /// let comm = cuprum::nccl::Communicator::new(&devices)?;
    /// assert_eq!(comm.devices(), devices);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn devices(&self) -> Vec<Device> {
        self.local.iter().map(|r| r.device).collect()
    }

    /// Element-wise reduction over all ranks, the result on every rank: `recv[i]` of each
    /// local rank gets `op` over every rank's `send`. `send` and `recv` may be the same
    /// arrays (in place). Shapes may differ but sizes must match.
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// use cuprum::{Array, Device, nccl::{Communicator, ReduceOp}};
    /// let comm = Communicator::new(&[Device::get(0)?])?;
    /// let x = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// let y = Array::zeros_like(&x)?;
    /// comm.all_reduce(&[x], &[y.clone()], ReduceOp::Max)?;
    /// assert_eq!(y.to_vec::<f64>()?, vec![1.0, 2.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn all_reduce(&self, send: &[Array], recv: &[Array], op: ReduceOp) -> Result<()> {
        let what = "all_reduce";
        let plan = self.plan(what, send, recv, Sizes::Same)?;
        let dt = self.op_for(what, plan.dtype, op)?;
        self.grouped(what, &plan, |n, p, comm, stream| {
            // SAFETY: `p` holds live, checked buffers of `count` elements on this rank's
            // device, ordered with `stream`.
            unsafe { (n.all_reduce)(p.send, p.recv, plan.count, dt, op.raw(), comm, stream) }
        })
    }

    /// Reduction over all ranks into rank `root`'s `recv` (the other ranks' `recv` arrays
    /// are not meaningful afterwards; they still must be valid arrays of the right size).
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// use cuprum::{Array, Device, nccl::{Communicator, ReduceOp}};
    /// let comm = Communicator::new(&[Device::get(0)?])?;
    /// let x = Array::from_slice(&[3i32, 4], &[2])?;
    /// comm.reduce(&[x.clone()], &[x.clone()], ReduceOp::Sum, 0)?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn reduce(&self, send: &[Array], recv: &[Array], op: ReduceOp, root: usize) -> Result<()> {
        let what = "reduce";
        self.check_root(what, root)?;
        let plan = self.plan(what, send, recv, Sizes::Same)?;
        let dt = self.op_for(what, plan.dtype, op)?;
        let root = root as c_int;
        self.grouped(what, &plan, |n, p, comm, stream| {
            // SAFETY: as in `all_reduce`.
            unsafe { (n.reduce)(p.send, p.recv, plan.count, dt, op.raw(), root, comm, stream) }
        })
    }

    /// Copies rank `root`'s `send` into every rank's `recv` (the other ranks' `send` is not
    /// read; it may be the `recv` array).
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// use cuprum::{Array, Device, nccl::Communicator};
    /// let comm = Communicator::new(&[Device::get(0)?])?;
    /// let x = Array::from_slice(&[7u8, 8], &[2])?;
    /// let y = Array::zeros_like(&x)?;
    /// comm.broadcast(&[x], &[y.clone()], 0)?;
    /// assert_eq!(y.to_vec::<u8>()?, vec![7, 8]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn broadcast(&self, send: &[Array], recv: &[Array], root: usize) -> Result<()> {
        let what = "broadcast";
        self.check_root(what, root)?;
        let plan = self.plan(what, send, recv, Sizes::Same)?;
        let dt = nccl_dtype(what, plan.dtype)?;
        let root = root as c_int;
        self.grouped(what, &plan, |n, p, comm, stream| {
            // SAFETY: as in `all_reduce`.
            unsafe { (n.broadcast)(p.send, p.recv, plan.count, dt, root, comm, stream) }
        })
    }

    /// Every rank's `send` (of `k` elements), concatenated in rank order, into every rank's
    /// `recv` (of `k × size()` elements).
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// use cuprum::{Array, DType, Device, nccl::Communicator};
    /// let comm = Communicator::new(&[Device::get(0)?])?;
    /// let x = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// let all = Array::zeros(&[2 * comm.size()], DType::F32)?;
    /// comm.all_gather(&[x], &[all.clone()])?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn all_gather(&self, send: &[Array], recv: &[Array]) -> Result<()> {
        let what = "all_gather";
        let plan = self.plan(what, send, recv, Sizes::Gather)?;
        let dt = nccl_dtype(what, plan.dtype)?;
        self.grouped(what, &plan, |n, p, comm, stream| {
            // SAFETY: as in `all_reduce`; `recv` holds `count × size` elements (checked).
            unsafe { (n.all_gather)(p.send, p.recv, plan.count, dt, comm, stream) }
        })
    }

    /// Reduction over all ranks, scattered: `send` holds `k × size()` elements, and rank
    /// `r`'s `recv` (of `k` elements) gets `op` over every rank's block `r`.
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// use cuprum::{Array, DType, Device, nccl::{Communicator, ReduceOp}};
    /// let comm = Communicator::new(&[Device::get(0)?])?;
    /// let x = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// let part = Array::zeros(&[2 / comm.size()], DType::F32)?;
    /// comm.reduce_scatter(&[x], &[part.clone()], ReduceOp::Sum)?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn reduce_scatter(&self, send: &[Array], recv: &[Array], op: ReduceOp) -> Result<()> {
        let what = "reduce_scatter";
        let plan = self.plan(what, send, recv, Sizes::Scatter)?;
        let dt = self.op_for(what, plan.dtype, op)?;
        self.grouped(what, &plan, |n, p, comm, stream| {
            // SAFETY: as in `all_reduce`; `send` holds `count × size` elements (checked).
            unsafe { (n.reduce_scatter)(p.send, p.recv, plan.count, dt, op.raw(), comm, stream) }
        })
    }

    fn check_root(&self, what: &str, root: usize) -> Result<()> {
        if root >= self.size {
            bail!(
                InvalidArgument,
                "{what}: expected a root rank in 0..{}, given {root}",
                self.size
            );
        }
        Ok(())
    }

    fn op_for(&self, what: &str, dtype: DType, op: ReduceOp) -> Result<c_int> {
        let dt = nccl_dtype(what, dtype)?;
        if op == ReduceOp::Avg && !dtype.is_float() {
            bail!(
                Unsupported,
                "{what}: the avg reduction needs a floating dtype (float16, bfloat16, float32, \
                 float64), given {dtype}"
            );
        }
        Ok(dt)
    }

    /// Checks one array per local rank (device, layout, dtype) and the element counts.
    fn plan(&self, what: &str, send: &[Array], recv: &[Array], sizes: Sizes) -> Result<Plan> {
        let local = self.local.len();
        for (name, arrays) in [("send", send), ("recv", recv)] {
            if arrays.len() != local {
                bail!(
                    InvalidArgument,
                    "{what}: expected one {name} array per local rank ({local}), given {}",
                    arrays.len()
                );
            }
        }
        for r in recv {
            r.check_writeable(format_args!("{what} (a recv array)"))?;
        }
        let dtype = send[0].dtype();
        let mut count = None;
        let mut ptrs = Vec::with_capacity(local);
        for (i, r) in self.local.iter().enumerate() {
            for (name, a) in [("send", &send[i]), ("recv", &recv[i])] {
                if a.device() != r.device {
                    bail!(
                        DeviceMismatch,
                        "{what}: expected the {name} array of rank {} on its device {} ({}), \
                         given an array on device {} ({})",
                        r.rank,
                        r.device.ordinal(),
                        r.device.name(),
                        a.device().ordinal(),
                        a.device().name()
                    );
                }
                if a.dtype() != dtype {
                    bail!(
                        DType,
                        "{what}: expected every array to be {dtype} (the first send array's \
                         dtype), given a {} {name} array for rank {}",
                        a.dtype(),
                        r.rank
                    );
                }
                if !a.is_c_contiguous() {
                    bail!(
                        InvalidArgument,
                        "{what}: expected a C-contiguous {name} array for rank {}, given a view \
                         of shape {:?} and element strides {:?}; pass `.to_contiguous()?`",
                        r.rank,
                        a.shape(),
                        a.strides()
                    );
                }
            }
            let (s, v, n) = (send[i].size(), recv[i].size(), self.size);
            let sc = match sizes {
                Sizes::Same if s == v => s,
                Sizes::Gather if s.checked_mul(n) == Some(v) => s,
                Sizes::Scatter if v.checked_mul(n) == Some(s) => v,
                _ => bail!(Shape, "{what}: {}", size_rule(sizes, s, v, n)),
            };
            if let Some(c) = count
                && c != sc
            {
                bail!(
                    Shape,
                    "{what}: expected the same element count on every local rank ({c}), given \
                     {sc} for rank {}",
                    r.rank
                );
            }
            count = Some(sc);
            let stream = Stream::for_device(r.device)?;
            let sp = send[i].ptr_on(&stream) as *const c_void;
            let rp = recv[i].ptr_on(&stream) as *mut c_void;
            ptrs.push((Ptrs { send: sp, recv: rp }, stream));
        }
        Ok(Plan {
            dtype,
            count: count.unwrap_or(0),
            ptrs,
        })
    }

    /// Calls `f` for every local rank inside one NCCL group (a single rank needs none).
    fn grouped(
        &self,
        what: &str,
        plan: &Plan,
        f: impl Fn(&library::Nccl, &Ptrs, RawComm, *mut c_void) -> c_int,
    ) -> Result<()> {
        let f = &f;
        let calls: Vec<Call<'_>> = plan
            .ptrs
            .iter()
            .enumerate()
            .map(|(i, (p, stream))| Call {
                local: i,
                stream: stream.clone(),
                f: Box::new(move |n: &library::Nccl, comm: RawComm, s: *mut c_void| {
                    f(n, p, comm, s)
                }),
            })
            .collect();
        self.run_calls(what, &calls)
    }

    /// Runs `calls` (at most one group of NCCL calls) under their ranks' locks, then records
    /// each used rank's completion for the watchdog. An aborted rank fails the whole call
    /// before anything is queued.
    fn run_calls(&self, what: &str, calls: &[Call<'_>]) -> Result<()> {
        let n = nccl()?;
        let mut used: Vec<usize> = calls.iter().map(|c| c.local).collect();
        used.sort_unstable();
        used.dedup();
        let mut locks = Vec::with_capacity(used.len());
        for &i in &used {
            locks.push((i, self.local[i].enter(what)?));
        }
        let group = calls.len() > 1;
        if group {
            // SAFETY: no arguments; opens a group that is closed below on every path.
            n.check(unsafe { (n.group_start)() }, "ncclGroupStart")?;
        }
        let mut first_err = None;
        for c in calls {
            let r = &self.local[c.local];
            if let Err(e) = r.device.bind() {
                first_err.get_or_insert(e);
                break;
            }
            let Some((_, st)) = locks.iter().find(|(i, _)| *i == c.local) else {
                break;
            };
            let res = (c.f)(n, st.comm, c.stream.as_raw().cast());
            if let Err(e) = n.check(res, &format!("nccl {what} (rank {})", r.rank)) {
                first_err.get_or_insert(e);
                break;
            }
        }
        if group {
            // SAFETY: closes the group opened above.
            let end = n.check(unsafe { (n.group_end)() }, "ncclGroupEnd");
            if let Err(e) = end {
                first_err.get_or_insert(e);
            }
        }
        if let Some(e) = first_err {
            return Err(e);
        }
        for (i, st) in &mut locks {
            let stream = calls.iter().find(|c| c.local == *i).map(|c| &c.stream);
            if let Some(stream) = stream {
                self.local[*i].queued(st, what, stream)?;
            }
        }
        Ok(())
    }

    /// Sends `array` (C-contiguous, any dtype NCCL knows) to rank `peer`, from this
    /// process's one rank (a communicator of several local ranks uses [`p2p`](Self::p2p)).
    /// Stream-ordered like the collectives; it completes when `peer` receives.
    ///
    /// ```no_run
    /// // rank 0 sends, rank 1 receives (one process each)
    /// use cuprum::{Array, DType};
    /// let dist = cuprum::dist::init()?;
    /// let x = Array::zeros(&[1024], DType::F32)?;
    /// match dist.rank() {
    ///     0 => dist.comm().send(&x, 1)?,
    ///     1 => dist.comm().recv(&x, 0)?,
    ///     _ => {}
    /// }
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn send(&self, array: &Array, peer: usize) -> Result<()> {
        self.one_local("send")?;
        self.p2p(&[P2p::send(0, array, peer)])
    }

    /// Receives into `array` from rank `peer` (see [`send`](Self::send)).
    ///
    /// ```no_run
    /// let dist = cuprum::dist::init()?;
    /// let x = cuprum::Array::zeros(&[4], cuprum::DType::F64)?;
    /// if dist.rank() == 1 { dist.comm().recv(&x, 0)?; }
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn recv(&self, array: &Array, peer: usize) -> Result<()> {
        self.one_local("recv")?;
        self.p2p(&[P2p::recv(0, array, peer)])
    }

    /// Runs sends and receives as one NCCL group: every matching pair may be in the same
    /// list (one thread driving several local ranks), and a rank may send and receive at
    /// once (a ring shift). Each array must be C-contiguous on its local rank's device;
    /// a send and its receive must have the same dtype and element count.
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// use cuprum::{Array, Device, nccl::{Communicator, P2p}};
    /// let comm = Communicator::new(&[Device::get(0)?])?;
    /// let x = Array::from_slice(&[1.5f32, 2.5], &[2])?;
    /// let y = Array::zeros_like(&x)?;
    /// comm.p2p(&[P2p::send(0, &x, 0), P2p::recv(0, &y, 0)])?; // to itself
    /// assert_eq!(y.to_vec::<f32>()?, vec![1.5, 2.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn p2p(&self, ops: &[P2p<'_>]) -> Result<()> {
        let what = "send/recv";
        let mut calls = Vec::with_capacity(ops.len());
        for op in ops {
            let name = if op.is_send { "send" } else { "recv" };
            let Some(r) = self.local.get(op.local) else {
                bail!(
                    InvalidArgument,
                    "{name}: expected a local rank index in 0..{}, given {}",
                    self.local.len(),
                    op.local
                );
            };
            if op.peer >= self.size {
                bail!(
                    InvalidArgument,
                    "{name}: expected a peer rank in 0..{}, given {}",
                    self.size,
                    op.peer
                );
            }
            let a = op.array;
            if a.device() != r.device {
                bail!(
                    DeviceMismatch,
                    "{name}: expected the array of rank {} on its device {}, given an array on \
                     device {}",
                    r.rank,
                    r.device.ordinal(),
                    a.device().ordinal()
                );
            }
            if !a.is_c_contiguous() {
                bail!(
                    InvalidArgument,
                    "{name}: expected a C-contiguous array for rank {}, given a view of shape \
                     {:?} and element strides {:?}; pass `.to_contiguous()?`",
                    r.rank,
                    a.shape(),
                    a.strides()
                );
            }
            if !op.is_send {
                a.check_writeable("recv")?;
            }
            let dt = nccl_dtype(name, a.dtype())?;
            let stream = Stream::for_device(r.device)?;
            let (count, peer) = (a.size(), op.peer as c_int);
            let is_send = op.is_send;
            let ptr = a.ptr_on(&stream) as *mut c_void;
            calls.push(Call {
                local: op.local,
                stream,
                f: Box::new(move |n: &library::Nccl, comm: RawComm, s: *mut c_void| {
                    // SAFETY: `ptr` is a live, checked buffer of `count` elements on this
                    // rank's device, ordered with `s` (taken with `ptr_on`).
                    unsafe {
                        if is_send {
                            (n.send)(ptr, count, dt, peer, comm, s)
                        } else {
                            (n.recv)(ptr, count, dt, peer, comm, s)
                        }
                    }
                }),
            });
        }
        if calls.is_empty() {
            return Ok(());
        }
        self.run_calls(what, &calls)
    }

    fn one_local(&self, what: &str) -> Result<()> {
        if self.local.len() != 1 {
            bail!(
                InvalidArgument,
                "{what}: expected a communicator of one local rank, given one of {} local ranks; \
                 use `p2p` with P2p::{what}(local, …) for each",
                self.local.len()
            );
        }
        Ok(())
    }

    /// Waits until every collective queued on this communicator has finished on the GPU
    /// (polling the completion each records, bounded by the watchdog's timeout). The
    /// normal path never needs it (collectives are stream-ordered like kernels); call it
    /// where a dead peer must become an error, e.g. before trusting a result. An
    /// [`ErrorKind::CommAborted`](crate::ErrorKind::CommAborted) error names the collective
    /// and the rank when a peer failed or the timeout passed.
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// use cuprum::{Array, Device, nccl::{Communicator, ReduceOp}};
    /// let comm = Communicator::new(&[Device::get(0)?])?;
    /// let x = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// comm.all_reduce(&[x.clone()], &[x.clone()], ReduceOp::Sum)?;
    /// comm.synchronize()?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        for r in &self.local {
            r.wait()?;
        }
        Ok(())
    }

    /// Waits until every rank of the communicator has reached its `barrier` (a one-element
    /// all-reduce on each local rank's device, then [`synchronize`](Self::synchronize)):
    /// ranks leave together, e.g. to start a timed step at the same moment. Errors as
    /// `synchronize`'s.
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// let comm = cuprum::nccl::Communicator::new(&[cuprum::Device::get(0)?])?;
    /// comm.barrier()?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn barrier(&self) -> Result<()> {
        let ones = self
            .devices()
            .into_iter()
            .map(|d| Array::zeros_on_device(d, &[1], DType::F32))
            .collect::<Result<Vec<_>>>()?;
        self.all_reduce(&ones, &ones, ReduceOp::Sum)?;
        self.synchronize()
    }

    /// How long a collective may run before the watchdog aborts the communicator (default
    /// `CUPRUM_NCCL_TIMEOUT` seconds, else 600 s). Keep it above the longest collective.
    ///
    /// ```
    /// # if !cuprum_doctest::nccl()? { return Ok(()); }
    /// let comm = cuprum::nccl::Communicator::new(&[cuprum::Device::get(0)?])?;
    /// comm.set_timeout(std::time::Duration::from_secs(60));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn set_timeout(&self, timeout: Duration) {
        for r in &self.local {
            r.set_timeout(timeout);
        }
    }
}

/// One NCCL call of a group: the local rank it runs for, its stream, and the call.
#[allow(clippy::type_complexity)]
struct Call<'a> {
    local: usize,
    stream: Stream,
    f: Box<dyn Fn(&library::Nccl, RawComm, *mut c_void) -> c_int + 'a>,
}

/// How a collective's send and recv sizes relate.
#[derive(Clone, Copy)]
enum Sizes {
    /// Equal (all_reduce, reduce, broadcast).
    Same,
    /// recv = size() × send (all_gather).
    Gather,
    /// send = size() × recv (reduce_scatter).
    Scatter,
}

/// Why the sizes of a collective's arrays do not fit.
fn size_rule(sizes: Sizes, send: usize, recv: usize, n: usize) -> String {
    match sizes {
        Sizes::Gather => format!(
            "expected recv to hold size() × send elements ({n} × {send} = {}), given {recv}",
            n.saturating_mul(send)
        ),
        Sizes::Scatter => format!(
            "expected send to hold size() × recv elements ({n} × {recv} = {}), given {send}",
            n.saturating_mul(recv)
        ),
        Sizes::Same => format!("expected send and recv of the same size, given {send} and {recv}"),
    }
}

struct Ptrs {
    send: *const c_void,
    recv: *mut c_void,
}

struct Plan {
    dtype: DType,
    count: usize,
    ptrs: Vec<(Ptrs, Stream)>,
}

fn read_id_file(path: &Path, timeout: Duration) -> Result<UniqueId> {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.trim().len() == 256
        {
            return UniqueId::from_hex(&text);
        }
        if start.elapsed() >= timeout {
            bail!(
                Io,
                "waited {:.1} s for rank 0 to write the NCCL unique id to {}; it did not appear",
                timeout.as_secs_f64(),
                path.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
