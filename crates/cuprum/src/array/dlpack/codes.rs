//! DLPack's codes for cuprum's dtypes and devices, derived from the dtype table's kind and
//! size (no second table).

use super::ffi::{self, DLDataType, DLDataTypeCode, DLDevice, DLDeviceType};
use crate::array::{DType, DTypeKind};
use crate::error::{Result, bail};
use crate::runtime::Device;

/// The DLPack data type of `dtype` (one lane).
pub(super) fn data_type(dtype: DType) -> DLDataType {
    let code = match dtype.kind() {
        DTypeKind::Bool => DLDataTypeCode::BOOL,
        DTypeKind::SignedInt => DLDataTypeCode::INT,
        DTypeKind::UnsignedInt => DLDataTypeCode::UINT,
        DTypeKind::Float if dtype == DType::BF16 => DLDataTypeCode::BFLOAT,
        DTypeKind::Float => DLDataTypeCode::FLOAT,
        DTypeKind::Complex => DLDataTypeCode::COMPLEX,
        // Never exported (`to_dlpack` refuses records); opaque bytes otherwise.
        DTypeKind::Record => DLDataTypeCode::OPAQUEHANDLE,
    };
    DLDataType {
        code,
        bits: (dtype.itemsize() * 8) as u8,
        lanes: 1,
    }
}

/// The cuprum dtype of a DLPack data type.
pub(super) fn dtype_of(t: DLDataType) -> Result<DType> {
    let found = DType::ALL
        .iter()
        .copied()
        .find(|&d| t.lanes == 1 && data_type(d) == t);
    match found {
        Some(d) => Ok(d),
        None => bail!(
            DType,
            "DLPack data type (code {}, {} bits, {} lanes) has no cuprum dtype: expected one \
             lane of bool/8, int/8-64, uint/8-64, float/16-64, bfloat/16 or complex/64-128",
            t.code.0,
            t.bits,
            t.lanes
        ),
    }
}

/// The DLPack device of `device`: `kDLCPU` for the host device, else `kDLCUDA` with the
/// ordinal.
pub(super) fn device_code(device: Device) -> (i32, i32) {
    device.dlpack_device()
}

/// [`device_code`] as the C struct.
pub(super) fn dl_device(device: Device) -> DLDevice {
    let (t, id) = device_code(device);
    DLDevice {
        device_type: DLDeviceType(t as u32),
        device_id: id,
    }
}

/// The cuprum device that addresses a DLPack device's memory (see the module docs).
pub(super) fn device_of(d: DLDevice) -> Result<Device> {
    let t = d.device_type.0 as i32;
    match t {
        ffi::KDL_CPU | ffi::KDL_CUDA_HOST => Ok(Device::host()),
        ffi::KDL_CUDA => {
            let Ok(ordinal) = usize::try_from(d.device_id) else {
                bail!(
                    InvalidArgument,
                    "DLPack kDLCUDA device id {}: expected a GPU ordinal (>= 0)",
                    d.device_id
                );
            };
            let device = Device::get(ordinal)?;
            if device.dlpack_device().0 != ffi::KDL_CUDA {
                bail!(
                    InvalidArgument,
                    "DLPack kDLCUDA device id {ordinal} is not a GPU ordinal"
                );
            }
            Ok(device)
        }
        ffi::KDL_CUDA_MANAGED => Device::current(),
        _ => bail!(
            Unsupported,
            "DLPack device type {t} (id {}): cuprum imports kDLCPU (1), kDLCUDA (2), \
             kDLCUDAHost (3) and kDLCUDAManaged (13)",
            d.device_id
        ),
    }
}
