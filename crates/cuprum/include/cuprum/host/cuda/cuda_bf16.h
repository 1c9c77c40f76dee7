// <cuda_bf16.h> for the host device: __nv_bfloat16 and __nv_bfloat162 with CUDA's
// conversions, arithmetic (through float), comparisons, math functions and atomics
// (cuprum/host/float16_type.h, shared with <cuda_fp16.h>).
#pragma once

#define CUPRUM_F16_T __nv_bfloat16
#define CUPRUM_F16_T2 __nv_bfloat162
#define CUPRUM_F16_RAW __nv_bfloat16_raw
#define CUPRUM_F16_N bfloat16
#define CUPRUM_F16_BITS bf16
#define CUPRUM_F16_INF 0x7f80u
#include <cuprum/host/float16_type.h>

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
