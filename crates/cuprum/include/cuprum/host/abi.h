// cuprum/host/abi.h — the contract between cuprum's host runner (Rust:
// crates/cuprum/src/runtime/host/abi.rs) and a kernel module compiled for the host device.
// Change both together and bump CUPRUM_HOST_ABI (it is part of every cache key).
#pragma once

#define CUPRUM_HOST_ABI 2

extern "C" {

struct cuprum_host_dim3 {
  unsigned int x, y, z;
};

// What a thread waits for when it hands control back to the runner (slot.op).
enum {
  CUPRUM_OP_NONE = 0,
  CUPRUM_OP_SYNC = 1,       // __syncthreads and its _count/_and/_or forms (slot.kind)
  CUPRUM_OP_WARP = 2,       // a warp operation (slot.kind: CUPRUM_WARP_*)
  CUPRUM_OP_GRID_SYNC = 3,  // cooperative groups' grid.sync()
  CUPRUM_OP_EXIT = 4,       // the thread ends here (never resumed)
  CUPRUM_OP_FAULT = 5,      // the block fails (block.fault says why; never resumed)
  CUPRUM_OP_YIELD = 6       // let the other threads of the block run (__nanosleep)
};

enum { CUPRUM_SYNC_PLAIN = 0, CUPRUM_SYNC_COUNT = 1, CUPRUM_SYNC_AND = 2, CUPRUM_SYNC_OR = 3 };

enum {
  CUPRUM_WARP_SHFL = 0,       // value of lane arg (within width)
  CUPRUM_WARP_SHFL_UP = 1,    // lane - arg
  CUPRUM_WARP_SHFL_DOWN = 2,  // lane + arg
  CUPRUM_WARP_SHFL_XOR = 3,   // lane ^ arg
  CUPRUM_WARP_BALLOT = 4,     // mask of lanes whose value is non-zero
  CUPRUM_WARP_ANY = 5,
  CUPRUM_WARP_ALL = 6,
  CUPRUM_WARP_SYNC = 7,       // __syncwarp
  CUPRUM_WARP_MATCH_ANY = 8,  // lanes with the same 64-bit value
  CUPRUM_WARP_MATCH_ALL = 9,  // mask when all equal (result), else 0; pred in result bit 32
  CUPRUM_WARP_REDUCE_ADD = 10,
  CUPRUM_WARP_REDUCE_MIN = 11,   // unsigned
  CUPRUM_WARP_REDUCE_MAX = 12,   // unsigned
  CUPRUM_WARP_REDUCE_MIN_S = 13, // signed
  CUPRUM_WARP_REDUCE_MAX_S = 14, // signed
  CUPRUM_WARP_REDUCE_AND = 15,
  CUPRUM_WARP_REDUCE_OR = 16,
  CUPRUM_WARP_REDUCE_XOR = 17,
  CUPRUM_WARP_ACTIVEMASK = 18
};

// One per thread of the running block.
struct cuprum_host_slot {
  unsigned int op, kind;
  unsigned int mask, width;
  int arg;
  unsigned int line;
  const char* file;
  unsigned long long value;   // what the thread contributes
  unsigned long long result;  // what the operation returns to it (written by the runner)
};

enum {
  CUPRUM_FAULT_ASSERT = 1,
  CUPRUM_FAULT_TRAP = 2,
  CUPRUM_FAULT_DIVIDE = 3,   // an integer division by zero or overflow (expr: "/" or "%")
  CUPRUM_FAULT_MESSAGE = 4   // expr is the message
};

struct cuprum_host_fault {
  unsigned int kind, line;
  const char* file;
  const char* func;
  const char* expr;
};

// The running block, one per worker thread (reused from block to block).
struct cuprum_host_block {
  cuprum_host_dim3 thread_idx, block_idx, block_dim, grid_dim;
  unsigned int tid;       // linear index of the running thread
  unsigned int nthreads;
  int promoted;           // set by the runner: the direct loop stops after this thread
  unsigned int cooperative;
  unsigned char* dyn_smem;
  unsigned long long dyn_smem_bytes;
  cuprum_host_slot* slots;
  void (*yield)(cuprum_host_block*);  // hands control to the runner (slot.op says why)
  void* yielder;                      // the runner's
  cuprum_host_fault fault;
};

// Runs threads [first, last) of the block as plain calls, one after the other, until the
// runner sets `promoted`.
typedef void (*cuprum_host_run_fn)(cuprum_host_block*, void* const* args, unsigned int first,
                                   unsigned int last);

struct cuprum_host_kernel {
  const char* name;
  cuprum_host_run_fn run;
  unsigned int nparams;
  unsigned int pad;
  const unsigned int* sizes;
  const unsigned int* aligns;
};

struct cuprum_host_global {
  const char* name;
  void* addr;
  unsigned long long bytes;
};

struct cuprum_host_module {
  unsigned int abi, nkernels, nglobals, flags;
  const cuprum_host_kernel* kernels;
  const cuprum_host_global* globals;
};

// A texture object's handle is the address of one (texture.h reads it; the runner makes it).
struct cuprum_host_texture {
  const unsigned char* data;                  // texel (0, 0, 0)
  unsigned long long width, height, depth;    // texels; 1 for dimensions the resource lacks
  unsigned long long row_pitch, slice_pitch;  // bytes between rows / between slices
  unsigned int kind;        // cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float
  unsigned int channels;    // 1, 2 or 4
  unsigned int bits;        // bits per channel: 8, 16 or 32 (float: 16 = IEEE half, 32)
  unsigned int dims;        // 1, 2 or 3
  unsigned int linear;      // 1: a linear-memory resource (read with tex1Dfetch)
  unsigned int address[3];  // cudaTextureAddressMode per dim: 0 wrap, 1 clamp, 2 mirror, 3 border
  unsigned int filter;      // 0 point, 1 linear
  unsigned int read_mode;   // 0 element type, 1 normalized float
  unsigned int normalized;  // 1: normalized coordinates
  unsigned int srgb;        // 1: sRGB->linear conversion of 8-bit unsigned normalized reads
  float border[4];          // border colour
};

// A surface object's handle is the address of one.
struct cuprum_host_surface {
  unsigned char* data;
  unsigned long long width, height, depth;    // elements; 1 for missing dims
  unsigned long long row_pitch, slice_pitch;  // bytes
  unsigned int texel_bytes;                   // bytes of one element (channels x bits / 8)
  unsigned int dims;
};

}  // extern "C"
