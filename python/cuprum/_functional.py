"""NumPy's functional routines on device arrays: ``piecewise`` (masks and ``where`` on
the device) and ``vectorize``."""

from __future__ import annotations

import cuprum
from cuprum._lazy import numpy


def _fill(y, cond, value):
    """``y`` with ``value`` (a scalar or 0-d array, cast to ``y``'s dtype as an
    assignment casts it) where ``cond`` holds."""
    if isinstance(value, cuprum.ndarray):
        v = value.astype(y.dtype)
    elif isinstance(value, (numpy.ndarray, numpy.generic)):
        v = cuprum.asarray(numpy.asarray(value).astype(y.dtype))
    else:
        v = cuprum.asarray(numpy.array(value, dtype=y.dtype))  # NumPy's overflow checks
    return cuprum.where(cond, v, y)


def piecewise(x, condlist, funclist, *args, **kw):
    """``x``'s shape filled piece by piece (NumPy's ``piecewise``): where ``condlist[k]``
    holds, ``funclist[k]`` — a value, or a function called with the elements of ``x``
    there (and ``args``, ``kw``); one extra entry of ``funclist`` is the value where no
    condition holds; elsewhere zero."""
    x = cuprum.asarray(x)
    n2 = len(funclist)
    if numpy.isscalar(condlist) or (
        not isinstance(condlist[0], (list, cuprum.ndarray, numpy.ndarray)) and x.ndim != 0
    ):
        condlist = [condlist]
    if isinstance(condlist, cuprum.ndarray):
        conds = condlist.astype(bool)
    else:
        conds = cuprum.stack(
            [
                cuprum.asarray(c).astype(bool)
                if not isinstance(c, list)
                else cuprum.asarray(c, dtype=bool)
                for c in condlist
            ]
        )
    n = len(conds)
    if n == n2 - 1:  # the "otherwise" condition
        conds = cuprum.concatenate([conds, ~cuprum.any(conds, axis=0, keepdims=True)], axis=0)
        n += 1
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = cuprum.zeros_like(x)
    for k in range(n):
        cond, func = conds[k], funclist[k]
        if not callable(func):
            y = _fill(y, cond, func)
            continue
        cond = cuprum.broadcast_to(cond, x.shape)
        vals = x[cond]
        if vals.size > 0:
            r = cuprum.asarray(func(vals, *args, **kw)).astype(y.dtype)
            y[cond] = r
    return y


def _as_tuple(r):
    return r if isinstance(r, tuple) else (r,)


class vectorize:
    """A function of scalars made a function of arrays, broadcast element by element
    (NumPy's ``vectorize``: ``otypes``, ``doc``, ``excluded``, ``cache``, ``signature``).

    The function is first called once with the whole broadcast device arrays (each
    argument as an array, so NumPy's promotion is kept): a function of arithmetic,
    comparisons and ufuncs runs on the device that way (float16 arrays in float64,
    rounded back once as NumPy's calls on Python floats are; the result dtypes then come
    from a call with empty arrays of the given dtypes). A function that needs one
    element at a time (``if``/``while`` on a value, ``max``, ``not``, ``float(x)``...)
    fails on arrays; it then runs as NumPy's ``vectorize`` over the host data and the
    result is uploaded — cuprum has no compiler of plain Python functions to device
    code with the result type NumPy's element-wise calls give. A function with side
    effects may see that first array call."""

    def __init__(self, pyfunc, otypes=None, doc=None, excluded=None, cache=False, signature=None):
        self.pyfunc = pyfunc
        self.otypes = otypes
        self.excluded = set() if excluded is None else set(excluded)
        self.cache = cache
        self.signature = signature
        self.__doc__ = pyfunc.__doc__ if doc is None else doc
        if isinstance(otypes, str):
            self._otypes = [numpy.dtype(c) for c in otypes]
        elif otypes is not None:
            self._otypes = [numpy.dtype(t) for t in otypes]
        else:
            self._otypes = None

    def __call__(self, *args, **kwargs):
        if self.signature is None and not self.excluded and not kwargs:
            arrays = [cuprum.asarray(a) for a in args]
            if not any(a.size == 0 for a in arrays) or self._otypes is not None:
                try:
                    return self._on_device(arrays)
                except Exception:  # noqa: BLE001, S110  (any failure: per element below)
                    pass  # one element at a time: NumPy's vectorize below
        return self._on_host(args, kwargs)

    def _on_device(self, arrays):
        shape = cuprum.broadcast_shapes(*(a.shape for a in arrays))
        arrays = [cuprum.broadcast_to(a, shape) if a.shape != shape else a for a in arrays]
        if any(a.size == 0 for a in arrays):
            outs = [cuprum.empty(shape, dtype=t) for t in self._otypes]
            return self._finish(outs, len(outs) > 1)
        # NumPy's vectorize computes on Python numbers (doubles) and rounds once, into the
        # dtype the element types give; float16 arrays rounded after every operation
        # would differ from it by several of their ulps, and float32 still rounds a few
        # in 10^4 elements differently, so they are computed in float64 (the Python
        # floats' type) and rounded back once where the result would have been float16.
        half = numpy.dtype(numpy.float16)
        narrow = any(a.dtype == half for a in arrays)
        if narrow:
            # the result dtypes from empty arrays of the given dtypes (nothing launched)
            probe = self.pyfunc(*(cuprum.empty((0,), dtype=a.dtype) for a in arrays))
            kinds = [cuprum.asarray(v).dtype for v in _as_tuple(probe)]
            arrays = [a.astype(numpy.float64) if a.dtype == half else a for a in arrays]
        r = self.pyfunc(*arrays)
        outs = [self._output(v, shape) for v in _as_tuple(r)]
        if narrow and len(kinds) == len(outs):
            outs = [o.astype(k, copy=False) for o, k in zip(outs, kinds)]
        return self._finish(outs, isinstance(r, tuple))

    @staticmethod
    def _output(v, shape):
        if not isinstance(v, (cuprum.ndarray, bool, int, float, complex, numpy.generic)):
            raise TypeError("not an array result")
        v = cuprum.asarray(v)
        if v.shape != shape:
            v = cuprum.broadcast_to(v, shape).copy()
        return v

    def _finish(self, outs, is_tuple):
        if self._otypes is not None:
            if len(self._otypes) != len(outs):
                raise ValueError("wrong number of outputs from pyfunc: expected "
                                 f"{len(self._otypes)}, got {len(outs)}")  # fmt: skip
            outs = [o.astype(t, copy=False) for o, t in zip(outs, self._otypes)]
        return tuple(outs) if is_tuple else outs[0]

    def _on_host(self, args, kwargs):
        host = [a.get() if isinstance(a, cuprum.ndarray) else a for a in args]
        kw = {k: (v.get() if isinstance(v, cuprum.ndarray) else v) for k, v in kwargs.items()}
        f = numpy.vectorize(
            self.pyfunc,
            otypes=self.otypes,
            doc=self.__doc__,
            excluded=self.excluded or None,
            cache=self.cache,
            signature=self.signature,
        )
        r = f(*host, **kw)
        if isinstance(r, tuple):
            return tuple(cuprum.asarray(v) for v in r)
        return cuprum.asarray(r)
