// <cuda_fp16.h> for the host device: __half and __half2 with CUDA's conversions,
// arithmetic (through float), comparisons, math functions and atomics
// (cuprum/host/float16_type.h, shared with <cuda_bf16.h>).
#pragma once

#define CUPRUM_F16_T __half
#define CUPRUM_F16_T2 __half2
#define CUPRUM_F16_RAW __half_raw
#define CUPRUM_F16_N half
#define CUPRUM_F16_BITS f16
#define CUPRUM_F16_INF 0x7c00u
#include <cuprum/host/float16_type.h>

typedef __half half;
typedef __half2 half2;
