"""``cuprum.memoize`` and ``cuprum.clear_memo``: CuPy's memoising decorator (a result per
argument tuple, per device when asked)."""

from __future__ import annotations

import functools
import weakref

_MEMOS: weakref.WeakSet = weakref.WeakSet()


class _Memo(dict):
    """One decorated function's results (a dict that can be weakly referenced and kept in
    a set by identity)."""

    __hash__ = object.__hash__


def memoize(for_each_device=False):
    """A decorator that keeps ``f``'s result per positional and keyword arguments (and per
    device with ``for_each_device=True``), as ``cupy.memoize``; ``clear_memo()`` empties
    every memo."""

    def decorator(f):
        memo = _Memo()
        _MEMOS.add(memo)

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            device = _current_device() if for_each_device else -1
            key = (device, args, frozenset(kwargs.items()))
            try:
                return memo[key]
            except KeyError:
                value = memo[key] = f(*args, **kwargs)
                return value

        wrapper._memo = memo
        return wrapper

    return decorator


def clear_memo():
    """Forgets every result kept by ``memoize``."""
    for memo in list(_MEMOS):
        memo.clear()


def _current_device():
    from cuprum import cuda

    return cuda.Device().id
