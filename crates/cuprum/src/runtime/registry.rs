//! Opening devices and choosing the current one: the registry of GPUs (each opened once
//! per process through the CUDA backend), the host device, the process default
//! (`CUPRUM_DEVICE`, [`Device::make_default`]) and each thread's current device.

use super::cuda::{self, driver::driver_info};
use super::device::{Device, DeviceInner, HOST_ORDINAL};
use super::host;
use super::pool::INITIAL_THRESHOLD;
use crate::error::{Result, bail};
use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A thread that has not chosen a device uses the process default.
const UNSET: usize = usize::MAX - 1;

thread_local! {
    static CURRENT: Cell<usize> = const { Cell::new(UNSET) };
}

/// The device chosen with [`Device::make_default`] (`UNSET`: none).
static DEFAULT: AtomicUsize = AtomicUsize::new(UNSET);

/// The process default: [`Device::make_default`]'s choice, else `CUPRUM_DEVICE`, else GPU 0.
fn default_ordinal() -> Result<usize> {
    match DEFAULT.load(Ordering::Acquire) {
        UNSET => env_default(),
        d => Ok(d),
    }
}

/// `CUPRUM_DEVICE`: `host` (or `cpu`), `cuda`, `cuda:N` or `N`; unset or empty: GPU 0.
fn env_default() -> Result<usize> {
    static ENV: OnceLock<Result<usize>> = OnceLock::new();
    ENV.get_or_init(|| {
        let v = std::env::var("CUPRUM_DEVICE").unwrap_or_default();
        parse_device(&v).ok_or_else(|| {
            crate::error::err!(
                InvalidArgument,
                "CUPRUM_DEVICE={v:?} is not a device: expected `host` (the CPU), `cuda`, \
                 `cuda:N` or a GPU ordinal N"
            )
        })
    })
    .clone()
}

/// The ordinal a `CUPRUM_DEVICE` value names.
fn parse_device(v: &str) -> Option<usize> {
    let v = v.trim();
    match v.to_ascii_lowercase().as_str() {
        "" | "cuda" | "gpu" => Some(0),
        "host" | "cpu" => Some(HOST_ORDINAL),
        s => s
            .strip_prefix("cuda:")
            .unwrap_or(s)
            .parse::<usize>()
            .ok()
            .filter(|&n| n < UNSET),
    }
}

/// The device of an ordinal key (`HOST_ORDINAL` is the host device).
fn by_ordinal(ordinal: usize) -> Result<Device> {
    if ordinal == HOST_ORDINAL {
        Ok(Device::host())
    } else {
        Device::get(ordinal)
    }
}

fn registry() -> Result<&'static [OnceLock<Result<&'static DeviceInner>>]> {
    static DEVICES: OnceLock<Vec<OnceLock<Result<&'static DeviceInner>>>> = OnceLock::new();
    let info = driver_info()?;
    Ok(DEVICES.get_or_init(|| (0..info.device_count).map(|_| OnceLock::new()).collect()))
}

impl Device {
    /// Number of CUDA devices, or the error that says why there are none.
    ///
    /// ```
    /// match cuprum::Device::count() {
    ///     Ok(n) => println!("{n} GPU(s)"),
    ///     Err(e) => println!("no GPU: {e}"),
    /// }
    /// ```
    pub fn count() -> Result<usize> {
        Ok(driver_info()?.device_count)
    }

    /// The devices the process runs on: its GPUs, or 1 when the current device is the host
    /// device (`CUPRUM_DEVICE=host`, or no GPU) — CuPy's `getDeviceCount` as a program on
    /// the host device sees it.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// assert!(cuprum::Device::count_in_use()? >= 1);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn count_in_use() -> Result<usize> {
        if Device::current()?.is_host() {
            return Ok(1);
        }
        Device::count()
    }

    /// Opens device `ordinal` (once per process; later calls are a lookup).
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// let dev = cuprum::Device::get(0)?;
    /// assert_eq!(dev.ordinal(), 0);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn get(ordinal: usize) -> Result<Device> {
        let reg = registry()?;
        let Some(slot) = reg.get(ordinal) else {
            bail!(
                NoDevice,
                "no CUDA device {ordinal}: this machine has {} device(s) (ordinals 0..{})",
                reg.len(),
                reg.len()
            );
        };
        slot.get_or_init(|| open(ordinal))
            .as_ref()
            .map(|d| Device(d))
            .map_err(Clone::clone)
    }

    /// The CPU as a device: kernels are compiled by the system C++ compiler (`g++` or
    /// `clang++`, from `CUPRUM_HOST_CXX`, `CXX` or `PATH`) with cuprum's shim headers and
    /// run on a pool of worker threads (`CUPRUM_HOST_THREADS`, default: one per core);
    /// arrays live in host memory. Launches are synchronous (streams only order work) and
    /// kernel faults (an `assert`, a trap, a divergent or deadlocked barrier, an integer
    /// division by zero) are errors naming the block and thread. Always available; a
    /// missing compiler is an error at the first compile.
    ///
    /// ```
    /// use cuprum::{Array, Device, DType};
    /// let host = Device::host();
    /// assert!(host.is_host());
    /// let a = host.with(|| Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]))?;
    /// assert_eq!(a.device(), host);
    /// assert_eq!(a.to_vec::<f32>()?, [1.0, 2.0, 3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn host() -> Device {
        static HOST: OnceLock<&'static DeviceInner> = OnceLock::new();
        Device(HOST.get_or_init(|| {
            let (props, backend) = host::open();
            DeviceInner::leak(HOST_ORDINAL, props, Box::new(backend))
        }))
    }

    /// The calling thread's current device: the one chosen with
    /// [`make_current`](Device::make_current) or [`with`](Device::with), else the process
    /// default ([`make_default`](Device::make_default), else `CUPRUM_DEVICE` — `host`,
    /// `cuda`, `cuda:N` or `N` —, else GPU 0).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let dev = cuprum::Device::current()?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn current() -> Result<Device> {
        match CURRENT.with(Cell::get) {
            UNSET => by_ordinal(default_ordinal()?),
            d => by_ordinal(d),
        }
    }

    /// Makes this device the default of every thread that has not chosen one with
    /// [`make_current`](Device::make_current) or [`with`](Device::with), for the rest of
    /// the process (over `CUPRUM_DEVICE`). Test harnesses use it to run a GPU test suite
    /// on the host device where there is no GPU.
    ///
    /// ```
    /// let host = cuprum::Device::host();
    /// host.make_default();
    /// std::thread::spawn(move || assert_eq!(cuprum::Device::current().unwrap(), host))
    ///     .join()
    ///     .unwrap();
    /// ```
    pub fn make_default(self) {
        DEFAULT.store(self.0.ordinal, Ordering::Release);
    }

    /// Makes this the calling thread's current device (like `cupy.cuda.Device(n).use()`).
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// let dev = cuprum::Device::get(0)?;
    /// dev.make_current();
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn make_current(self) {
        CURRENT.with(|c| c.set(self.0.ordinal));
    }

    /// Runs `f` with this device current on the calling thread, then restores the previous.
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// let dev = cuprum::Device::get(0)?;
    /// let a = dev.with(|| cuprum::Array::zeros(&[4], cuprum::DType::F32))?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn with<R>(self, f: impl FnOnce() -> R) -> R {
        let prev = CURRENT.with(|c| c.replace(self.0.ordinal));
        struct Restore(usize);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(self.0));
            }
        }
        let _restore = Restore(prev);
        f()
    }

    /// Why this machine has no usable GPU — no driver, a driver older than CUDA 13.0, or no
    /// device — or `None` when device 0 opens. For programs that should explain and skip
    /// instead of failing where there is no GPU; other errors still surface at first use.
    ///
    /// ```
    /// if let Some(why) = cuprum::Device::no_gpu_reason() {
    ///     println!("skipping: {why}");
    /// }
    /// ```
    pub fn no_gpu_reason() -> Option<crate::Error> {
        use crate::ErrorKind::{DriverTooOld, NoDevice, NoDriver};
        match Device::get(0) {
            Err(e) if matches!(e.kind(), NoDriver | NoDevice | DriverTooOld) => Some(e),
            _ => None,
        }
    }

    /// Every GPU of this machine, in ordinal order (each opened once per process). The
    /// host device ([`Device::host`]) is not among them; without a usable GPU this is the
    /// error [`Device::count`] gives (no driver, a driver too old, or no device).
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// for dev in cuprum::Device::all()? {
    ///     println!("{}: {}", dev.ordinal(), dev.name());
    /// }
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn all() -> Result<Vec<Device>> {
        (0..Device::count()?).map(Device::get).collect()
    }
}

/// Opens GPU `ordinal` through the CUDA backend. The pool's release threshold follows the
/// peak of what cuprum holds (see `pool::PoolPolicy`); it starts at 256 MiB.
fn open(ordinal: usize) -> Result<&'static DeviceInner> {
    let (props, backend) = cuda::open(ordinal, INITIAL_THRESHOLD)?;
    Ok(DeviceInner::leak(ordinal, props, Box::new(backend)))
}
