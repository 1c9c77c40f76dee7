//! Where NVIDIA's redistributable CUDA wheels (`nvidia-cuda-nvrtc`, `-runtime`, `-cccl`,
//! `-crt`) put their files inside a site-packages folder, for the CUDA major version cuprum
//! uses.

use std::path::{Path, PathBuf};

/// The CUDA major version whose redistributable components cuprum uses.
pub const CUDA_MAJOR: u32 = 13;

/// `site/nvidia/cu13`: the folder of the CUDA 13 wheels in a site-packages folder.
pub(crate) fn wheel_base(site: &Path) -> PathBuf {
    site.join("nvidia").join(format!("cu{CUDA_MAJOR}"))
}
