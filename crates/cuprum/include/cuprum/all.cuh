// cuprum/all.cuh — everything generated kernels include. A compile may leave parts out
// with macros (compile/program.rs adds them for sources that cannot use those parts, and
// compiles again without them should the lean compile fail): CUPRUM_OMIT_HALF (float16 and
// bfloat16), CUPRUM_OMIT_COMPLEX (complex numbers; the other headers then leave out their
// complex overloads), CUPRUM_OMIT_OPS (cast.cuh, reduce.cuh and ufunc.cuh).
#pragma once
#ifndef CUPRUM_OMIT_HALF
#include <cuprum/half.cuh>
#endif
#ifndef CUPRUM_OMIT_COMPLEX
#include <cuprum/complex.cuh>
#endif
#include <cuprum/indexer.cuh>
#ifndef CUPRUM_OMIT_OPS
#include <cuprum/cast.cuh>
#include <cuprum/reduce.cuh>
#include <cuprum/ufunc.cuh>
#endif
