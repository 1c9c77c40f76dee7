//! Faults, both kinds in one place:
//! - [`sticky`]: a CUDA context broken by a kernel fault (an illegal address, a device-side
//!   assert …): recorded once, then every later call on the device fails naming it;
//! - [`record`]: the fault record kernels written in Rust fill when a bounds, division or
//!   shift check fails, read after every synchronisation (the context stays usable).

pub(crate) mod record;
pub(crate) mod sticky;
