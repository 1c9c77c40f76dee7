//! Starting under a launcher: torchrun, Slurm, mpirun or cuprum's own variables, without
//! code changes. [`init`] reads the launcher's environment ([`Launch`]; the precedence and
//! every variable are in [`Launch::from_env`]'s module, `dist/launch.rs`), picks this
//! process's GPU from its local rank, meets the other ranks (a small TCP store on rank 0,
//! or a shared file) to share NCCL's unique id, and returns the communicator.
//!
//! **The GPU**: with one GPU visible (a launcher that sets `CUDA_VISIBLE_DEVICES` per task,
//! or a MIG instance) every rank takes it; else the local rank's GPU, and more ranks on the
//! node than visible GPUs is an error naming both counts.
//!
//! **Why a store of cuprum's own** rather than NCCL's `NCCL_COMM_ID` bootstrap: NCCL's root
//! waits forever for a rank that never starts, and its errors do not say which; the store
//! hands out the id only once every rank has arrived, so a missing rank fails everyone,
//! named, within the timeout (`dist/store.rs`).
//!
//! This layer sits beside `nccl/` and uses it; `nccl/` knows nothing of launchers.
//!
//! ```no_run
//! // Runs unchanged on one GPU, under `torchrun --no-python --nproc-per-node=4`, `srun`,
//! // `mpirun -n 4`.
//! use cuprum::{Array, DType, nccl::ReduceOp};
//! let dist = cuprum::dist::init()?;
//! let x = Array::full(&[1024], dist.rank() as f32, DType::F32)?; // on this rank's GPU
//! dist.comm().all_reduce(&[x.clone()], &[x.clone()], ReduceOp::Sum)?;
//! dist.comm().synchronize()?; // a dead peer is an error here, never a hang
//! # Ok::<(), cuprum::Error>(())
//! ```

mod join;
mod launch;
mod nodelist;
mod store;

pub use join::device_for;
pub use launch::{DEFAULT_PORT, Launch, Launcher, Rendezvous};
pub use nodelist::{expand_nodelist, expand_tasks_per_node, first_node};

use crate::error::Result;
use crate::nccl::Communicator;
use crate::runtime::Device;

/// This process's rank in a launched run: its [`Launch`], its GPU (made the process's
/// default device) and the [`Communicator`] of one rank joined with all the others.
#[derive(Debug)]
pub struct Dist {
    launch: Launch,
    device: Device,
    comm: Communicator,
}

/// Reads the launcher's environment, picks and makes default this rank's GPU, meets the
/// other ranks and returns the joined communicator (see the [module](self) docs). Without
/// a launcher it is rank 0 of 1 on GPU 0.
///
/// ```no_run
/// let dist = cuprum::dist::init()?;
/// println!("rank {} of {} on GPU {}", dist.rank(), dist.world_size(), dist.device().ordinal());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn init() -> Result<Dist> {
    let launch = Launch::from_env()?;
    let device = Device::get(device_for(&launch, Device::count()?)?)?;
    device.make_default();
    let comm = Communicator::from_launch(&launch, device)?;
    Ok(Dist {
        launch,
        device,
        comm,
    })
}

impl Dist {
    /// This process's rank.
    ///
    /// ```no_run
    /// assert!(cuprum::dist::init()?.rank() < 1024);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn rank(&self) -> usize {
        self.launch.rank
    }

    /// The number of ranks.
    ///
    /// ```no_run
    /// assert!(cuprum::dist::init()?.world_size() >= 1);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn world_size(&self) -> usize {
        self.launch.world_size
    }

    /// This process's GPU (also the process's default device).
    ///
    /// ```no_run
    /// let d = cuprum::dist::init()?;
    /// assert_eq!(cuprum::Device::current()?, d.device());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn device(&self) -> Device {
        self.device
    }

    /// What the launcher's environment said.
    ///
    /// ```no_run
    /// println!("{}", cuprum::dist::init()?.launch().launcher);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn launch(&self) -> &Launch {
        &self.launch
    }

    /// The communicator (this process's one rank).
    ///
    /// ```no_run
    /// assert_eq!(cuprum::dist::init()?.comm().ranks().len(), 1);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn comm(&self) -> &Communicator {
        &self.comm
    }

    /// The communicator, taken out (to move it to another thread).
    ///
    /// ```no_run
    /// let comm = cuprum::dist::init()?.into_comm();
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn into_comm(self) -> Communicator {
        self.comm
    }
}
