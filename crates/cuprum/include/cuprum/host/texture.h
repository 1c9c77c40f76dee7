// cuprum/host/texture.h — texture and surface objects for the host device: tex1Dfetch,
// tex1D/tex2D/tex3D (and their Lod and Grad forms) and surf{1,2,3}D{read,write}, with the
// semantics of the CUDA C++ Programming Guide's "Texture fetching" appendix. A handle is
// the address of a cuprum_host_texture or cuprum_host_surface (abi.h), made by the runner.
//
// Textures: point filtering reads texel floor(x); linear filtering blends texels i and i+1
// of xB = x - 0.5 with a weight rounded to 1/256 (9-bit fixed point, 8 fractional bits),
// per dimension, and only for float results (float and half formats, normalized-float
// reads of 8/16-bit integers: other reads are point-filtered). As an H100 does (CuPy's
// fetches agree to the bit): in 2-D and 3-D each corner's weight, the product, is rounded
// to 1/256 again; a 1-D linear fetch in border mode is half the border colour and half
// the blend, as if from a row of a 2-D texture beside a border row. Address modes apply to
// every texel index (wrap and mirror need normalized coordinates: without, they clamp);
// a border texel reads the border colour, as returned (not normalized). A texel's
// channels fill the result's x, y, z, w; a channel the format lacks reads 0 (w: 1), as
// graphics formats do. Mipmap levels and gradients are ignored (no mipmaps).
// Surfaces: x is in bytes, y and z in elements; out of range, cudaBoundaryModeTrap traps,
// cudaBoundaryModeZero reads 0 and drops writes, cudaBoundaryModeClamp clamps the byte
// address into the row (and y, z into the surface).
#pragma once

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

enum cudaSurfaceBoundaryMode {
  cudaBoundaryModeZero = 0,
  cudaBoundaryModeClamp = 1,
  cudaBoundaryModeTrap = 2
};

// The layouts the runner builds (runtime/host/texture.rs) on 64-bit targets.
static_assert(sizeof(void*) != 8 || (sizeof(cuprum_host_texture) == 112 &&
                                     offsetof(cuprum_host_texture, address) == 68 &&
                                     offsetof(cuprum_host_texture, border) == 96),
              "cuprum_host_texture's layout is part of the ABI");
static_assert(sizeof(void*) != 8 || (sizeof(cuprum_host_surface) == 56 &&
                                     offsetof(cuprum_host_surface, texel_bytes) == 48),
              "cuprum_host_surface's layout is part of the ABI");

namespace cuprum_host {
namespace tex {

// ---- result types: scalars and CUDA's vector types -------------------------------------
template <class T, class = void> struct has_y : std::false_type {};
template <class T> struct has_y<T, std::void_t<decltype(T::y)>> : std::true_type {};
template <class T, class = void> struct has_z : std::false_type {};
template <class T> struct has_z<T, std::void_t<decltype(T::z)>> : std::true_type {};
template <class T, class = void> struct has_w : std::false_type {};
template <class T> struct has_w<T, std::void_t<decltype(T::w)>> : std::true_type {};

template <class T, class = void> struct comps {
  static_assert(std::is_arithmetic<T>::value,
                "a texture fetch returns a scalar or one of CUDA's vector types");
  using type = T;
  static constexpr int n = 1;
};
template <class T> struct comps<T, std::void_t<decltype(T::x)>> {
  using type = typename std::remove_cv<decltype(T::x)>::type;
  static constexpr int n = 1 + has_y<T>::value + has_z<T>::value + has_w<T>::value;
};

template <class T> inline void put(T& r, int i, typename comps<T>::type c) {
  if constexpr (std::is_arithmetic<T>::value) {
    r = c;
  } else {
    if (i == 0) r.x = c;
    if constexpr (has_y<T>::value) if (i == 1) r.y = c;
    if constexpr (has_z<T>::value) if (i == 2) r.z = c;
    if constexpr (has_w<T>::value) if (i == 3) r.w = c;
  }
}

// A float as component type C (integers saturate; NaN is 0).
template <class C> inline C from_float(float f) {
  if constexpr (std::is_floating_point<C>::value) {
    return (C)f;
  } else if constexpr (std::is_same<C, bool>::value) {
    return f != 0.0f;
  } else {
    if (f != f) return (C)0;
    if (f <= (float)std::numeric_limits<C>::min()) return std::numeric_limits<C>::min();
    if (f >= (float)std::numeric_limits<C>::max()) return std::numeric_limits<C>::max();
    return (C)f;
  }
}

template <class T> inline T make_f(const float v[4]) {
  T r;
  std::memset((void*)&r, 0, sizeof r);
  for (int i = 0; i < comps<T>::n && i < 4; ++i) put(r, i, from_float<typename comps<T>::type>(v[i]));
  return r;
}
template <class T> inline T make_i(const long long v[4]) {
  T r;
  std::memset((void*)&r, 0, sizeof r);
  for (int i = 0; i < comps<T>::n && i < 4; ++i) put(r, i, (typename comps<T>::type)v[i]);
  return r;
}

// ---- texels ----------------------------------------------------------------------------
// Reads return floats for float and half formats and for normalized-float reads of 8- and
// 16-bit integers; the stored integers otherwise.
inline bool float_result(const cuprum_host_texture* t) {
  return t->kind == 2 || (t->read_mode == 1 && t->bits <= 16);
}

inline const unsigned char* texel_at(const cuprum_host_texture* t, long long x, long long y, long long z) {
  const unsigned long long texel_bytes = (unsigned long long)t->channels * t->bits / 8;
  return t->data + (unsigned long long)z * t->slice_pitch + (unsigned long long)y * t->row_pitch +
         (unsigned long long)x * texel_bytes;
}

inline long long channel_int(const cuprum_host_texture* t, const unsigned char* p) {
  const bool sign = t->kind == 0;
  switch (t->bits) {
    case 8: {
      unsigned char u;
      std::memcpy(&u, p, 1);
      return sign ? (long long)(signed char)u : (long long)u;
    }
    case 16: {
      unsigned short u;
      std::memcpy(&u, p, 2);
      return sign ? (long long)(short)u : (long long)u;
    }
    case 32: {
      unsigned int u;
      std::memcpy(&u, p, 4);
      return sign ? (long long)(int)u : (long long)u;
    }
    default: {
      unsigned long long u = 0;
      std::memcpy(&u, p, t->bits / 8 <= 8 ? t->bits / 8 : 8);
      return (long long)u;
    }
  }
}

inline float srgb_to_linear(float c) {
  return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

inline float channel_float(const cuprum_host_texture* t, const unsigned char* p, unsigned int c) {
  if (t->kind == 2) {
    if (t->bits == 16) {
      unsigned short h;
      std::memcpy(&h, p, 2);
      return f16_bits_to_f32(h);
    }
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  const long long v = channel_int(t, p);
  if (t->read_mode != 1 || t->bits > 16) return (float)v;
  if (t->kind == 1) {
    const float f = (float)v / (float)((1u << t->bits) - 1u);
    return t->srgb && t->bits == 8 && c < 3 ? srgb_to_linear(f) : f;
  }
  const float f = (float)v / (float)((1u << (t->bits - 1)) - 1u);
  return f < -1.0f ? -1.0f : f;
}

// Texel (x, y, z) as floats, or the border colour when any index is -1.
inline void texel_float(const cuprum_host_texture* t, long long x, long long y, long long z, float v[4]) {
  if (x < 0 || y < 0 || z < 0) {
    for (int c = 0; c < 4; ++c) v[c] = t->border[c];
    return;
  }
  const unsigned char* p = texel_at(t, x, y, z);
  const unsigned int step = t->bits / 8;
  for (unsigned int c = 0; c < 4; ++c)
    v[c] = c < t->channels ? channel_float(t, p + c * step, c) : (c == 3 ? 1.0f : 0.0f);
}

inline void texel_int(const cuprum_host_texture* t, long long x, long long y, long long z, long long v[4]) {
  if (x < 0 || y < 0 || z < 0) {
    for (int c = 0; c < 4; ++c) v[c] = from_float<long long>(t->border[c]);
    return;
  }
  const unsigned char* p = texel_at(t, x, y, z);
  const unsigned int step = t->bits / 8;
  for (unsigned int c = 0; c < 4; ++c) v[c] = c < t->channels ? channel_int(t, p + c * step) : (c == 3 ? 1 : 0);
}

// ---- addressing ------------------------------------------------------------------------
// floor(f) as an integer (NaN reads 0; far coordinates are held at +-2^60).
inline long long floor_index(float f) {
  if (f != f) return 0;
  if (f <= -1.152921504606847e18f) return -(1ll << 60);
  if (f >= 1.152921504606847e18f) return 1ll << 60;
  return (long long)floorf(f);
}

// Texel index i of a dimension of n texels under address mode `mode`; -1: the border.
inline long long address(long long i, long long n, unsigned int mode) {
  switch (mode) {
    case 0: {  // wrap
      const long long m = i % n;
      return m < 0 ? m + n : m;
    }
    case 2: {  // mirror
      long long m = i % (2 * n);
      if (m < 0) m += 2 * n;
      return m < n ? m : 2 * n - 1 - m;
    }
    case 3:  // border
      return i < 0 || i >= n ? -1 : i;
    default:  // clamp
      return i < 0 ? 0 : (i >= n ? n - 1 : i);
  }
}

// What one dimension of a fetch reads: texels i0 and i1 (-1: the border), weights 1 - a
// and a (a == 0: only i0).
struct axis {
  long long i0, i1;
  float a;
};

inline axis resolve(const cuprum_host_texture* t, int d, float x, unsigned long long size, bool linear) {
  const long long n = size ? (long long)size : 1;
  unsigned int mode = t->address[d];
  if (!t->normalized && (mode == 0 || mode == 2)) mode = 1;  // wrap and mirror need normalized coordinates
  float u = x;
  if (t->normalized) {
    if (mode == 0) {
      u = u - floorf(u);
    } else if (mode == 2) {
      const float f = floorf(u);
      u = fmodf(f, 2.0f) == 0.0f ? u - f : 1.0f - (u - f);
    }
    u *= (float)n;
  }
  if (!linear) return axis{address(floor_index(u), n, mode), 0, 0.0f};
  const float xb = u - 0.5f;
  const long long i = floor_index(xb);
  float frac = xb - floorf(xb);
  if (!(frac >= 0.0f && frac < 1.0f)) frac = 0.0f;  // NaN, infinities
  const float a = floorf(frac * 256.0f + 0.5f) * (1.0f / 256.0f);
  return axis{address(i, n, mode), address(i + 1, n, mode), a};
}

inline const cuprum_host_texture* handle(cudaTextureObject_t obj, const char* fn, const char* file,
                                         unsigned int line) {
  if (obj == 0) fail(CUPRUM_FAULT_MESSAGE, file, line, fn, "texture object 0 (no texture)");
  return reinterpret_cast<const cuprum_host_texture*>(obj);
}

// A fetch at coordinates c[0..k) (the dimensions past k read index 0).
template <class T>
inline T sample(cudaTextureObject_t obj, int k, float x, float y, float z, const char* fn, const char* file,
                unsigned int line) {
  const cuprum_host_texture* t = handle(obj, fn, file, line);
  const bool fl = float_result(t);
  const bool linear = fl && t->filter == 1;
  const float c[3] = {x, y, z};
  const unsigned long long size[3] = {t->width, t->height, t->depth};
  axis ax[3];
  for (int d = 0; d < 3; ++d) ax[d] = d < k ? resolve(t, d, c[d], size[d], linear) : axis{0, 0, 0.0f};
  if (!fl) {
    long long v[4];
    texel_int(t, ax[0].i0, ax[1].i0, ax[2].i0, v);
    return make_i<T>(v);
  }
  if (!linear) {
    float v[4];
    texel_float(t, ax[0].i0, ax[1].i0, ax[2].i0, v);
    return make_f<T>(v);
  }
  // (1-a)(1-b)(1-g) T[i,j,l] + a(1-b)(1-g) T[i+1,j,l] + ...; corners of weight 0 are not read
  float r[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int corner = 0; corner < 8; ++corner) {
    float w = 1.0f;
    long long idx[3];
    bool skip = false;
    for (int d = 0; d < 3; ++d) {
      const bool hi = (corner >> d) & 1;
      if (hi && ax[d].a == 0.0f) {
        skip = true;
        break;
      }
      w *= hi ? ax[d].a : 1.0f - ax[d].a;
      idx[d] = hi ? ax[d].i1 : ax[d].i0;
    }
    if (k > 1) w = floorf(w * 256.0f + 0.5f) * (1.0f / 256.0f);
    if (skip || w == 0.0f) continue;
    float v[4];
    texel_float(t, idx[0], idx[1], idx[2], v);
    for (int ch = 0; ch < 4; ++ch) r[ch] += w * v[ch];
  }
  if (k == 1 && t->address[0] == 3)
    for (int ch = 0; ch < 4; ++ch) r[ch] = 0.5f * t->border[ch] + 0.5f * r[ch];
  return make_f<T>(r);
}

template <class T>
inline T fetch(cudaTextureObject_t obj, int x, const char* file, unsigned int line) {
  const cuprum_host_texture* t = handle(obj, "tex1Dfetch", file, line);
  if (x < 0 || (unsigned long long)x >= t->width) {
    const long long z[4] = {0, 0, 0, 0};
    return make_i<T>(z);
  }
  if (float_result(t)) {
    float v[4];
    texel_float(t, x, 0, 0, v);
    return make_f<T>(v);
  }
  long long v[4];
  texel_int(t, x, 0, 0, v);
  return make_i<T>(v);
}

// ---- surfaces --------------------------------------------------------------------------
// The address of `bytes` bytes at byte x of row y of slice z, or null (a zero-mode access
// out of range).
inline unsigned char* surface_at(cudaSurfaceObject_t obj, long long x, long long y, long long z,
                                 unsigned long long bytes, int mode, const char* fn, const char* file,
                                 unsigned int line) {
  if (obj == 0) fail(CUPRUM_FAULT_MESSAGE, file, line, fn, "surface object 0 (no surface)");
  const cuprum_host_surface* s = reinterpret_cast<const cuprum_host_surface*>(obj);
  const long long row = (long long)(s->width * s->texel_bytes);
  const long long h = (long long)s->height, d = (long long)s->depth;
  const long long last = row - (long long)bytes;  // the last byte offset an access fits at
  const bool in = x >= 0 && x <= last && y >= 0 && y < h && z >= 0 && z < d;
  if (!in) {
    if (mode == cudaBoundaryModeTrap || (mode == cudaBoundaryModeClamp && last < 0)) __trap(file, line);
    if (mode != cudaBoundaryModeClamp) return nullptr;
    x = x < 0 ? 0 : (x > last ? last : x);
    y = y < 0 ? 0 : (y >= h ? h - 1 : y);
    z = z < 0 ? 0 : (z >= d ? d - 1 : z);
  }
  return s->data + (unsigned long long)z * s->slice_pitch + (unsigned long long)y * s->row_pitch +
         (unsigned long long)x;
}

template <class T>
inline T surf_read(cudaSurfaceObject_t obj, long long x, long long y, long long z, int mode, const char* fn,
                   const char* file, unsigned int line) {
  const unsigned char* p = surface_at(obj, x, y, z, sizeof(T), mode, fn, file, line);
  T r;
  if (p)
    std::memcpy((void*)&r, p, sizeof(T));
  else
    std::memset((void*)&r, 0, sizeof(T));
  return r;
}

template <class T>
inline void surf_write(const T& v, cudaSurfaceObject_t obj, long long x, long long y, long long z, int mode,
                       const char* fn, const char* file, unsigned int line) {
  unsigned char* p = surface_at(obj, x, y, z, sizeof(T), mode, fn, file, line);
  if (p) std::memcpy(p, (const void*)&v, sizeof(T));
}

}  // namespace tex
}  // namespace cuprum_host

// ---- texture fetches -------------------------------------------------------------------
#define CUPRUM_TEX_LOC const char* file = __builtin_FILE(), unsigned int line = __builtin_LINE()

template <class T> inline T tex1Dfetch(cudaTextureObject_t t, int x, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::fetch<T>(t, x, file, line);
}
template <class T> inline void tex1Dfetch(T* r, cudaTextureObject_t t, int x, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::fetch<T>(t, x, file, line);
}

template <class T> inline T tex1D(cudaTextureObject_t t, float x, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::sample<T>(t, 1, x, 0.0f, 0.0f, "tex1D", file, line);
}
template <class T> inline void tex1D(T* r, cudaTextureObject_t t, float x, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::sample<T>(t, 1, x, 0.0f, 0.0f, "tex1D", file, line);
}
template <class T> inline T tex2D(cudaTextureObject_t t, float x, float y, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::sample<T>(t, 2, x, y, 0.0f, "tex2D", file, line);
}
template <class T> inline void tex2D(T* r, cudaTextureObject_t t, float x, float y, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::sample<T>(t, 2, x, y, 0.0f, "tex2D", file, line);
}
template <class T> inline T tex3D(cudaTextureObject_t t, float x, float y, float z, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::sample<T>(t, 3, x, y, z, "tex3D", file, line);
}
template <class T> inline void tex3D(T* r, cudaTextureObject_t t, float x, float y, float z, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::sample<T>(t, 3, x, y, z, "tex3D", file, line);
}

// No mipmaps: the level of detail is ignored.
template <class T> inline T tex1DLod(cudaTextureObject_t t, float x, float, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::sample<T>(t, 1, x, 0.0f, 0.0f, "tex1DLod", file, line);
}
template <class T> inline void tex1DLod(T* r, cudaTextureObject_t t, float x, float, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::sample<T>(t, 1, x, 0.0f, 0.0f, "tex1DLod", file, line);
}
template <class T> inline T tex2DLod(cudaTextureObject_t t, float x, float y, float, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::sample<T>(t, 2, x, y, 0.0f, "tex2DLod", file, line);
}
template <class T> inline void tex2DLod(T* r, cudaTextureObject_t t, float x, float y, float, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::sample<T>(t, 2, x, y, 0.0f, "tex2DLod", file, line);
}
template <class T> inline T tex3DLod(cudaTextureObject_t t, float x, float y, float z, float, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::sample<T>(t, 3, x, y, z, "tex3DLod", file, line);
}
template <class T>
inline void tex3DLod(T* r, cudaTextureObject_t t, float x, float y, float z, float, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::sample<T>(t, 3, x, y, z, "tex3DLod", file, line);
}

// No mipmaps: the gradients are ignored.
template <class T> inline T tex1DGrad(cudaTextureObject_t t, float x, float, float, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::sample<T>(t, 1, x, 0.0f, 0.0f, "tex1DGrad", file, line);
}
template <class T> inline void tex1DGrad(T* r, cudaTextureObject_t t, float x, float, float, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::sample<T>(t, 1, x, 0.0f, 0.0f, "tex1DGrad", file, line);
}
template <class T> inline T tex2DGrad(cudaTextureObject_t t, float x, float y, float2, float2, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::sample<T>(t, 2, x, y, 0.0f, "tex2DGrad", file, line);
}
template <class T>
inline void tex2DGrad(T* r, cudaTextureObject_t t, float x, float y, float2, float2, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::sample<T>(t, 2, x, y, 0.0f, "tex2DGrad", file, line);
}
template <class T>
inline T tex3DGrad(cudaTextureObject_t t, float x, float y, float z, float4, float4, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::sample<T>(t, 3, x, y, z, "tex3DGrad", file, line);
}
template <class T>
inline void tex3DGrad(T* r, cudaTextureObject_t t, float x, float y, float z, float4, float4, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::sample<T>(t, 3, x, y, z, "tex3DGrad", file, line);
}

// ---- surface reads and writes (x in bytes) -----------------------------------------------
#define CUPRUM_SURF_MODE cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap

template <class T> inline T surf1Dread(cudaSurfaceObject_t s, int x, CUPRUM_SURF_MODE, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::surf_read<T>(s, x, 0, 0, mode, "surf1Dread", file, line);
}
template <class T> inline void surf1Dread(T* r, cudaSurfaceObject_t s, int x, CUPRUM_SURF_MODE, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::surf_read<T>(s, x, 0, 0, mode, "surf1Dread", file, line);
}
template <class T> inline T surf2Dread(cudaSurfaceObject_t s, int x, int y, CUPRUM_SURF_MODE, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::surf_read<T>(s, x, y, 0, mode, "surf2Dread", file, line);
}
template <class T>
inline void surf2Dread(T* r, cudaSurfaceObject_t s, int x, int y, CUPRUM_SURF_MODE, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::surf_read<T>(s, x, y, 0, mode, "surf2Dread", file, line);
}
template <class T>
inline T surf3Dread(cudaSurfaceObject_t s, int x, int y, int z, CUPRUM_SURF_MODE, CUPRUM_TEX_LOC) {
  return cuprum_host::tex::surf_read<T>(s, x, y, z, mode, "surf3Dread", file, line);
}
template <class T>
inline void surf3Dread(T* r, cudaSurfaceObject_t s, int x, int y, int z, CUPRUM_SURF_MODE, CUPRUM_TEX_LOC) {
  *r = cuprum_host::tex::surf_read<T>(s, x, y, z, mode, "surf3Dread", file, line);
}

template <class T> inline void surf1Dwrite(T v, cudaSurfaceObject_t s, int x, CUPRUM_SURF_MODE, CUPRUM_TEX_LOC) {
  cuprum_host::tex::surf_write(v, s, x, 0, 0, mode, "surf1Dwrite", file, line);
}
template <class T>
inline void surf2Dwrite(T v, cudaSurfaceObject_t s, int x, int y, CUPRUM_SURF_MODE, CUPRUM_TEX_LOC) {
  cuprum_host::tex::surf_write(v, s, x, y, 0, mode, "surf2Dwrite", file, line);
}
template <class T>
inline void surf3Dwrite(T v, cudaSurfaceObject_t s, int x, int y, int z, CUPRUM_SURF_MODE, CUPRUM_TEX_LOC) {
  cuprum_host::tex::surf_write(v, s, x, y, z, mode, "surf3Dwrite", file, line);
}

#undef CUPRUM_SURF_MODE
#undef CUPRUM_TEX_LOC
