// cupy/complex.cuh — CuPy's complex header for raw kernels written for CuPy
// (`#include <cupy/complex.cuh>`): cuprum's complex<float> / complex<double> (real part,
// then imaginary part, as CuPy's thrust::complex) under the names CuPy's header gives:
// `complex<T>` at global scope and in `thrust`, with abs, arg, norm, conj, polar, exp,
// log, sqrt, pow and the circular and hyperbolic functions (found for complex arguments
// by argument-dependent lookup, or as `thrust::` names).
#pragma once
#include <cuprum/complex.cuh>
namespace thrust {
using cuprum::complex;
using cuprum::abs;
using cuprum::arg;
using cuprum::norm;
using cuprum::conj;
using cuprum::polar;
using cuprum::exp;
using cuprum::log;
using cuprum::sqrt;
using cuprum::pow;
using cuprum::sin;
using cuprum::cos;
using cuprum::tan;
using cuprum::sinh;
using cuprum::cosh;
using cuprum::tanh;
}  // namespace thrust
