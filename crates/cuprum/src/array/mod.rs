//! The array layer: dtypes, shapes and strides, the [`Array`] type, creation, views,
//! transfers, and random arrays.

mod create;
mod device_array;
mod display;
pub mod dlpack;
pub mod texture;
// The dtype table is a floor below this layer (and below `kernel_abi`); re-exported here.
pub(crate) use crate::dtype;
mod graph_arrays;
pub(crate) mod kernels;
mod pinned;
pub(crate) mod random;
pub(crate) mod record;
pub mod shape;
mod transfer;
mod view;

pub use crate::dtype::Scalar;
pub use create::Endpoint;
pub use device_array::Array;
pub use dtype::{DType, DTypeKind, Element, RecordType};
pub use pinned::{HostCopy, PinnedBuffer};
pub(crate) use record::registered_record;
pub use record::{Declarations, DeviceField, DeviceType, register_record};
pub use shape::SliceArg;
pub(crate) use transfer::check_same_device;
