//! DLPack's C structs and constants, as the `dlpark` crate generates them from
//! `dlpack.h` (with layout checks), plus the device type codes as the plain `i32`s
//! [`DlpackTensor::device`](super::DlpackTensor::device) and [`Array::dlpack_device`](crate::Array::dlpack_device)
//! return.
//!
//! ```
//! use cuprum::dlpack::ffi;
//! assert_eq!(std::mem::size_of::<ffi::DLManagedTensorVersioned>(), 80);
//! assert_eq!(ffi::KDL_CUDA, 2);
//! ```

pub use dlpark::DlpackFlags;
pub use dlpark::ffi::{
    DLDataType, DLDataTypeCode, DLDevice, DLDeviceType, DLManagedTensor, DLManagedTensorVersioned,
    DLPACK_FLAG_BITMASK_IS_COPIED, DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_MAJOR_VERSION,
    DLPACK_MINOR_VERSION, DLPackVersion, DLTensor,
};

/// `kDLCPU`: host memory (cuprum's host device).
pub const KDL_CPU: i32 = 1;
/// `kDLCUDA`: CUDA device memory; the device id is the GPU's ordinal.
pub const KDL_CUDA: i32 = 2;
/// `kDLCUDAHost`: page-locked host memory (`cudaMallocHost`).
pub const KDL_CUDA_HOST: i32 = 3;
/// `kDLCUDAManaged`: CUDA managed (unified) memory.
pub const KDL_CUDA_MANAGED: i32 = 13;
