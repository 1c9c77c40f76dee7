"""Cooperative groups in JIT kernels (``cupyx.jit.cg``): ``this_thread_block()`` and
``this_grid()``, with their ``sync()``, ``thread_rank()``, ``size()``, ``num_threads()``
(and the grid's ``block_rank()``, ``num_blocks()``); ``cg.sync(group)``.

A kernel that syncs its grid is launched cooperatively (every block resident at once);
cuprum's launch check refuses a grid too large for that.
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


def __getattr__(name: str):
    if name in ("memcpy_async", "wait", "wait_prior"):
        raise AttributeError(
            f"module 'cuprum.jit.cg' has no attribute {name!r}: asynchronous copies "
            "(cooperative_groups/memcpy_async.h) are not supported"
        )
    raise AttributeError(f"module 'cuprum.jit.cg' has no attribute {name!r}")
