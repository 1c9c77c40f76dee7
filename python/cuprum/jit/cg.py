"""Cooperative groups in JIT kernels (``cupyx.jit.cg``): ``this_thread_block()`` and
``this_grid()``, with their ``sync()``, ``thread_rank()``, ``size()``, ``num_threads()``
(and the grid's ``block_rank()``, ``num_blocks()``); ``cg.sync(group)``; the group's
asynchronous copies ``cg.memcpy_async``, ``cg.wait``, ``cg.wait_prior``.

A kernel that syncs its grid is launched cooperatively (every block resident at once);
cuprum's launch check refuses a grid too large for that.

Decision: on a GPU the copies are cooperative_groups' own (``memcpy_async.h``:
``cp.async`` on sm_80 and later, overlapping the copy with the kernel's work until the
wait); on the host device, which has no asynchronous copy, the group's threads copy the
bytes between them at the call and the wait is the group's barrier — the same results,
since a kernel may read the destination only after a wait.
"""

from __future__ import annotations

from cuprum.jit import _types as T
from cuprum.jit._builtins import BuiltinFunc
from cuprum.jit._types import Data

# method → (return type, whether the grid's sync makes the launch cooperative)
_METHODS = {
    "thread_block": {
        "sync": T.void,
        "thread_rank": T.uint32,
        "size": T.uint32,
        "num_threads": T.uint32,
        "group_index": T.dim3,
        "thread_index": T.dim3,
        "dim_threads": T.dim3,
        "group_dim": T.dim3,
    },
    "grid_group": {
        "sync": T.void,
        "is_valid": T.bool_,
        "thread_rank": T.uint64,
        "block_rank": T.uint64,
        "size": T.uint64,
        "num_threads": T.uint64,
        "num_blocks": T.uint64,
        "dim_blocks": T.dim3,
        "block_index": T.dim3,
        "group_dim": T.dim3,
    },
}


def method(tr, group: Data, name: str, args, kwargs):
    """``group.name()`` inside a kernel."""
    kind = group.ctype.kind
    table = _METHODS[kind]
    if name not in table:
        raise AttributeError(f"cg::{kind} has no method {name!r}")
    if args or kwargs:
        raise TypeError(f"{name}() takes no arguments")
    if kind == "grid_group" and name == "sync":
        tr.generated.cooperative = True
    return Data(f"{group.code}.{name}()", table[name])


class _ThisGroup(BuiltinFunc):
    def __init__(self, kind: str):
        self.kind = kind
        self.name = "cg.this_" + ("thread_block" if kind == "thread_block" else "grid")

    def emit(self, tr, args, kwargs):
        if args or kwargs:
            raise TypeError(f"{self.name}() takes no arguments")
        tr.generated.includes.add("cg")
        fn = "this_thread_block" if self.kind == "thread_block" else "this_grid"
        return Data(f"cg::{fn}()", T.Group(self.kind))


class _Sync(BuiltinFunc):
    name = "cg.sync"

    def emit(self, tr, args, kwargs):
        if len(args) != 1 or kwargs or not isinstance(getattr(args[0], "ctype", None), T.Group):
            raise TypeError("cg.sync() takes one group")
        return method(tr, args[0], "sync", [], {})


this_thread_block = _ThisGroup("thread_block")
this_thread_block.__doc__ = "The calling thread's block as a cooperative group."
this_grid = _ThisGroup("grid_group")
this_grid.__doc__ = "The whole grid as a cooperative group (its sync needs a cooperative launch)."
sync = _Sync()
sync.__doc__ = "``cg.sync(group)``: ``group.sync()``."


def _group(name, arg):
    if not isinstance(getattr(arg, "ctype", None), T.Group):
        raise TypeError(f"{name}(): the first argument must be a group (cg.this_thread_block())")
    return arg


def _const_int(name, what, v):
    obj = getattr(v, "obj", None)
    if not isinstance(obj, int) or isinstance(obj, bool) or obj < 0:
        raise TypeError(f"{name}(): {what} must be a non-negative constant int")
    return obj


def _address(tr, name, array, index):
    if not isinstance(array, Data) or not isinstance(array.ctype, (T.Array, T.Ptr)):
        raise TypeError(f"{name}(): dst and src must be arrays (or shared memory)")
    return f"&{tr.index(array, index).code}"


class _MemcpyAsync(BuiltinFunc):
    name = "cg.memcpy_async"

    def emit(self, tr, args, kwargs):
        extra = set(kwargs) - {"aligned_size"}
        if len(args) != 6 or extra:
            raise TypeError(
                "memcpy_async() takes (group, dst, dst_idx, src, src_idx, size, *, aligned_size)"
            )
        group, dst, dst_idx, src, src_idx, size = args
        group = _group(self.name, group)
        d = _address(tr, self.name, dst, dst_idx)
        s = _address(tr, self.name, src, src_idx)
        n = T.to_data(T.astype(size, T.uint64, "unsafe")).code
        tr.generated.includes.update(("cg", "cg_async"))
        aligned = kwargs.get("aligned_size")
        if aligned is None:
            return Data(f"_jit_memcpy_async({group.code}, {d}, {s}, {n})", T.void)
        a = _const_int(self.name, "aligned_size", aligned)
        if a == 0 or a & (a - 1):
            raise ValueError(f"memcpy_async(): aligned_size must be a power of two, got {a}")
        return Data(f"_jit_memcpy_async_aligned<{a}>({group.code}, {d}, {s}, {n})", T.void)


class _Wait(BuiltinFunc):
    name = "cg.wait"

    def emit(self, tr, args, kwargs):
        if len(args) != 1 or kwargs:
            raise TypeError("wait() takes one group")
        group = _group(self.name, args[0])
        tr.generated.includes.update(("cg", "cg_async"))
        return Data(f"_jit_cg_wait({group.code})", T.void)


class _WaitPrior(BuiltinFunc):
    name = "cg.wait_prior"

    def emit(self, tr, args, kwargs):
        if len(args) != 2 or kwargs:
            raise TypeError("wait_prior() takes a group and a constant count")
        group = _group(self.name, args[0])
        n = _const_int(self.name, "the count", args[1])
        tr.generated.includes.update(("cg", "cg_async"))
        return Data(f"_jit_cg_wait_prior<{n}>({group.code})", T.void)


memcpy_async = _MemcpyAsync()
memcpy_async.__doc__ = (
    "``cg.memcpy_async(group, dst, dst_idx, src, src_idx, size, *, aligned_size=None)``: "
    "the group's threads copy ``size`` bytes from ``&src[src_idx]`` to ``&dst[dst_idx]``, "
    "asynchronously (read ``dst`` after ``cg.wait``); ``aligned_size`` (a constant power "
    "of two) promises that alignment of both addresses and of ``size``."
)
wait = _Wait()
wait.__doc__ = "``cg.wait(group)``: waits for the group's copies, then syncs the group."
wait_prior = _WaitPrior()
wait_prior.__doc__ = (
    "``cg.wait_prior(group, n)``: waits until at most ``n`` (a constant) of the group's "
    "latest copies are still in flight, then syncs the group."
)

# What the generated code includes when a kernel copies asynchronously (see the module
# docs): cooperative_groups' own on a GPU, the group's threads copying on the host device.
ASYNC_HELPERS = """\
#ifdef __CUPRUM_HOST__
template <typename G>
__device__ inline void _jit_memcpy_async(G g, void* dst, const void* src, unsigned long long n) {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  for (unsigned long long i = g.thread_rank(); i < n; i += g.size()) d[i] = s[i];
}
template <unsigned long long A, typename G>
__device__ inline void _jit_memcpy_async_aligned(G g, void* dst, const void* src,
                                                 unsigned long long n) {
  _jit_memcpy_async(g, dst, src, n);
}
template <typename G>
__device__ inline void _jit_cg_wait(G g) { g.sync(); }
template <unsigned int N, typename G>
__device__ inline void _jit_cg_wait_prior(G g) { g.sync(); }
#else
#include <cuda/barrier>
#include <cooperative_groups/memcpy_async.h>
template <typename G>
__device__ inline void _jit_memcpy_async(G g, void* dst, const void* src, unsigned long long n) {
  cooperative_groups::memcpy_async(g, dst, src, static_cast<size_t>(n));
}
template <unsigned long long A, typename G>
__device__ inline void _jit_memcpy_async_aligned(G g, void* dst, const void* src,
                                                 unsigned long long n) {
  cooperative_groups::memcpy_async(g, dst, src, cuda::aligned_size_t<A>(static_cast<size_t>(n)));
}
template <typename G>
__device__ inline void _jit_cg_wait(G g) { cooperative_groups::wait(g); }
template <unsigned int N, typename G>
__device__ inline void _jit_cg_wait_prior(G g) { cooperative_groups::wait_prior<N>(g); }
#endif"""


def __getattr__(name: str):
    raise AttributeError(f"module 'cuprum.jit.cg' has no attribute {name!r}")
