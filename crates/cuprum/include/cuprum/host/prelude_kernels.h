// cuprum/host/prelude_kernels.h — the prelude of the kernels cuprum generates (elementwise,
// reduction and scan kernels, fused kernels), which start by including cuprum's headers:
// precompiled with them, so that a compile of one such kernel does not parse them again
// (a generated kernel's host compile 65 -> 52 ms). Used only for sources whose first lines
// are exactly these includes (compile/host/mod.rs), where it changes nothing but the time.
#pragma once
#include <cuprum/host/prelude.h>
#include <cuprum/all.cuh>
#include <cuprum/math_constants.cuh>
