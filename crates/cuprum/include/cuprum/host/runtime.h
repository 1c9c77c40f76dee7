// cuprum/host/runtime.h — barriers, warp operations, faults, atomics, memory access
// hints, clocks, and the launcher of kernel entries, for the host device. A thread that
// must wait writes what it waits for into its slot and hands control to the runner
// (block->yield); the runner resumes it with the operation's result in its slot.
#pragma once

namespace cuprum_host {

// Hands control to the runner until the operation completes; returns its result.
inline unsigned long long wait(unsigned int op, unsigned int kind, unsigned int mask, unsigned int width,
                               int arg, unsigned long long value, const char* file, unsigned int line) {
  cuprum_host_block* b = __cuprum_b;
  const unsigned int tid = b->tid;
  const cuprum_host_dim3 idx = b->thread_idx;
  cuprum_host_slot* s = &b->slots[tid];
  s->op = op;
  s->kind = kind;
  s->mask = mask;
  s->width = width;
  s->arg = arg;
  s->value = value;
  s->file = file;
  s->line = line;
  b->yield(b);
  // Other threads of the block ran meanwhile: this thread's indices come back.
  b->tid = tid;
  b->thread_idx = idx;
  s->op = CUPRUM_OP_NONE;
  return s->result;
}

// The block fails here; the runner never resumes the thread.
[[noreturn]] inline void fail(unsigned int kind, const char* file, unsigned int line, const char* func,
                              const char* expr) {
  cuprum_host_block* b = __cuprum_b;
  b->fault.kind = kind;
  b->fault.line = line;
  b->fault.file = file;
  b->fault.func = func;
  b->fault.expr = expr;
  b->slots[b->tid].op = CUPRUM_OP_FAULT;
  b->yield(b);
  __builtin_trap();
}

// The calling thread ends here (the others go on).
[[noreturn]] inline void exit_thread() {
  cuprum_host_block* b = __cuprum_b;
  b->slots[b->tid].op = CUPRUM_OP_EXIT;
  b->yield(b);
  __builtin_trap();
}

template <class T> inline unsigned long long bits_of(const T& v) {
  static_assert(sizeof(T) <= 8, "warp operations on the host device take values of at most 8 bytes");
  unsigned long long u = 0;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}
template <class T> inline T from_bits(unsigned long long u) {
  T v;
  std::memcpy(&v, &u, sizeof(T));
  return v;
}

}  // namespace cuprum_host

// ---- barriers and fences ---------------------------------------------------------------
inline void __syncthreads(const char* file = __builtin_FILE(), unsigned int line = __builtin_LINE()) {
  cuprum_host::wait(CUPRUM_OP_SYNC, CUPRUM_SYNC_PLAIN, 0, 0, 0, 0, file, line);
}
inline int __syncthreads_count(int pred, const char* file = __builtin_FILE(), unsigned int line = __builtin_LINE()) {
  return (int)cuprum_host::wait(CUPRUM_OP_SYNC, CUPRUM_SYNC_COUNT, 0, 0, 0, pred != 0, file, line);
}
inline int __syncthreads_and(int pred, const char* file = __builtin_FILE(), unsigned int line = __builtin_LINE()) {
  return (int)cuprum_host::wait(CUPRUM_OP_SYNC, CUPRUM_SYNC_AND, 0, 0, 0, pred != 0, file, line);
}
inline int __syncthreads_or(int pred, const char* file = __builtin_FILE(), unsigned int line = __builtin_LINE()) {
  return (int)cuprum_host::wait(CUPRUM_OP_SYNC, CUPRUM_SYNC_OR, 0, 0, 0, pred != 0, file, line);
}
inline void __syncwarp(unsigned int mask = 0xffffffffu, const char* file = __builtin_FILE(),
                       unsigned int line = __builtin_LINE()) {
  cuprum_host::wait(CUPRUM_OP_WARP, CUPRUM_WARP_SYNC, mask, 32, 0, 0, file, line);
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
// The threads of a block share one OS thread: a compiler barrier is enough.
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

[[noreturn]] inline void __trap(const char* file = __builtin_FILE(), unsigned int line = __builtin_LINE()) {
  cuprum_host::fail(CUPRUM_FAULT_TRAP, file, line, "", "");
}
[[noreturn]] inline void __brkpt(const char* file = __builtin_FILE(), unsigned int line = __builtin_LINE()) {
  cuprum_host::fail(CUPRUM_FAULT_TRAP, file, line, "", "");
}
// The assert of <assert.h> (cuprum's own, first on the include path) calls this.
[[noreturn]] inline void __cuprum_assert_fail(const char* expr, const char* file, unsigned int line,
                                              const char* func) {
  cuprum_host::fail(CUPRUM_FAULT_ASSERT, file, line, func, expr);
}

// ---- warp operations -------------------------------------------------------------------
inline unsigned int __cuprum_lane_id() { return __cuprum_b->tid & 31u; }

namespace cuprum_host {
// A shuffle's width must be a power of two from 1 to 32 (CUDA leaves any other undefined).
[[noreturn]] inline void bad_width(const char* op, int width, const char* file, unsigned int line) {
  static thread_local char msg[160];
  std::snprintf(msg, sizeof msg, "%s: width %d is not a power of two from 1 to 32", op, width);
  fail(CUPRUM_FAULT_MESSAGE, file, line, op, msg);
}
}  // namespace cuprum_host

#define CUPRUM_SHFL(NAME, KIND, ARG)                                                                   \
  template <class T>                                                                                   \
  inline T NAME(unsigned int mask, T var, ARG a, int width = 32, const char* file = __builtin_FILE(), \
                unsigned int line = __builtin_LINE()) {                                                \
    if (width < 1 || width > 32 || (width & (width - 1)) != 0)                                         \
      cuprum_host::bad_width(#NAME, width, file, line);                                                \
    return cuprum_host::from_bits<T>(                                                                  \
        cuprum_host::wait(CUPRUM_OP_WARP, KIND, mask, (unsigned int)width, (int)a, cuprum_host::bits_of(var), file, line)); \
  }
CUPRUM_SHFL(__shfl_sync, CUPRUM_WARP_SHFL, int)
CUPRUM_SHFL(__shfl_up_sync, CUPRUM_WARP_SHFL_UP, unsigned int)
CUPRUM_SHFL(__shfl_down_sync, CUPRUM_WARP_SHFL_DOWN, unsigned int)
CUPRUM_SHFL(__shfl_xor_sync, CUPRUM_WARP_SHFL_XOR, int)
#undef CUPRUM_SHFL

inline unsigned int __ballot_sync(unsigned int mask, int pred, const char* file = __builtin_FILE(),
                                  unsigned int line = __builtin_LINE()) {
  return (unsigned int)cuprum_host::wait(CUPRUM_OP_WARP, CUPRUM_WARP_BALLOT, mask, 32, 0, pred != 0, file, line);
}
inline int __any_sync(unsigned int mask, int pred, const char* file = __builtin_FILE(),
                      unsigned int line = __builtin_LINE()) {
  return (int)cuprum_host::wait(CUPRUM_OP_WARP, CUPRUM_WARP_ANY, mask, 32, 0, pred != 0, file, line);
}
inline int __all_sync(unsigned int mask, int pred, const char* file = __builtin_FILE(),
                      unsigned int line = __builtin_LINE()) {
  return (int)cuprum_host::wait(CUPRUM_OP_WARP, CUPRUM_WARP_ALL, mask, 32, 0, pred != 0, file, line);
}
inline int __uni_sync(unsigned int mask, int pred, const char* file = __builtin_FILE(),
                      unsigned int line = __builtin_LINE()) {
  const unsigned int b = __ballot_sync(mask, pred, file, line);
  return b == 0 || b == mask;
}
inline unsigned int __activemask(const char* file = __builtin_FILE(), unsigned int line = __builtin_LINE()) {
  return (unsigned int)cuprum_host::wait(CUPRUM_OP_WARP, CUPRUM_WARP_ACTIVEMASK, 0xffffffffu, 32, 0, 0, file, line);
}
template <class T>
inline unsigned int __match_any_sync(unsigned int mask, T value, const char* file = __builtin_FILE(),
                                     unsigned int line = __builtin_LINE()) {
  return (unsigned int)cuprum_host::wait(CUPRUM_OP_WARP, CUPRUM_WARP_MATCH_ANY, mask, 32, 0,
                                         cuprum_host::bits_of(value), file, line);
}
template <class T>
inline unsigned int __match_all_sync(unsigned int mask, T value, int* pred, const char* file = __builtin_FILE(),
                                     unsigned int line = __builtin_LINE()) {
  const unsigned long long r = cuprum_host::wait(CUPRUM_OP_WARP, CUPRUM_WARP_MATCH_ALL, mask, 32, 0,
                                                 cuprum_host::bits_of(value), file, line);
  *pred = (int)(r >> 32);
  return (unsigned int)r;
}
#define CUPRUM_REDUCE(NAME, T, KIND)                                                                   \
  inline T NAME(unsigned int mask, T value, const char* file = __builtin_FILE(),                       \
                unsigned int line = __builtin_LINE()) {                                                \
    return (T)(unsigned int)cuprum_host::wait(CUPRUM_OP_WARP, KIND, mask, 32, 0,                       \
                                              (unsigned long long)(unsigned int)value, file, line);    \
  }
CUPRUM_REDUCE(__reduce_add_sync, unsigned int, CUPRUM_WARP_REDUCE_ADD)
CUPRUM_REDUCE(__reduce_add_sync, int, CUPRUM_WARP_REDUCE_ADD)
CUPRUM_REDUCE(__reduce_min_sync, unsigned int, CUPRUM_WARP_REDUCE_MIN)
CUPRUM_REDUCE(__reduce_min_sync, int, CUPRUM_WARP_REDUCE_MIN_S)
CUPRUM_REDUCE(__reduce_max_sync, unsigned int, CUPRUM_WARP_REDUCE_MAX)
CUPRUM_REDUCE(__reduce_max_sync, int, CUPRUM_WARP_REDUCE_MAX_S)
CUPRUM_REDUCE(__reduce_and_sync, unsigned int, CUPRUM_WARP_REDUCE_AND)
CUPRUM_REDUCE(__reduce_or_sync, unsigned int, CUPRUM_WARP_REDUCE_OR)
CUPRUM_REDUCE(__reduce_xor_sync, unsigned int, CUPRUM_WARP_REDUCE_XOR)
#undef CUPRUM_REDUCE

// Lets the other threads of the block run (a spinning thread must, on the host).
inline void __nanosleep(unsigned int) {
  cuprum_host::wait(CUPRUM_OP_YIELD, 0, 0, 0, 0, 0, "", 0);
}

// ---- atomics (relaxed, as CUDA's) --------------------------------------------------------
#define CUPRUM_RMW(NAME, BUILTIN, T) \
  inline T NAME(T* p, T v) { return BUILTIN(p, v, __ATOMIC_RELAXED); }
CUPRUM_RMW(atomicAdd, __atomic_fetch_add, int)
CUPRUM_RMW(atomicAdd, __atomic_fetch_add, unsigned int)
CUPRUM_RMW(atomicAdd, __atomic_fetch_add, unsigned long long)
CUPRUM_RMW(atomicSub, __atomic_fetch_sub, int)
CUPRUM_RMW(atomicSub, __atomic_fetch_sub, unsigned int)
CUPRUM_RMW(atomicAnd, __atomic_fetch_and, int)
CUPRUM_RMW(atomicAnd, __atomic_fetch_and, unsigned int)
CUPRUM_RMW(atomicAnd, __atomic_fetch_and, unsigned long long)
CUPRUM_RMW(atomicOr, __atomic_fetch_or, int)
CUPRUM_RMW(atomicOr, __atomic_fetch_or, unsigned int)
CUPRUM_RMW(atomicOr, __atomic_fetch_or, unsigned long long)
CUPRUM_RMW(atomicXor, __atomic_fetch_xor, int)
CUPRUM_RMW(atomicXor, __atomic_fetch_xor, unsigned int)
CUPRUM_RMW(atomicXor, __atomic_fetch_xor, unsigned long long)
CUPRUM_RMW(atomicExch, __atomic_exchange_n, int)
CUPRUM_RMW(atomicExch, __atomic_exchange_n, unsigned int)
CUPRUM_RMW(atomicExch, __atomic_exchange_n, unsigned long long)
#undef CUPRUM_RMW

namespace cuprum_host {
// A read-modify-write through a compare-and-swap loop on the value's bits.
template <class T, class U, class F> inline T cas_loop(T* p, F f) {
  static_assert(sizeof(T) == sizeof(U), "");
  U* q = reinterpret_cast<U*>(p);
  U old = __atomic_load_n(q, __ATOMIC_RELAXED);
  for (;;) {
    T o;
    std::memcpy(&o, &old, sizeof(T));
    const T n = f(o);
    U nb;
    std::memcpy(&nb, &n, sizeof(T));
    if (__atomic_compare_exchange_n(q, &old, nb, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return o;
  }
}
template <class T> inline T cas(T* p, T compare, T val) {
  __atomic_compare_exchange_n(p, &compare, val, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;
}
template <class T> inline T atomic_min(T* p, T v) { return cas_loop<T, T>(p, [v](T o) { return v < o ? v : o; }); }
template <class T> inline T atomic_max(T* p, T v) { return cas_loop<T, T>(p, [v](T o) { return v > o ? v : o; }); }
}  // namespace cuprum_host

inline float atomicAdd(float* p, float v) {
  return cuprum_host::cas_loop<float, unsigned int>(p, [v](float o) { return o + v; });
}
inline double atomicAdd(double* p, double v) {
  return cuprum_host::cas_loop<double, unsigned long long>(p, [v](double o) { return o + v; });
}
inline float atomicExch(float* p, float v) {
  unsigned int b;
  std::memcpy(&b, &v, 4);
  const unsigned int r = __atomic_exchange_n(reinterpret_cast<unsigned int*>(p), b, __ATOMIC_RELAXED);
  float f;
  std::memcpy(&f, &r, 4);
  return f;
}
inline int atomicCAS(int* p, int c, int v) { return cuprum_host::cas(p, c, v); }
inline unsigned int atomicCAS(unsigned int* p, unsigned int c, unsigned int v) { return cuprum_host::cas(p, c, v); }
inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long c, unsigned long long v) {
  return cuprum_host::cas(p, c, v);
}
inline unsigned short atomicCAS(unsigned short* p, unsigned short c, unsigned short v) {
  return cuprum_host::cas(p, c, v);
}
inline int atomicMin(int* p, int v) { return cuprum_host::atomic_min(p, v); }
inline unsigned int atomicMin(unsigned int* p, unsigned int v) { return cuprum_host::atomic_min(p, v); }
inline long long atomicMin(long long* p, long long v) { return cuprum_host::atomic_min(p, v); }
inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) { return cuprum_host::atomic_min(p, v); }
inline int atomicMax(int* p, int v) { return cuprum_host::atomic_max(p, v); }
inline unsigned int atomicMax(unsigned int* p, unsigned int v) { return cuprum_host::atomic_max(p, v); }
inline long long atomicMax(long long* p, long long v) { return cuprum_host::atomic_max(p, v); }
inline unsigned long long atomicMax(unsigned long long* p, unsigned long long v) { return cuprum_host::atomic_max(p, v); }
// CUDA's wrap rules: inc wraps to 0 past `v`; dec wraps to `v` at 0 or above `v`.
inline unsigned int atomicInc(unsigned int* p, unsigned int v) {
  return cuprum_host::cas_loop<unsigned int, unsigned int>(p, [v](unsigned int o) { return o >= v ? 0u : o + 1u; });
}
inline unsigned int atomicDec(unsigned int* p, unsigned int v) {
  return cuprum_host::cas_loop<unsigned int, unsigned int>(p, [v](unsigned int o) { return (o == 0u || o > v) ? v : o - 1u; });
}
#define CUPRUM_SCOPED(NAME)                                                                     \
  template <class P, class... A> inline auto NAME##_block(P p, A... a) { return NAME(p, a...); } \
  template <class P, class... A> inline auto NAME##_system(P p, A... a) { return NAME(p, a...); }
CUPRUM_SCOPED(atomicAdd)
CUPRUM_SCOPED(atomicSub)
CUPRUM_SCOPED(atomicExch)
CUPRUM_SCOPED(atomicMin)
CUPRUM_SCOPED(atomicMax)
CUPRUM_SCOPED(atomicInc)
CUPRUM_SCOPED(atomicDec)
CUPRUM_SCOPED(atomicCAS)
CUPRUM_SCOPED(atomicAnd)
CUPRUM_SCOPED(atomicOr)
CUPRUM_SCOPED(atomicXor)
#undef CUPRUM_SCOPED

// ---- memory access hints (plain accesses on the host) ---------------------------------------
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *(const volatile T*)p; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *(volatile T*)p = v; }
template <class T> inline bool __isGlobal(const T*) { return true; }
template <class T> inline bool __isShared(const T*) { return false; }

// ---- clocks --------------------------------------------------------------------------------
inline long long clock64() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}
inline unsigned long long __globaltimer() { return (unsigned long long)clock64(); }

// ---- contiguous shares of a loop (the host form of a grid-stride loop) ----------------------
namespace cuprum_host {
// The running thread's share [begin, *end) of [0, n): every thread of the grid gets a
// contiguous run, in thread order, together covering [0, n) once.
template <class I> inline I share_begin(I n, I* end) {
  const cuprum_host_block* b = __cuprum_b;
  const unsigned long long per_block = (unsigned long long)b->block_dim.x * b->block_dim.y * b->block_dim.z;
  const unsigned long long blocks = (unsigned long long)b->grid_dim.x * b->grid_dim.y * b->grid_dim.z;
  const unsigned long long block =
      ((unsigned long long)b->block_idx.z * b->grid_dim.y + b->block_idx.y) * b->grid_dim.x + b->block_idx.x;
  const unsigned long long t = block * per_block + b->tid, total = blocks * per_block;
  const unsigned long long count = n > (I)0 ? (unsigned long long)n : 0ull;
  const unsigned long long q = count / total, r = count % total;
  const unsigned long long lo = t * q + (t < r ? t : r);
  *end = (I)(lo + q + (t < r ? 1ull : 0ull));
  return (I)lo;
}
}  // namespace cuprum_host

// ---- the launcher of kernel entries -------------------------------------------------------------
namespace cuprum_host {

template <class F> struct sig;
template <class... P> struct sig<void (*)(P...)> {
  static constexpr unsigned int n = sizeof...(P);
  static constexpr unsigned int sizes[sizeof...(P) + 1] = {(unsigned int)sizeof(P)..., 0u};
  static constexpr unsigned int aligns[sizeof...(P) + 1] = {(unsigned int)alignof(P)..., 0u};
};

template <auto K, class F> struct launcher;
template <auto K, class... P> struct launcher<K, void (*)(P...)> {
  template <std::size_t... I>
  static void go(cuprum_host_block* b, void* const* args, unsigned int first, unsigned int last,
                 std::index_sequence<I...>) {
    __cuprum_b = b;
    const unsigned int bx = b->block_dim.x, by = b->block_dim.y;
    unsigned int x = first % bx, y = (first / bx) % by, z = first / (bx * by);
    for (unsigned int t = first; t < last; ++t) {
      b->tid = t;
      b->thread_idx.x = x;
      b->thread_idx.y = y;
      b->thread_idx.z = z;
      // Each thread gets its own copies of the parameters (kernels may modify them).
      K(*static_cast<typename std::remove_cv<P>::type*>(args[I])...);
      if (b->promoted) return;
      if (++x == bx) {
        x = 0;
        if (++y == by) {
          y = 0;
          ++z;
        }
      }
    }
  }
  static void run(cuprum_host_block* b, void* const* args, unsigned int first, unsigned int last) {
    go(b, args, first, last, std::index_sequence_for<P...>{});
  }
};

template <auto K> constexpr cuprum_host_kernel entry(const char* name) {
  using S = sig<decltype(K)>;
  return cuprum_host_kernel{name, &launcher<K, decltype(K)>::run, S::n, 0u, S::sizes, S::aligns};
}

}  // namespace cuprum_host

#define CUPRUM_HOST_EXPORT extern "C" __attribute__((visibility("default")))
