//! The engine of `cuprum.cuda.compiler.compile_using_nvrtc`: CuPy's compile of a source
//! to a loadable image without loading it. The source compiles through cuprum's one path
//! (`compile::compile_for_arch`: bundles, the kernel cache, NVRTC), for the architecture
//! given (`"90"`) or the current GPU's; the image is a cubin where NVRTC knows the
//! architecture, else PTX, as CuPy's. Name expressions come back with their lowered names.

use crate::compile::{CompileOptions, compile_for_arch};
use crate::error::err;
use crate::runtime::Device;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// `(image, {name expression: lowered name} or None, NVRTC's log)` of `source`; `jitify`
/// as the kernels take it (`True` refused, `False` deprecated).
#[pyfunction]
#[pyo3(signature = (source, options, arch, filename, name_expressions, jitify))]
pub(super) fn _compile_using_nvrtc<'py>(
    py: Python<'py>,
    source: &str,
    options: Vec<String>,
    arch: Option<String>,
    filename: &str,
    name_expressions: Option<Vec<String>>,
    jitify: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyBytes>, Option<Bound<'py, PyDict>>, String)> {
    super::kernels::jitify_arg(jitify)?;
    let arch = match arch {
        Some(a) => a.trim_start_matches("sm_").trim_start_matches("compute_").parse::<u32>().map_err(|_| {
            err!(
                InvalidArgument,
                "arch must be a compute capability's digits, e.g. '90' (or 'sm_90'), given {a:?}"
            )
        })?,
        None => {
            let d = Device::current()?;
            if d.is_host() {
                return Err(err!(
                    NoDevice,
                    "compile_using_nvrtc compiles for a GPU: the current device is the host \
                     device, so pass arch= (e.g. arch='90')"
                )
                .into());
            }
            d.arch()
        }
    };
    let mut opts = CompileOptions::new().program_name(filename);
    for o in options {
        opts = opts.option(o);
    }
    let named = name_expressions.is_some();
    for e in name_expressions.unwrap_or_default() {
        opts = opts.name_expression(e);
    }
    let image = compile_for_arch(source, &opts, arch)?;
    let mapping = if named {
        let d = PyDict::new(py);
        for (expr, lowered) in &image.lowered_names {
            d.set_item(expr, lowered)?;
        }
        Some(d)
    } else {
        None
    };
    Ok((PyBytes::new(py, &image.image), mapping, image.log.clone()))
}
