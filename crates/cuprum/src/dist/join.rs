//! Joining a communicator from a [`Launch`]: the GPU rule and the unique id's way to the
//! other ranks (TCP store, file, or none for one rank).

use super::launch::{Launch, Rendezvous};
use super::store;
use crate::error::{Result, bail};
use crate::nccl::{Communicator, UniqueId};
use crate::runtime::Device;

/// The GPU ordinal for a launch's rank when `visible` GPUs are visible: the only one when
/// one is visible, else the local rank's; an error naming both counts when the node has
/// more ranks than GPUs (or none is visible).
///
/// ```
/// use cuprum::dist::{Launch, device_for};
/// let vars = [("RANK", "3"), ("WORLD_SIZE", "8"), ("LOCAL_RANK", "3"),
///             ("LOCAL_WORLD_SIZE", "4"), ("MASTER_ADDR", "h")];
/// let l = Launch::from_vars(|n| vars.iter().find(|v| v.0 == n).map(|v| v.1.to_string()))?;
/// assert_eq!(device_for(&l, 4)?, 3);
/// assert_eq!(device_for(&l, 1)?, 0);
/// let e = device_for(&l, 2).unwrap_err();
/// assert!(e.to_string().contains("4 ranks on this node but 2 visible GPUs"), "{e}");
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn device_for(launch: &Launch, visible: usize) -> Result<usize> {
    let local = launch.local_world_size.unwrap_or(launch.local_rank + 1);
    if visible == 0 {
        bail!(
            NoDevice,
            "rank {} needs a GPU, but no GPU is visible (CUDA_VISIBLE_DEVICES={})",
            launch.rank,
            std::env::var("CUDA_VISIBLE_DEVICES").unwrap_or_else(|_| "unset".into())
        );
    }
    if visible == 1 {
        return Ok(0);
    }
    if local.max(launch.local_rank + 1) > visible {
        bail!(
            InvalidArgument,
            "{}: {} ranks on this node but {visible} visible GPUs (local rank {} has none); \
             start at most {visible} ranks per node, or make one GPU visible to each rank \
             (CUDA_VISIBLE_DEVICES)",
            launch.launcher,
            local.max(launch.local_rank + 1),
            launch.local_rank
        );
    }
    Ok(launch.local_rank)
}

impl Communicator {
    /// This process's rank of a communicator over every rank of a launch, read from the
    /// launcher's environment, on the GPU [`device_for`] picks; see [`crate::dist`] (whose
    /// [`init`](crate::dist::init) also makes that GPU the default device).
    ///
    /// ```no_run
    /// let comm = cuprum::nccl::Communicator::from_env()?;
    /// println!("{comm:?}");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_env() -> Result<Communicator> {
        let launch = Launch::from_env()?;
        let device = Device::get(device_for(&launch, Device::count()?)?)?;
        Communicator::from_launch(&launch, device)
    }

    /// This process's rank of the communicator `launch` describes, on `device`: the unique
    /// id created on rank 0 and shared by the launch's rendezvous.
    ///
    /// ```no_run
    /// let launch = cuprum::dist::Launch::from_env()?;
    /// let comm = cuprum::nccl::Communicator::from_launch(&launch, cuprum::Device::get(0)?)?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_launch(launch: &Launch, device: Device) -> Result<Communicator> {
        device.require_gpu("NCCL communicators")?;
        let (rank, size) = (launch.rank, launch.world_size);
        match &launch.rendezvous {
            Rendezvous::Single => Communicator::from_unique_id(&UniqueId::new()?, 0, 1, device),
            Rendezvous::File(path) => {
                Communicator::from_unique_id_file(path, rank, size, device, launch.timeout)
            }
            Rendezvous::Tcp { host, port, source } => {
                let id = if rank == 0 {
                    let root = store::Root::bind(*port, source)?;
                    let id = UniqueId::new()?;
                    root.serve(size, &launch.run_id, id.as_bytes(), launch.timeout)?;
                    id
                } else {
                    let bytes = store::fetch(
                        host,
                        *port,
                        source,
                        rank,
                        size,
                        &launch.run_id,
                        launch.timeout,
                    )?;
                    UniqueId::from_bytes(&bytes)?
                };
                Communicator::from_unique_id(&id, rank, size, device)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    fn launch(vars: &[(&str, &str)]) -> Launch {
        Launch::from_vars(|n| vars.iter().find(|v| v.0 == n).map(|v| v.1.to_string()))
            .expect("a valid launch")
    }

    #[test]
    fn the_gpu_rule() {
        let four = launch(&[
            ("OMPI_COMM_WORLD_RANK", "6"),
            ("OMPI_COMM_WORLD_SIZE", "8"),
            ("OMPI_COMM_WORLD_LOCAL_RANK", "2"),
            ("OMPI_COMM_WORLD_LOCAL_SIZE", "4"),
            ("MASTER_ADDR", "n0"),
        ]);
        assert_eq!(device_for(&four, 4).unwrap(), 2);
        assert_eq!(device_for(&four, 8).unwrap(), 2);
        assert_eq!(device_for(&four, 1).unwrap(), 0, "one visible GPU per task");
        let e = device_for(&four, 3).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(
            e.to_string()
                .contains("Open MPI (OMPI_COMM_WORLD_RANK): 4 ranks on this node but 3 visible GPUs (local rank 2 has none)"),
            "{e}"
        );
        let e = device_for(&four, 0).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoDevice);
        assert!(
            e.to_string()
                .contains("rank 6 needs a GPU, but no GPU is visible"),
            "{e}"
        );
        // no local size: the local rank alone decides
        let t = launch(&[("RANK", "3"), ("WORLD_SIZE", "4"), ("MASTER_ADDR", "h")]);
        assert_eq!(device_for(&t, 4).unwrap(), 3);
        let e = device_for(&t, 2).unwrap_err();
        assert!(
            e.to_string()
                .contains("4 ranks on this node but 2 visible GPUs"),
            "{e}"
        );
    }

    #[test]
    fn older_and_fallback_variables() {
        let l = launch(&[
            ("SLURM_PROCID", "1"),
            ("SLURM_NPROCS", "2"),
            ("CUPRUM_NCCL_ID_FILE", "/shared/run.id"),
        ]);
        assert_eq!((l.rank, l.world_size, l.local_rank), (1, 2, 1));
        assert_eq!(l.rendezvous, Rendezvous::File("/shared/run.id".into()));
        assert_eq!(l.run_id, "");
    }
}
