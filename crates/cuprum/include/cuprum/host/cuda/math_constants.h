// <math_constants.h> for the host device: CUDA's CUDART_* constants (cuprum's copy).
#pragma once
#include <cuprum/math_constants.cuh>
