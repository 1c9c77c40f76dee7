// <cooperative_groups.h> for the host device: thread blocks, the grid of a cooperative
// launch, warp tiles (thread_block_tile<N>, N <= 32) with their shuffles and votes, tiled
// partitions, coalesced groups (approximate: the lanes at the same call) and
// cooperative_groups::reduce.
#pragma once

namespace cooperative_groups {

namespace details {
inline unsigned int block_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned int tile_mask(unsigned int n) {
  const unsigned int lane = __cuprum_lane_id();
  const unsigned int m = n >= 32 ? 0xffffffffu : ((1u << n) - 1u);
  return n >= 32 ? m : m << (lane / n * n);
}
}  // namespace details

class thread_block {
 public:
  void sync(const char* file = __builtin_FILE(), unsigned int line = __builtin_LINE()) const { __syncthreads(file, line); }
  unsigned int thread_rank() const { return __cuprum_b->tid; }
  unsigned int size() const { return details::block_size(); }
  unsigned int num_threads() const { return size(); }
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }

class grid_group {
 public:
  void sync(const char* file = __builtin_FILE(), unsigned int line = __builtin_LINE()) const {
    cuprum_host::wait(CUPRUM_OP_GRID_SYNC, 0, 0, 0, 0, 0, file, line);
  }
  bool is_valid() const { return __cuprum_b->cooperative != 0; }
  unsigned long long block_rank() const {
    return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  }
  unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
  unsigned long long thread_rank() const { return block_rank() * details::block_size() + __cuprum_b->tid; }
  unsigned long long size() const { return num_blocks() * details::block_size(); }
  unsigned long long num_threads() const { return size(); }
  dim3 group_dim() const { return gridDim; }
  dim3 dim_blocks() const { return gridDim; }
  dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};
inline grid_group this_grid() { return grid_group(); }

// A group of `n` consecutive lanes of a warp (n a power of two, at most 32).
class thread_group {
 protected:
  unsigned int n_;

 public:
  explicit thread_group(unsigned int n) : n_(n) {}
  void sync(const char* file = __builtin_FILE(), unsigned int line = __builtin_LINE()) const {
    __syncwarp(details::tile_mask(n_), file, line);
  }
  unsigned int thread_rank() const { return __cuprum_lane_id() % n_; }
  unsigned int size() const { return n_; }
  unsigned int num_threads() const { return n_; }
  unsigned int meta_group_rank() const { return __cuprum_b->tid / n_; }
  unsigned int meta_group_size() const { return (details::block_size() + n_ - 1) / n_; }
  template <class T> T shfl(T v, int src, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const {
    return __shfl_sync(details::tile_mask(n_), v, src, (int)n_, f, l);
  }
  template <class T> T shfl_up(T v, unsigned int d, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const {
    return __shfl_up_sync(details::tile_mask(n_), v, d, (int)n_, f, l);
  }
  template <class T> T shfl_down(T v, unsigned int d, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const {
    return __shfl_down_sync(details::tile_mask(n_), v, d, (int)n_, f, l);
  }
  template <class T> T shfl_xor(T v, int m, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const {
    return __shfl_xor_sync(details::tile_mask(n_), v, m, (int)n_, f, l);
  }
  int any(int p, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const {
    return __any_sync(details::tile_mask(n_), p, f, l);
  }
  int all(int p, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const {
    return __all_sync(details::tile_mask(n_), p, f, l);
  }
  unsigned int ballot(int p, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const {
    const unsigned int m = details::tile_mask(n_);
    const unsigned int b = __ballot_sync(m, p, f, l) & m;
    return n_ >= 32 ? b : b >> (__cuprum_lane_id() / n_ * n_);
  }
  template <class T> unsigned int match_any(T v, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const {
    const unsigned int m = details::tile_mask(n_);
    const unsigned int b = __match_any_sync(m, v, f, l) & m;
    return n_ >= 32 ? b : b >> (__cuprum_lane_id() / n_ * n_);
  }
};

template <unsigned int N> class thread_block_tile : public thread_group {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tiles on the host device have 1 to 32 threads (a power of two)");

 public:
  thread_block_tile() : thread_group(N) {}
  static constexpr unsigned int num_threads() { return N; }
  static constexpr unsigned int size() { return N; }
};

template <unsigned int N, class P> inline thread_block_tile<N> tiled_partition(const P&) { return thread_block_tile<N>(); }
inline thread_group tiled_partition(const thread_block&, unsigned int n) { return thread_group(n); }

// The lanes of the warp at the same call (an approximation of the converged lanes).
class coalesced_group {
  unsigned int mask_;

 public:
  explicit coalesced_group(unsigned int m) : mask_(m) {}
  unsigned int size() const { return (unsigned int)__builtin_popcount(mask_); }
  unsigned int num_threads() const { return size(); }
  unsigned int thread_rank() const {
    return (unsigned int)__builtin_popcount(mask_ & ((1u << __cuprum_lane_id()) - 1u));
  }
  void sync(const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const { __syncwarp(mask_, f, l); }
  template <class T> T shfl(T v, unsigned int rank, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const {
    unsigned int m = mask_, lane = 0;
    for (unsigned int r = 0; m; ++r) {
      lane = (unsigned int)__builtin_ctz(m);
      if (r == rank) break;
      m &= m - 1;
    }
    return __shfl_sync(mask_, v, (int)lane, 32, f, l);
  }
  int any(int p, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const { return __any_sync(mask_, p, f, l); }
  int all(int p, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const { return __all_sync(mask_, p, f, l); }
  unsigned int ballot(int p, const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) const {
    return __ballot_sync(mask_, p, f, l);
  }
};
inline coalesced_group coalesced_threads(const char* f = __builtin_FILE(), unsigned int l = __builtin_LINE()) {
  return coalesced_group(__activemask(f, l));
}

template <class G> inline void sync(const G& g) { g.sync(); }

template <class T> struct plus {
  T operator()(const T& a, const T& b) const { return a + b; }
};
template <class T> struct less {
  T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T> struct greater {
  T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
  T operator()(const T& a, const T& b) const { return a & b; }
};
template <class T> struct bit_or {
  T operator()(const T& a, const T& b) const { return a | b; }
};
template <class T> struct bit_xor {
  T operator()(const T& a, const T& b) const { return a ^ b; }
};

// Every lane of the group gets the reduction of the group's values.
template <class G, class T, class Op> inline T reduce(const G& g, T v, Op op) {
  for (unsigned int d = 1; d < g.size(); d <<= 1) v = op(v, g.shfl_xor(v, (int)d));
  return v;
}

}  // namespace cooperative_groups
