// cuprum/all.cuh — everything generated kernels include.
#pragma once
#include <cuprum/half.cuh>
#include <cuprum/complex.cuh>
#include <cuprum/indexer.cuh>
#include <cuprum/cast.cuh>
#include <cuprum/reduce.cuh>
#include <cuprum/ufunc.cuh>
