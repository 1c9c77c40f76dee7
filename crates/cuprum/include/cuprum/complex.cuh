// cuprum/complex.cuh — complex<float> and complex<double> for generated kernels
// (layout: real part, then imaginary part, like num_complex::Complex and std::complex).
#pragma once
namespace cuprum {
template <typename T>
struct __align__(2 * sizeof(T)) complex {
  T re, im;
  complex() = default;
  __device__ complex(T r, T i = T(0)) : re(r), im(i) {}
  template <typename U>
  __device__ explicit complex(const complex<U>& o) : re(T(o.re)), im(T(o.im)) {}
  __device__ T real() const { return re; }
  __device__ T imag() const { return im; }
  __device__ complex& operator+=(const complex& o) { re += o.re; im += o.im; return *this; }
  __device__ complex& operator-=(const complex& o) { re -= o.re; im -= o.im; return *this; }
  __device__ complex& operator*=(const complex& o) { *this = *this * o; return *this; }
  __device__ complex& operator/=(const complex& o) { *this = *this / o; return *this; }
  __device__ friend complex operator+(complex a, complex b) { return complex(a.re + b.re, a.im + b.im); }
  __device__ friend complex operator-(complex a, complex b) { return complex(a.re - b.re, a.im - b.im); }
  __device__ friend complex operator*(complex a, complex b) {
    return complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
  }
  __device__ friend complex operator/(complex a, complex b) {
    // Smith's algorithm: avoids overflow for large |b|.
    if (fabs(b.re) >= fabs(b.im)) {
      T r = b.im / b.re, d = b.re + b.im * r;
      return complex((a.re + a.im * r) / d, (a.im - a.re * r) / d);
    }
    T r = b.re / b.im, d = b.re * r + b.im;
    return complex((a.re * r + a.im) / d, (a.im * r - a.re) / d);
  }
  __device__ friend complex operator-(complex a) { return complex(-a.re, -a.im); }
  __device__ friend bool operator==(complex a, complex b) { return a.re == b.re && a.im == b.im; }
  __device__ friend bool operator!=(complex a, complex b) { return !(a == b); }
};
template <typename T> __device__ T real(complex<T> z) { return z.re; }
template <typename T> __device__ T imag(complex<T> z) { return z.im; }
template <typename T> __device__ complex<T> conj(complex<T> z) { return complex<T>(z.re, -z.im); }
template <typename T> __device__ T norm(complex<T> z) { return z.re * z.re + z.im * z.im; }
template <typename T> __device__ T abs(complex<T> z) { return hypot(z.re, z.im); }
template <typename T> __device__ T arg(complex<T> z) { return atan2(z.im, z.re); }
template <typename T> __device__ complex<T> polar(T r, T t) { return complex<T>(r * cos(t), r * sin(t)); }
template <typename T> __device__ complex<T> exp(complex<T> z) { return polar(T(::exp(z.re)), z.im); }
template <typename T> __device__ complex<T> log(complex<T> z) { return complex<T>(::log(abs(z)), arg(z)); }
template <typename T> __device__ complex<T> sqrt(complex<T> z) {
  T r = abs(z);
  T s = ::sqrt((r + fabs(z.re)) / 2);
  if (s == T(0)) return complex<T>(T(0), T(0));
  if (z.re >= T(0)) return complex<T>(s, z.im / (2 * s));
  return complex<T>(fabs(z.im) / (2 * s), copysign(s, z.im));
}
template <typename T> __device__ complex<T> pow(complex<T> a, complex<T> b) {
  if (b.re == T(0) && b.im == T(0)) return complex<T>(T(1), T(0));
  if (a.re == T(0) && a.im == T(0)) {
    // NumPy: 0 ** b is 0 for real positive b, NaN otherwise.
    if (b.im == T(0) && b.re > T(0)) return complex<T>(T(0), T(0));
    const T nan = T(0) / T(0);
    return complex<T>(nan, nan);
  }
  return exp(b * log(a));
}
template <typename T> __device__ complex<T> sinh(complex<T> z) {
  return complex<T>(::sinh(z.re) * ::cos(z.im), ::cosh(z.re) * ::sin(z.im));
}
template <typename T> __device__ complex<T> cosh(complex<T> z) {
  return complex<T>(::cosh(z.re) * ::cos(z.im), ::sinh(z.re) * ::sin(z.im));
}
template <typename T> __device__ complex<T> tanh(complex<T> z) { return sinh(z) / cosh(z); }
template <typename T> __device__ complex<T> sin(complex<T> z) {
  complex<T> s = sinh(complex<T>(-z.im, z.re));
  return complex<T>(s.im, -s.re);
}
template <typename T> __device__ complex<T> cos(complex<T> z) { return cosh(complex<T>(-z.im, z.re)); }
template <typename T> __device__ complex<T> tan(complex<T> z) { return sin(z) / cos(z); }
}  // namespace cuprum
using cuprum::complex;
