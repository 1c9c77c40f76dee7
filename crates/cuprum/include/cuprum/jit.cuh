// cuprum/jit.cuh — the prelude of kernels written in Rust (#[cuprum::kernel]).
//
// Rust's meaning for what C++ means differently: wrapping integer arithmetic (signed and
// 8/16-bit types through unsigned), masked shifts, saturating float → int casts, `fmod` for
// float `%`, Rust's number methods, and the bounds check `ix` whose miss writes the fault
// record (kernel site, block, thread) and ends the thread without touching memory.
// With CUPRUM_JIT_CHECKED (debug builds) division by zero, division overflow and shift
// overflow are faults too, as they are panics in a Rust debug build.
#pragma once
#include <cuprum/half.cuh>

namespace cj {
// Mirrors `FaultRecord` in crates/cuprum/src/runtime/fault.rs.
struct FaultRec {
  unsigned int flag, tag, site, kind;
  long long a, b;
  unsigned int block[3], thread[3];
};
struct FaultCtx {
  FaultRec* rec;        // mapped pinned host memory (per device)
  unsigned int* claim;  // device memory: the first fault wins
  unsigned int tag;     // which program (site table) this module is
  unsigned int pad;
};
}  // namespace cj

// Set once per loaded module by the host (cuModuleGetGlobal); zero: faults are not recorded.
__device__ cj::FaultCtx cj_fault_ctx;
extern __shared__ __align__(16) unsigned char cj_dyn_smem[];
__shared__ unsigned int cj_gs_count;

#ifndef CJ_FN
#define CJ_FN 0
#endif
// A check site: the function's index in the program and the site's index in the function.
#define CJ_SITE(n) ((((unsigned int)(CJ_FN)) << 16) | (unsigned int)(n))

namespace cj {

enum : unsigned int {
  K_INDEX = 0, K_INDEX_U = 1, K_DIV0 = 2, K_REM0 = 3, K_DIV_OVF = 4, K_REM_OVF = 5, K_SHIFT = 6
};

// Records the first fault of the device (later ones of the same run are dropped) and ends
// the calling thread.
__device__ __forceinline__ void fault(unsigned int site, unsigned int kind, long long a, long long b) {
  FaultCtx c = cj_fault_ctx;
  if (c.rec != nullptr && atomicCAS(c.claim, 0u, 1u) == 0u) {
    volatile FaultRec* r = c.rec;
    r->tag = c.tag;
    r->site = site;
    r->kind = kind;
    r->a = a;
    r->b = b;
    r->block[0] = blockIdx.x; r->block[1] = blockIdx.y; r->block[2] = blockIdx.z;
    r->thread[0] = threadIdx.x; r->thread[1] = threadIdx.y; r->thread[2] = threadIdx.z;
    __threadfence_system();
    r->flag = 1u;
    __threadfence_system();
  }
  asm volatile("exit;");
}

#define CJ_FAIL(site, kind, a, b) do { cj::fault(site, kind, (long long)(a), (long long)(b)); __builtin_unreachable(); } while (0)

// ---- types ---------------------------------------------------------------------------------
template <class T> __device__ T val();  // decltype only
template <class T> struct plain { typedef T type; };
template <class T> struct plain<T&> { typedef T type; };
template <class T> struct plain<const T> { typedef T type; };
template <class T> struct plain<const T&> { typedef T type; };
template <class T> using plain_t = typename plain<T>::type;

template <class T> struct uns { typedef T type; };
template <> struct uns<signed char> { typedef unsigned char type; };
template <> struct uns<short> { typedef unsigned short type; };
template <> struct uns<int> { typedef unsigned int type; };
template <> struct uns<long long> { typedef unsigned long long type; };

template <class T> struct is_flt { static const bool value = false; };
template <> struct is_flt<float> { static const bool value = true; };
template <> struct is_flt<double> { static const bool value = true; };
template <> struct is_flt<float16> { static const bool value = true; };
template <> struct is_flt<bfloat16> { static const bool value = true; };

template <class T, unsigned long long N> struct Arr {
  T v[N];
  __device__ __forceinline__ T& operator[](unsigned long long i) { return v[i]; }
  __device__ __forceinline__ const T& operator[](unsigned long long i) const { return v[i]; }
  __device__ static __forceinline__ Arr fill(T x) {
    Arr a;
    for (unsigned long long k = 0; k < N; ++k) a.v[k] = x;
    return a;
  }
};

// ---- indices and special registers ---------------------------------------------------------
#define CJ_IX(T, KIND)                                                                            \
  __device__ __forceinline__ unsigned long long ix(T i, unsigned long long n, unsigned int site) { \
    const unsigned long long u = (unsigned long long)i;                                           \
    if (u >= n) CJ_FAIL(site, KIND, i, n);                                                        \
    return u;                                                                                     \
  }
CJ_IX(signed char, K_INDEX) CJ_IX(short, K_INDEX) CJ_IX(int, K_INDEX) CJ_IX(long long, K_INDEX)
CJ_IX(unsigned char, K_INDEX_U) CJ_IX(unsigned short, K_INDEX_U) CJ_IX(unsigned int, K_INDEX_U)
CJ_IX(unsigned long long, K_INDEX_U)
#undef CJ_IX

__device__ __forceinline__ uint3 u3(dim3 d) { uint3 r; r.x = d.x; r.y = d.y; r.z = d.z; return r; }
__device__ __forceinline__ unsigned long long global_index() {
  return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ unsigned long long global_size() {
  return (unsigned long long)blockDim.x * gridDim.x;
}
__device__ __forceinline__ unsigned int lane_id() {
  unsigned int r; asm("mov.u32 %0, %%laneid;" : "=r"(r)); return r;
}
__device__ __forceinline__ unsigned int dyn_smem_bytes() {
  unsigned int r; asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r)); return r;
}

// First value and next value of a strided loop over [0, n) (never overflows, as Rust's
// iterators; an empty range when n <= 0).
template <class T> __device__ __forceinline__ T stride_first(T n, unsigned long long start) {
  return (n > (T)0 && start < (unsigned long long)n) ? (T)start : n;
}
template <class T> __device__ __forceinline__ T step_next(T i, unsigned long long step, T n) {
  typedef typename uns<T>::type U;
  const U left = (U)((U)n - (U)i);
  return ((unsigned long long)left > step) ? (T)(i + (T)step) : n;
}
template <class T> __device__ __forceinline__ T stride_next(T i, unsigned long long step, T n) {
  return step_next(i, step, n);
}

// ---- wrapping integer arithmetic -------------------------------------------------------------
#define CJ_WRAP(T, U)                                                                                  \
  __device__ __forceinline__ T add(T a, T b) { return (T)(U)((U)a + (U)b); }                           \
  __device__ __forceinline__ T sub(T a, T b) { return (T)(U)((U)a - (U)b); }                           \
  __device__ __forceinline__ T mul(T a, T b) { return (T)(U)((U)a * (U)b); }                           \
  __device__ __forceinline__ T neg(T a) { return (T)(U)((U)0 - (U)a); }                                \
  __device__ __forceinline__ T bnot(T a) { return (T)(U)~(U)a; }                                        \
  __device__ __forceinline__ T band(T a, T b) { return (T)(a & b); }                                    \
  __device__ __forceinline__ T bor(T a, T b) { return (T)(a | b); }                                     \
  __device__ __forceinline__ T bxor(T a, T b) { return (T)(a ^ b); }                                    \
  __device__ __forceinline__ void add_to(T& a, T b) { a = add(a, b); }                                 \
  __device__ __forceinline__ void sub_to(T& a, T b) { a = sub(a, b); }                                 \
  __device__ __forceinline__ void mul_to(T& a, T b) { a = mul(a, b); }                                 \
  __device__ __forceinline__ void band_to(T& a, T b) { a = band(a, b); }                                \
  __device__ __forceinline__ void bor_to(T& a, T b) { a = bor(a, b); }                                  \
  __device__ __forceinline__ void bxor_to(T& a, T b) { a = bxor(a, b); }                                \
  template <class S> __device__ __forceinline__ T shl(T a, S b, unsigned int site) {                     \
    const unsigned int w = sizeof(T) * 8u;                                                             \
    CJ_SHIFT_CHECK(b, w, site);                                                                        \
    return (T)(U)((U)a << ((unsigned int)b & (w - 1u)));                                               \
  }                                                                                                    \
  template <class S> __device__ __forceinline__ T shr(T a, S b, unsigned int site) {                     \
    const unsigned int w = sizeof(T) * 8u;                                                             \
    CJ_SHIFT_CHECK(b, w, site);                                                                        \
    return (T)(a >> ((unsigned int)b & (w - 1u)));                                                     \
  }                                                                                                    \
  template <class S> __device__ __forceinline__ void shl_to(T& a, S b, unsigned int site) { a = shl(a, b, site); } \
  template <class S> __device__ __forceinline__ void shr_to(T& a, S b, unsigned int site) { a = shr(a, b, site); }

#ifdef CUPRUM_JIT_CHECKED
#define CJ_SHIFT_CHECK(b, w, site) if ((unsigned long long)(b) >= (unsigned long long)(w)) CJ_FAIL(site, K_SHIFT, b, w)
#else
#define CJ_SHIFT_CHECK(b, w, site) (void)(site)
#endif

CJ_WRAP(signed char, unsigned char) CJ_WRAP(short, unsigned short) CJ_WRAP(int, unsigned int)
CJ_WRAP(long long, unsigned long long) CJ_WRAP(unsigned char, unsigned char)
CJ_WRAP(unsigned short, unsigned short) CJ_WRAP(unsigned int, unsigned int)
CJ_WRAP(unsigned long long, unsigned long long)
#undef CJ_WRAP

__device__ __forceinline__ bool bnot(bool a) { return !a; }
__device__ __forceinline__ bool band(bool a, bool b) { return a && b; }
__device__ __forceinline__ bool bor(bool a, bool b) { return a || b; }
__device__ __forceinline__ bool bxor(bool a, bool b) { return a != b; }
__device__ __forceinline__ void band_to(bool& a, bool b) { a = a && b; }
__device__ __forceinline__ void bor_to(bool& a, bool b) { a = a || b; }
__device__ __forceinline__ void bxor_to(bool& a, bool b) { a = a != b; }

// Truncating division and remainder (C's and Rust's); checked builds fault on a zero divisor
// and on MIN / -1.
#ifdef CUPRUM_JIT_CHECKED
#define CJ_DIV_CHECK(T, a, b, site, K0, KO, MIN)                  \
  if (b == (T)0) CJ_FAIL(site, K0, a, b);                         \
  if (MIN != (T)0 && b == (T)-1 && a == MIN) CJ_FAIL(site, KO, a, b)
#else
#define CJ_DIV_CHECK(T, a, b, site, K0, KO, MIN) (void)(site)
#endif
#define CJ_DIV(T, MIN)                                                                       \
  __device__ __forceinline__ T div(T a, T b, unsigned int site) {                            \
    CJ_DIV_CHECK(T, a, b, site, K_DIV0, K_DIV_OVF, MIN);                                     \
    return (T)(a / b);                                                                       \
  }                                                                                          \
  __device__ __forceinline__ T rem(T a, T b, unsigned int site) {                            \
    CJ_DIV_CHECK(T, a, b, site, K_REM0, K_REM_OVF, MIN);                                     \
    return (T)(a % b);                                                                       \
  }                                                                                          \
  __device__ __forceinline__ void div_to(T& a, T b, unsigned int site) { a = div(a, b, site); } \
  __device__ __forceinline__ void rem_to(T& a, T b, unsigned int site) { a = rem(a, b, site); }
CJ_DIV(signed char, (signed char)-128) CJ_DIV(short, (short)-32768) CJ_DIV(int, (-2147483647 - 1))
CJ_DIV(long long, (-9223372036854775807LL - 1LL)) CJ_DIV(unsigned char, (unsigned char)0)
CJ_DIV(unsigned short, (unsigned short)0) CJ_DIV(unsigned int, 0u) CJ_DIV(unsigned long long, 0ull)
#undef CJ_DIV

// ---- floats: the same helpers, IEEE --------------------------------------------------------
#define CJ_FLOAT_OPS(T, FMOD)                                                               \
  __device__ __forceinline__ T add(T a, T b) { return a + b; }                              \
  __device__ __forceinline__ T sub(T a, T b) { return a - b; }                              \
  __device__ __forceinline__ T mul(T a, T b) { return a * b; }                              \
  __device__ __forceinline__ T neg(T a) { return -a; }                                      \
  __device__ __forceinline__ T div(T a, T b, unsigned int) { return a / b; }                \
  __device__ __forceinline__ T rem(T a, T b, unsigned int) { return FMOD; }                 \
  __device__ __forceinline__ void add_to(T& a, T b) { a = a + b; }                          \
  __device__ __forceinline__ void sub_to(T& a, T b) { a = a - b; }                          \
  __device__ __forceinline__ void mul_to(T& a, T b) { a = a * b; }                          \
  __device__ __forceinline__ void div_to(T& a, T b, unsigned int) { a = a / b; }            \
  __device__ __forceinline__ void rem_to(T& a, T b, unsigned int s) { a = rem(a, b, s); }
CJ_FLOAT_OPS(float, ::fmodf(a, b))
CJ_FLOAT_OPS(double, ::fmod(a, b))
CJ_FLOAT_OPS(float16, float16(::fmodf(float(a), float(b))))
CJ_FLOAT_OPS(bfloat16, bfloat16(::fmodf(float(a), float(b))))
#undef CJ_FLOAT_OPS

// ---- casts ---------------------------------------------------------------------------------
// Rust's `as` from float to integer: toward zero, saturating, NaN → 0.
template <class To> __device__ To f2i(float x);
template <class To> __device__ To f2i(double x);
#define CJ_F2I(To, LO, HI, LOV, HIV, FN, DN)                                                    \
  template <> __device__ __forceinline__ To f2i<To>(float x) {                                  \
    return x != x ? (To)0 : x <= (float)(LO) ? (To)(LOV) : x >= (float)(HI) ? (To)(HIV) : (To)FN(x); \
  }                                                                                             \
  template <> __device__ __forceinline__ To f2i<To>(double x) {                                 \
    return x != x ? (To)0 : x <= (double)(LO) ? (To)(LOV) : x >= (double)(HI) ? (To)(HIV) : (To)DN(x); \
  }
CJ_F2I(signed char, -128.0, 127.0, -128, 127, __float2int_rz, __double2int_rz)
CJ_F2I(short, -32768.0, 32767.0, -32768, 32767, __float2int_rz, __double2int_rz)
CJ_F2I(int, -2147483648.0, 2147483648.0, (-2147483647 - 1), 2147483647, __float2int_rz, __double2int_rz)
CJ_F2I(long long, -9223372036854775808.0, 9223372036854775808.0, (-9223372036854775807LL - 1LL),
       9223372036854775807LL, __float2ll_rz, __double2ll_rz)
CJ_F2I(unsigned char, 0.0, 255.0, 0, 255, __float2uint_rz, __double2uint_rz)
CJ_F2I(unsigned short, 0.0, 65535.0, 0, 65535, __float2uint_rz, __double2uint_rz)
CJ_F2I(unsigned int, 0.0, 4294967296.0, 0u, 4294967295u, __float2uint_rz, __double2uint_rz)
CJ_F2I(unsigned long long, 0.0, 18446744073709551616.0, 0ull, 18446744073709551615ull, __float2ull_rz,
       __double2ull_rz)
#undef CJ_F2I

// `as` / conversions where the source type is only known to C++ (generic or opaque).
template <class To, class From> __device__ __forceinline__ To as(From x) {
  if constexpr (is_flt<From>::value && !is_flt<To>::value) {
    return f2i<To>((float)x);
  } else {
    return (To)x;
  }
}
template <class To> __device__ __forceinline__ To as(float x) {
  if constexpr (is_flt<To>::value) { return (To)x; } else { return f2i<To>(x); }
}
template <class To> __device__ __forceinline__ To as(double x) {
  if constexpr (is_flt<To>::value) { return (To)x; } else { return f2i<To>(x); }
}
template <class To, class From> __device__ __forceinline__ To cvt(From x) { return as<To>(x); }

// ---- float methods -------------------------------------------------------------------------
#define CJ_F1(NAME, F32, F64)                                                                      \
  __device__ __forceinline__ float NAME(float x) { return F32; }                                   \
  __device__ __forceinline__ double NAME(double x) { return F64; }                                 \
  __device__ __forceinline__ float16 NAME(float16 h) { const float x = float(h); return float16(F32); } \
  __device__ __forceinline__ bfloat16 NAME(bfloat16 h) { const float x = float(h); return bfloat16(F32); }
CJ_F1(sqrt, ::sqrtf(x), ::sqrt(x))
CJ_F1(cbrt, ::cbrtf(x), ::cbrt(x))
CJ_F1(exp, ::expf(x), ::exp(x))
CJ_F1(exp2, ::exp2f(x), ::exp2(x))
CJ_F1(exp_m1, ::expm1f(x), ::expm1(x))
CJ_F1(ln, ::logf(x), ::log(x))
CJ_F1(ln_1p, ::log1pf(x), ::log1p(x))
CJ_F1(log2, ::log2f(x), ::log2(x))
CJ_F1(log10, ::log10f(x), ::log10(x))
CJ_F1(sin, ::sinf(x), ::sin(x))
CJ_F1(cos, ::cosf(x), ::cos(x))
CJ_F1(tan, ::tanf(x), ::tan(x))
CJ_F1(asin, ::asinf(x), ::asin(x))
CJ_F1(acos, ::acosf(x), ::acos(x))
CJ_F1(atan, ::atanf(x), ::atan(x))
CJ_F1(sinh, ::sinhf(x), ::sinh(x))
CJ_F1(cosh, ::coshf(x), ::cosh(x))
CJ_F1(tanh, ::tanhf(x), ::tanh(x))
CJ_F1(asinh, ::asinhf(x), ::asinh(x))
CJ_F1(acosh, ::acoshf(x), ::acosh(x))
CJ_F1(atanh, ::atanhf(x), ::atanh(x))
CJ_F1(floor, ::floorf(x), ::floor(x))
CJ_F1(ceil, ::ceilf(x), ::ceil(x))
CJ_F1(round, ::roundf(x), ::round(x))
CJ_F1(round_ties_even, ::rintf(x), ::rint(x))
CJ_F1(trunc, ::truncf(x), ::trunc(x))
CJ_F1(fract, x - ::truncf(x), x - ::trunc(x))
CJ_F1(recip, 1.0f / x, 1.0 / x)
CJ_F1(to_degrees, x * 57.2957795130823208767981548141051703f, x * 57.29577951308232)
CJ_F1(to_radians, x * 0.017453292519943295769236907684886f, x * 0.017453292519943295)
CJ_F1(signum, x != x ? x : ::copysignf(1.0f, x), x != x ? x : ::copysign(1.0, x))
#undef CJ_F1

#define CJ_F2(NAME, F32, F64)                                                                     \
  __device__ __forceinline__ float NAME(float x, float y) { return F32; }                         \
  __device__ __forceinline__ double NAME(double x, double y) { return F64; }                      \
  __device__ __forceinline__ float16 NAME(float16 hx, float16 hy) { const float x = float(hx), y = float(hy); return float16(F32); } \
  __device__ __forceinline__ bfloat16 NAME(bfloat16 hx, bfloat16 hy) { const float x = float(hx), y = float(hy); return bfloat16(F32); }
CJ_F2(powf, ::powf(x, y), ::pow(x, y))
CJ_F2(hypot, ::hypotf(x, y), ::hypot(x, y))
CJ_F2(atan2, ::atan2f(x, y), ::atan2(x, y))
CJ_F2(copysign, ::copysignf(x, y), ::copysign(x, y))
CJ_F2(log, ::logf(x) / ::logf(y), ::log(x) / ::log(y))
#undef CJ_F2

#define CJ_FLOAT_MORE(T, ABS, MIN, MAX, FMA, INF)                                                   \
  __device__ __forceinline__ T abs(T x) { return ABS; }                                             \
  __device__ __forceinline__ T min(T x, T y) { return MIN; }                                        \
  __device__ __forceinline__ T max(T x, T y) { return MAX; }                                        \
  __device__ __forceinline__ T mul_add(T x, T a, T b) { return FMA; }                               \
  __device__ __forceinline__ T clamp(T x, T lo, T hi) { T r = x; if (r < lo) r = lo; if (r > hi) r = hi; return r; } \
  __device__ __forceinline__ bool is_nan(T x) { return x != x; }                                    \
  __device__ __forceinline__ bool is_infinite(T x) { return abs(x) == INF; }                        \
  __device__ __forceinline__ bool is_finite(T x) { return abs(x) < INF; }                           \
  __device__ __forceinline__ T powi(T x, int n) {                                                   \
    const bool inv = n < 0; T r = (T)1.0f;                                                          \
    for (;;) { if (n & 1) r = r * x; n /= 2; if (n == 0) break; x = x * x; }                        \
    return inv ? (T)1.0f / r : r;                                                                   \
  }                                                                                                 \
  __device__ __forceinline__ T rem_euclid(T x, T y) { T r = rem(x, y, 0u); return r < (T)0.0f ? r + abs(y) : r; } \
  __device__ __forceinline__ T div_euclid(T x, T y) {                                              \
    T q = trunc(x / y);                                                                            \
    if (rem(x, y, 0u) < (T)0.0f) return y > (T)0.0f ? q - (T)1.0f : q + (T)1.0f;                    \
    return q;                                                                                       \
  }
CJ_FLOAT_MORE(float, ::fabsf(x), ::fminf(x, y), ::fmaxf(x, y), ::fmaf(x, a, b), __int_as_float(0x7f800000))
CJ_FLOAT_MORE(double, ::fabs(x), ::fmin(x, y), ::fmax(x, y), ::fma(x, a, b), __longlong_as_double(0x7ff0000000000000LL))
CJ_FLOAT_MORE(float16, float16(::fabsf(float(x))), float16(::fminf(float(x), float(y))),
              float16(::fmaxf(float(x), float(y))), float16(::fmaf(float(x), float(a), float(b))),
              float16(__int_as_float(0x7f800000)))
CJ_FLOAT_MORE(bfloat16, bfloat16(::fabsf(float(x))), bfloat16(::fminf(float(x), float(y))),
              bfloat16(::fmaxf(float(x), float(y))), bfloat16(::fmaf(float(x), float(a), float(b))),
              bfloat16(__int_as_float(0x7f800000)))
#undef CJ_FLOAT_MORE
__device__ __forceinline__ bool is_sign_negative(float x) { return __float_as_int(x) < 0; }
__device__ __forceinline__ bool is_sign_negative(double x) { return __double_as_longlong(x) < 0; }
__device__ __forceinline__ bool is_sign_negative(float16 x) { return (x.bits & 0x8000u) != 0; }
__device__ __forceinline__ bool is_sign_negative(bfloat16 x) { return (x.bits & 0x8000u) != 0; }
template <class T> __device__ __forceinline__ bool is_sign_positive(T x) { return !is_sign_negative(x); }

// ---- integer methods -----------------------------------------------------------------------
#define CJ_INT_METHODS(T, U, BITS, SIGNED, MINV, MAXV)                                                   \
  __device__ __forceinline__ T abs(T a) { return SIGNED && a < (T)0 ? neg(a) : a; }                       \
  __device__ __forceinline__ T min(T a, T b) { return a < b ? a : b; }                                     \
  __device__ __forceinline__ T max(T a, T b) { return a > b ? a : b; }                                     \
  __device__ __forceinline__ T clamp(T a, T lo, T hi) { return a < lo ? lo : a > hi ? hi : a; }            \
  __device__ __forceinline__ T pow(T a, unsigned int e) {                                                 \
    T r = (T)1; for (;;) { if (e & 1u) r = mul(r, a); e >>= 1; if (e == 0u) break; a = mul(a, a); }        \
    return r;                                                                                             \
  }                                                                                                       \
  __device__ __forceinline__ unsigned int count_ones(T a) {                                               \
    return BITS == 64 ? (unsigned int)__popcll((unsigned long long)(U)a) : (unsigned int)__popc((unsigned int)(U)a); \
  }                                                                                                       \
  __device__ __forceinline__ unsigned int count_zeros(T a) { return BITS - count_ones(a); }              \
  __device__ __forceinline__ unsigned int leading_zeros(T a) {                                            \
    return BITS == 64 ? (unsigned int)__clzll((long long)(U)a)                                            \
                      : (unsigned int)__clz((int)(unsigned int)(U)a) - (32u - BITS);                     \
  }                                                                                                       \
  __device__ __forceinline__ unsigned int trailing_zeros(T a) {                                           \
    if ((U)a == (U)0) return BITS;                                                                         \
    return BITS == 64 ? (unsigned int)__ffsll((long long)(U)a) - 1u : (unsigned int)__ffs((int)(unsigned int)(U)a) - 1u; \
  }                                                                                                       \
  __device__ __forceinline__ T reverse_bits(T a) {                                                        \
    return BITS == 64 ? (T)__brevll((unsigned long long)(U)a) : (T)(U)(__brev((unsigned int)(U)a) >> (32u - BITS)); \
  }                                                                                                       \
  __device__ __forceinline__ T swap_bytes(T a) {                                                          \
    U x = (U)a; U r = 0;                                                                                  \
    for (unsigned int k = 0; k < BITS / 8u; ++k) { r = (U)((r << 8) | (x & (U)0xff)); x = (U)(x >> 8); }     \
    return (T)r;                                                                                          \
  }                                                                                                       \
  __device__ __forceinline__ T rotate_left(T a, unsigned int n) {                                         \
    n %= BITS; U x = (U)a; return n == 0u ? a : (T)(U)((U)(x << n) | (U)(x >> (BITS - n)));                  \
  }                                                                                                       \
  __device__ __forceinline__ T rotate_right(T a, unsigned int n) {                                        \
    n %= BITS; U x = (U)a; return n == 0u ? a : (T)(U)((U)(x >> n) | (U)(x << (BITS - n)));                  \
  }                                                                                                       \
  __device__ __forceinline__ T wrapping_add(T a, T b) { return add(a, b); }                               \
  __device__ __forceinline__ T wrapping_sub(T a, T b) { return sub(a, b); }                               \
  __device__ __forceinline__ T wrapping_mul(T a, T b) { return mul(a, b); }                               \
  __device__ __forceinline__ T wrapping_neg(T a) { return neg(a); }                                       \
  __device__ __forceinline__ T saturating_add(T a, T b) {                                                 \
    T r = add(a, b);                                                                                      \
    if (SIGNED) { if (b > (T)0 && r < a) return MAXV; if (b < (T)0 && r > a) return MINV; return r; }     \
    return r < a ? MAXV : r;                                                                              \
  }                                                                                                       \
  __device__ __forceinline__ T saturating_sub(T a, T b) {                                                 \
    T r = sub(a, b);                                                                                      \
    if (SIGNED) { if (b < (T)0 && r < a) return MAXV; if (b > (T)0 && r > a) return MINV; return r; }     \
    return a < b ? (T)0 : r;                                                                              \
  }                                                                                                       \
  __device__ __forceinline__ T rem_euclid(T a, T b) {                                                     \
    T r = rem(a, b, 0u);                                                                                  \
    return SIGNED && r < (T)0 ? (b < (T)0 ? sub(r, b) : add(r, b)) : r;                                   \
  }                                                                                                       \
  __device__ __forceinline__ T div_euclid(T a, T b) {                                                     \
    T q = div(a, b, 0u);                                                                                  \
    if (SIGNED && rem(a, b, 0u) < (T)0) return b > (T)0 ? sub(q, (T)1) : add(q, (T)1);                    \
    return q;                                                                                             \
  }                                                                                                       \
  __device__ __forceinline__ T signum(T a) { return (T)((a > (T)0) - (SIGNED && a < (T)0)); }              \
  __device__ __forceinline__ bool is_positive(T a) { return a > (T)0; }                                   \
  __device__ __forceinline__ bool is_negative(T a) { return SIGNED && a < (T)0; }                         \
  __device__ __forceinline__ bool is_power_of_two(T a) { return a != (T)0 && (a & (T)(a - (T)1)) == (T)0; }
CJ_INT_METHODS(signed char, unsigned char, 8u, true, (signed char)-128, (signed char)127)
CJ_INT_METHODS(short, unsigned short, 16u, true, (short)-32768, (short)32767)
CJ_INT_METHODS(int, unsigned int, 32u, true, (-2147483647 - 1), 2147483647)
CJ_INT_METHODS(long long, unsigned long long, 64u, true, (-9223372036854775807LL - 1LL), 9223372036854775807LL)
CJ_INT_METHODS(unsigned char, unsigned char, 8u, false, (unsigned char)0, (unsigned char)255)
CJ_INT_METHODS(unsigned short, unsigned short, 16u, false, (unsigned short)0, (unsigned short)65535)
CJ_INT_METHODS(unsigned int, unsigned int, 32u, false, 0u, 4294967295u)
CJ_INT_METHODS(unsigned long long, unsigned long long, 64u, false, 0ull, 18446744073709551615ull)
#undef CJ_INT_METHODS

// ---- warps ---------------------------------------------------------------------------------
#define CJ_SHFL_NATIVE(T)                                                                                 \
  __device__ __forceinline__ T shfl_sync(unsigned int m, T v, unsigned int l) { return __shfl_sync(m, v, l); } \
  __device__ __forceinline__ T shfl_up_sync(unsigned int m, T v, unsigned int d) { return __shfl_up_sync(m, v, d); } \
  __device__ __forceinline__ T shfl_down_sync(unsigned int m, T v, unsigned int d) { return __shfl_down_sync(m, v, d); } \
  __device__ __forceinline__ T shfl_xor_sync(unsigned int m, T v, unsigned int x) { return __shfl_xor_sync(m, v, x); }
CJ_SHFL_NATIVE(int) CJ_SHFL_NATIVE(unsigned int) CJ_SHFL_NATIVE(long long)
CJ_SHFL_NATIVE(unsigned long long) CJ_SHFL_NATIVE(float) CJ_SHFL_NATIVE(double)
#undef CJ_SHFL_NATIVE
#define CJ_SHFL_VIA_INT(T, TO, FROM)                                                                      \
  __device__ __forceinline__ T shfl_sync(unsigned int m, T v, unsigned int l) { return FROM(__shfl_sync(m, TO(v), l)); } \
  __device__ __forceinline__ T shfl_up_sync(unsigned int m, T v, unsigned int d) { return FROM(__shfl_up_sync(m, TO(v), d)); } \
  __device__ __forceinline__ T shfl_down_sync(unsigned int m, T v, unsigned int d) { return FROM(__shfl_down_sync(m, TO(v), d)); } \
  __device__ __forceinline__ T shfl_xor_sync(unsigned int m, T v, unsigned int x) { return FROM(__shfl_xor_sync(m, TO(v), x)); }
__device__ __forceinline__ float16 f16_from_bits(int b) { float16 h; h.bits = (unsigned short)b; return h; }
__device__ __forceinline__ bfloat16 bf16_from_bits(int b) { bfloat16 h; h.bits = (unsigned short)b; return h; }
#define CJ_BITS(v) ((int)(v).bits)
#define CJ_TO_INT(v) ((int)(v))
CJ_SHFL_VIA_INT(float16, CJ_BITS, f16_from_bits)
CJ_SHFL_VIA_INT(bfloat16, CJ_BITS, bf16_from_bits)
CJ_SHFL_VIA_INT(signed char, CJ_TO_INT, (signed char))
CJ_SHFL_VIA_INT(short, CJ_TO_INT, (short))
CJ_SHFL_VIA_INT(unsigned char, CJ_TO_INT, (unsigned char))
CJ_SHFL_VIA_INT(unsigned short, CJ_TO_INT, (unsigned short))
CJ_SHFL_VIA_INT(bool, CJ_TO_INT, (bool))
#undef CJ_SHFL_VIA_INT
#undef CJ_BITS
#undef CJ_TO_INT

// ---- atomics (on an element whose index was checked) ----------------------------------------
#define CJ_ATOMIC_NATIVE(T, ADD, SUB)                                                          \
  __device__ __forceinline__ T atomic_add(T* p, T v) { return ADD; }                           \
  __device__ __forceinline__ T atomic_sub(T* p, T v) { return SUB; }
CJ_ATOMIC_NATIVE(int, atomicAdd(p, v), atomicSub(p, v))
CJ_ATOMIC_NATIVE(unsigned int, atomicAdd(p, v), atomicSub(p, v))
CJ_ATOMIC_NATIVE(unsigned long long, atomicAdd(p, v), atomicAdd(p, 0ull - v))
CJ_ATOMIC_NATIVE(long long, (long long)atomicAdd((unsigned long long*)p, (unsigned long long)v),
                 (long long)atomicAdd((unsigned long long*)p, 0ull - (unsigned long long)v))
CJ_ATOMIC_NATIVE(float, atomicAdd(p, v), atomicAdd(p, -v))
CJ_ATOMIC_NATIVE(double, atomicAdd(p, v), atomicAdd(p, -v))
#undef CJ_ATOMIC_NATIVE
__device__ __forceinline__ int atomic_min(int* p, int v) { return atomicMin(p, v); }
__device__ __forceinline__ int atomic_max(int* p, int v) { return atomicMax(p, v); }
__device__ __forceinline__ unsigned int atomic_min(unsigned int* p, unsigned int v) { return atomicMin(p, v); }
__device__ __forceinline__ unsigned int atomic_max(unsigned int* p, unsigned int v) { return atomicMax(p, v); }
__device__ __forceinline__ long long atomic_min(long long* p, long long v) { return atomicMin(p, v); }
__device__ __forceinline__ long long atomic_max(long long* p, long long v) { return atomicMax(p, v); }
__device__ __forceinline__ unsigned long long atomic_min(unsigned long long* p, unsigned long long v) { return atomicMin(p, v); }
__device__ __forceinline__ unsigned long long atomic_max(unsigned long long* p, unsigned long long v) { return atomicMax(p, v); }
__device__ __forceinline__ int atomic_exch(int* p, int v) { return atomicExch(p, v); }
__device__ __forceinline__ unsigned int atomic_exch(unsigned int* p, unsigned int v) { return atomicExch(p, v); }
__device__ __forceinline__ unsigned long long atomic_exch(unsigned long long* p, unsigned long long v) { return atomicExch(p, v); }
__device__ __forceinline__ long long atomic_exch(long long* p, long long v) {
  return (long long)atomicExch((unsigned long long*)p, (unsigned long long)v);
}
__device__ __forceinline__ float atomic_exch(float* p, float v) { return atomicExch(p, v); }
__device__ __forceinline__ double atomic_exch(double* p, double v) {
  return __longlong_as_double((long long)atomicExch((unsigned long long*)p, (unsigned long long)__double_as_longlong(v)));
}
__device__ __forceinline__ int atomic_cas(int* p, int c, int v) { return atomicCAS(p, c, v); }
__device__ __forceinline__ unsigned int atomic_cas(unsigned int* p, unsigned int c, unsigned int v) { return atomicCAS(p, c, v); }
__device__ __forceinline__ unsigned long long atomic_cas(unsigned long long* p, unsigned long long c, unsigned long long v) {
  return atomicCAS(p, c, v);
}
__device__ __forceinline__ long long atomic_cas(long long* p, long long c, long long v) {
  return (long long)atomicCAS((unsigned long long*)p, (unsigned long long)c, (unsigned long long)v);
}
__device__ __forceinline__ float atomic_cas(float* p, float c, float v) {
  return __int_as_float(atomicCAS((int*)p, __float_as_int(c), __float_as_int(v)));
}
__device__ __forceinline__ double atomic_cas(double* p, double c, double v) {
  return __longlong_as_double((long long)atomicCAS((unsigned long long*)p, (unsigned long long)__double_as_longlong(c),
                                                   (unsigned long long)__double_as_longlong(v)));
}
// Float min/max (Rust's f32::min/max: NaN loses) through compare-and-swap.
#define CJ_ATOMIC_FMINMAX(T, NAME, OP)                                                  \
  __device__ __forceinline__ T NAME(T* p, T v) {                                        \
    T old = *(volatile T*)p;                                                            \
    for (;;) {                                                                          \
      const T want = OP(old, v);                                                        \
      if (eq_bits(want, old)) return old;                                               \
      const T seen = atomic_cas(p, old, want);                                          \
      if (eq_bits(seen, old)) return old;                                               \
      old = seen;                                                                       \
    }                                                                                   \
  }
__device__ __forceinline__ bool eq_bits(float a, float b) { return __float_as_int(a) == __float_as_int(b); }
__device__ __forceinline__ bool eq_bits(double a, double b) { return __double_as_longlong(a) == __double_as_longlong(b); }
CJ_ATOMIC_FMINMAX(float, atomic_min, min)
CJ_ATOMIC_FMINMAX(float, atomic_max, max)
CJ_ATOMIC_FMINMAX(double, atomic_min, min)
CJ_ATOMIC_FMINMAX(double, atomic_max, max)
#undef CJ_ATOMIC_FMINMAX
#define CJ_ATOMIC_BITS(T, C)                                                                                 \
  __device__ __forceinline__ T atomic_and(T* p, T v) { return (T)atomicAnd((C*)p, (C)v); }                   \
  __device__ __forceinline__ T atomic_or(T* p, T v) { return (T)atomicOr((C*)p, (C)v); }                     \
  __device__ __forceinline__ T atomic_xor(T* p, T v) { return (T)atomicXor((C*)p, (C)v); }
CJ_ATOMIC_BITS(int, int) CJ_ATOMIC_BITS(unsigned int, unsigned int)
CJ_ATOMIC_BITS(unsigned long long, unsigned long long) CJ_ATOMIC_BITS(long long, unsigned long long)
#undef CJ_ATOMIC_BITS

// ---- grid-wide barrier (cooperative launch only) --------------------------------------------
// The driver gives every cooperative launch a workspace whose second word is a barrier
// counter (its address is in %envreg1:%envreg2). Per barrier each block adds 1, block
// (0,0,0) adds 2^31 - (blocks - 1): the top bit flips once all blocks arrived. One thread
// still running in each block arrives for it (a thread that faulted has exited).
__device__ __forceinline__ void grid_sync_init() {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) cj_gs_count = 0u;
  __syncthreads();
}
__device__ __noinline__ void grid_sync() {
  __syncthreads();
  const bool lead = atomicAdd(&cj_gs_count, 1u) == 0u;
  __syncthreads();
  if (lead) {
    cj_gs_count = 0u;
    unsigned int hi, lo;
    asm volatile("mov.u32 %0, %%envreg1;" : "=r"(hi));
    asm volatile("mov.u32 %0, %%envreg2;" : "=r"(lo));
    volatile unsigned int* word = (volatile unsigned int*)((((unsigned long long)hi << 32) | lo) + 4ull);
    const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
    const bool first = blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
    __threadfence();
    const unsigned int old = atomicAdd((unsigned int*)word, first ? 0x80000000u - (blocks - 1u) : 1u);
    while (((old ^ *word) & 0x80000000u) == 0u) {
    }
    __threadfence();
  }
  __syncthreads();
}

}  // namespace cj
