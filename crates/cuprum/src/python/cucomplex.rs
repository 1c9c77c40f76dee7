//! `translate_cucomplex=True` (CuPy's `RawKernel` / `RawModule` option): CUDA's
//! `cuComplex.h` API in a raw kernel's source, on cuprum's complex types.
//!
//! Decision: the source's `#include <cuComplex.h>` becomes a bridge that defines CUDA's
//! names over `cuprum::complex` (the same layout: real part, then imaginary part), as CuPy
//! maps them onto its `thrust::complex`. So `cuCdiv`, `cuCmul`, `cuCabs` compute what
//! cuprum's array operators compute (`a / b` is NumPy's division, bit for bit), not CUDA's
//! own formulas, which is what a CuPy program that compares the two expects. The bridge
//! works on the host device too (it needs no CUDA header).

/// CUDA's `cuComplex.h` names over cuprum's complex types.
const BRIDGE: &str = r#"// cuComplex.h, translated by cuprum (translate_cucomplex=True)
#include <cuprum/complex.cuh>
typedef cuprum::complex<float> cuFloatComplex;
typedef cuprum::complex<double> cuDoubleComplex;
typedef cuFloatComplex cuComplex;
// Type-generic, as CuPy's bridge is (CuPy's own tests add float values with cuCadd).
template <typename T> __device__ inline T cuCreal(cuprum::complex<T> x) { return x.real(); }
template <typename T> __device__ inline T cuCimag(cuprum::complex<T> x) { return x.imag(); }
template <typename T> __device__ inline T cuCrealf(cuprum::complex<T> x) { return x.real(); }
template <typename T> __device__ inline T cuCimagf(cuprum::complex<T> x) { return x.imag(); }
template <typename T> __device__ inline cuprum::complex<T> cuConj(cuprum::complex<T> x) { return cuprum::conj(x); }
template <typename T> __device__ inline cuprum::complex<T> cuConjf(cuprum::complex<T> x) { return cuprum::conj(x); }
template <typename T> __device__ inline cuprum::complex<T> cuCadd(cuprum::complex<T> x, cuprum::complex<T> y) { return x + y; }
template <typename T> __device__ inline cuprum::complex<T> cuCaddf(cuprum::complex<T> x, cuprum::complex<T> y) { return x + y; }
template <typename T> __device__ inline cuprum::complex<T> cuCsub(cuprum::complex<T> x, cuprum::complex<T> y) { return x - y; }
template <typename T> __device__ inline cuprum::complex<T> cuCsubf(cuprum::complex<T> x, cuprum::complex<T> y) { return x - y; }
template <typename T> __device__ inline cuprum::complex<T> cuCmul(cuprum::complex<T> x, cuprum::complex<T> y) { return x * y; }
template <typename T> __device__ inline cuprum::complex<T> cuCmulf(cuprum::complex<T> x, cuprum::complex<T> y) { return x * y; }
template <typename T> __device__ inline cuprum::complex<T> cuCdiv(cuprum::complex<T> x, cuprum::complex<T> y) { return x / y; }
template <typename T> __device__ inline cuprum::complex<T> cuCdivf(cuprum::complex<T> x, cuprum::complex<T> y) { return x / y; }
template <typename T> __device__ inline T cuCabs(cuprum::complex<T> x) { return cuprum::abs(x); }
template <typename T> __device__ inline T cuCabsf(cuprum::complex<T> x) { return cuprum::abs(x); }
template <typename T> __device__ inline cuprum::complex<T> cuCfma(cuprum::complex<T> x, cuprum::complex<T> y, cuprum::complex<T> d) { return x * y + d; }
template <typename T> __device__ inline cuprum::complex<T> cuCfmaf(cuprum::complex<T> x, cuprum::complex<T> y, cuprum::complex<T> d) { return x * y + d; }
__device__ inline cuFloatComplex make_cuFloatComplex(float r, float i) { return cuFloatComplex(r, i); }
__device__ inline cuFloatComplex make_cuComplex(float r, float i) { return cuFloatComplex(r, i); }
__device__ inline cuDoubleComplex make_cuDoubleComplex(double r, double i) { return cuDoubleComplex(r, i); }
template <typename T> __device__ inline cuDoubleComplex cuComplexFloatToDouble(cuprum::complex<T> x) { return cuDoubleComplex(x); }
template <typename T> __device__ inline cuFloatComplex cuComplexDoubleToFloat(cuprum::complex<T> x) { return cuFloatComplex(x); }
"#;

/// `code` with its `#include <cuComplex.h>` lines (either spelling) replaced by the bridge;
/// a source without one gets the bridge first.
pub(super) fn translate(code: &str) -> String {
    let mut out = String::with_capacity(code.len() + BRIDGE.len());
    let mut bridged = false;
    for line in code.split_inclusive('\n') {
        if includes_cucomplex(line) {
            if !bridged {
                out.push_str(BRIDGE);
                bridged = true;
            }
            continue;
        }
        out.push_str(line);
    }
    if bridged {
        out
    } else {
        format!("{BRIDGE}{code}")
    }
}

/// Whether `line` is `#include <cuComplex.h>` or `#include "cuComplex.h"`.
fn includes_cucomplex(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix('#') else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix("include") else {
        return false;
    };
    matches!(rest.trim(), "<cuComplex.h>" | "\"cuComplex.h\"")
}
