"""NumPy's ufunc objects (CuPy's ``cupy.ufunc``): ``cuprum.add``, ``cuprum.sin`` … are
instances of :class:`ufunc`, callable as NumPy's (``out`` positional or a tuple, ``dtype``,
``casting``, ``where``) with NumPy's attributes (``nin``, ``nout``, ``nargs``, ``types``,
``identity``) and methods (``reduce``, ``accumulate``, ``reduceat``, ``outer``, ``at``).

Decisions:
- **One lean call.** A plain call (operands, perhaps ``out=`` one array) is one Python
  frame, ``ufunc.__call__``, around the engine's ``_cuprum.ufunc``; every other form goes
  through :meth:`ufunc._call`. Calls on values traced by ``cuprum.fuse`` reach the engine
  the same way, so fused functions see the same ufuncs.
- **Methods from the device's own operations.** ``add.reduce`` is ``sum``,
  ``multiply.reduce`` is ``prod``, ``maximum``/``minimum``/``logical_and``/``logical_or``
  are ``max``/``min``/``all``/``any`` (and ``add``/``multiply.accumulate`` are ``cumsum`` and
  ``cumprod``); other ufuncs fold on the device with the ufunc itself: associative ones by
  halving (about log2(n) launches), the others one step per element in NumPy's order.
- **Metadata from NumPy.** ``types`` and ``identity`` are NumPy's ufunc's (its loops in the
  dtypes cuprum has), looked up at first use so ``import cuprum`` does not import NumPy.
"""

from __future__ import annotations

import builtins
import operator

import cuprum
from cuprum import _cuprum
from cuprum._lazy import numpy
from cuprum._routines import _given, _NoValue

_engine_ufunc = _cuprum.ufunc
_ndarray = _cuprum.ndarray

# The dtype letters of cuprum's dtypes (NumPy's `types` entries are kept when all of their
# letters are among them).
_CHARS = frozenset("?bBhHiIlLqQefdFD")
# ufuncs NumPy lacks (as ufuncs): their loops.
_OWN_TYPES = {
    "i0": ["e->e", "f->f", "d->d"],
    "rsqrt": ["e->e", "f->f", "d->d", "F->F", "D->D"],  # (cupyx's)
}
# Reductions with a device kernel of their own.
_REDUCTIONS = {
    "add": "sum",
    "multiply": "prod",
    "maximum": "max",
    "minimum": "min",
    "logical_and": "all",
    "logical_or": "any",
}
# Associative and commutative ufuncs: reduce over several axes, fold by halving.
_REORDERABLE = frozenset(
    [
        "add",
        "multiply",
        "maximum",
        "minimum",
        "fmax",
        "fmin",
        "logical_and",
        "logical_or",
        "logical_xor",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
    ]
)
# The ufuncs whose `at` the engine does with atomic operations.
_ATOMIC_AT = frozenset(
    ["add", "subtract", "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor"]
)
_KWARGS = frozenset(("dtype", "casting", "where", "order", "subok", "signature"))


class ufunc:
    """A universal function (NumPy's ``numpy.ufunc``, CuPy's ``cupy.ufunc``): element-wise
    on device arrays with broadcasting, NumPy 2's type promotion and its keywords, and the
    methods ``reduce``, ``accumulate``, ``reduceat``, ``outer`` and ``at``."""

    def __init__(
        self, name, nin, nout=1, *, op=None, impl=None, numpy_name=None, doc=None, loops=False
    ):
        self.__name__ = name
        self.__qualname__ = name
        self.nin = nin
        self.nout = nout
        self.nargs = nin + nout
        self._op = op or name  # the engine's name of the operation
        self._impl = impl  # a Python implementation (composed ufuncs), else None
        self._impl_loops = loops  # whether `impl` takes `dtype` and `casting` itself
        self._numpy_name = numpy_name or name
        self.__doc__ = doc or f"NumPy's ``{name}``, element-wise on device arrays."

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"

    def __reduce__(self):
        return (_by_name, (self.__name__,))  # (pickled by name, as NumPy's)

    def __call__(self, *args, out=None, **kwargs):
        if kwargs or self._impl is not None or len(args) != self.nin:
            return self._call(args, out, kwargs)
        if out is None:
            return _engine_ufunc(self._op, *args)
        if out.__class__ is _ndarray:
            _engine_ufunc(self._op, *args, out=out)
            return out
        return self._call(args, out, kwargs)  # a tuple, a traced value, ...

    # ------------------------------------------------------------------ NumPy's metadata

    def _numpy_ufunc(self):
        f = getattr(numpy, self._numpy_name, None)
        return f if isinstance(f, numpy.ufunc) else None

    @property
    def types(self):
        """NumPy's loops of this ufunc that cuprum has, as NumPy writes them
        (``'ff->f'``: the operands' and results' dtype letters)."""
        f = self._numpy_ufunc()
        if f is None:
            return list(_OWN_TYPES.get(self._numpy_name, ()))
        out = []
        for t in f.types:
            if _CHARS.issuperset(t.replace("->", "")) and t not in out:
                out.append(t)
        return out

    @property
    def ntypes(self):
        """The number of loops (``len(types)``)."""
        return len(self.types)

    @property
    def identity(self):
        """The value that leaves an operand unchanged (``0`` for ``add``), or ``None``."""
        f = self._numpy_ufunc()
        return None if f is None else f.identity

    @property
    def signature(self):
        """``None``: these are element-wise ufuncs (not generalized ones)."""
        return None

    # ------------------------------------------------------------------ calls

    def _call(self, args, out, kwargs):
        name = self.__name__
        nin, nout = self.nin, self.nout
        for k in kwargs:
            if k not in _KWARGS:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        if len(args) != nin:
            if not nin <= len(args) <= nin + nout:
                given = len(args)
                raise TypeError(
                    f"{name}() takes from {nin} to {nin + nout} positional arguments but "
                    f"{given} {'was' if given == 1 else 'were'} given"
                )
            if out is not None:
                raise TypeError("cannot specify 'out' as both a positional and keyword argument")
            out = args[nin:] + (None,) * (nin + nout - len(args))
            args = args[:nin]
        outs = _outs(out, nout)
        dtype = kwargs.get("dtype")
        if kwargs.get("signature") is not None:
            if dtype is not None:
                raise TypeError("cannot specify both 'signature' and 'dtype'")
            dtype = self._signature_dtype(kwargs["signature"])
        casting = kwargs.get("casting", "same_kind")
        where = kwargs.get("where", True)
        order = kwargs.get("order", "K")
        if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
            raise ValueError(
                "casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe'"
            )
        if self._impl_loops and (dtype is not None or casting != "same_kind"):
            r = self._impl(*args, dtype=dtype, casting=casting)
            return _store(self, r, outs[0], casting, where)
        if dtype is not None:
            d = numpy.dtype(dtype)
            args = tuple(_loop_operand(self, k, a, d, casting) for k, a in enumerate(args))
        elif casting in ("no", "equiv"):
            _check_inputs(self, args, casting)
        direct = where is True and casting == "same_kind" and order in ("K", "A")
        if nout == 1:
            o = outs[0]
            if direct and dtype is None and self._impl is None:
                r = _engine_ufunc(self._op, *args, out=o)
                return o if isinstance(o, _ndarray) else r
            r = self._impl(*args) if self._impl is not None else _engine_ufunc(self._op, *args)
            if dtype is not None and r.dtype != d and o is None:
                r = r.astype(d)
            if order in ("C", "F") and o is None:
                r = cuprum.copy(r, order)
            return _store(self, r, o, casting, where)
        rs = self._impl(*args)
        if dtype is not None:
            rs = tuple(r if r.dtype == d else r.astype(d) for r in rs)
        return tuple(
            _store(self, r, o, casting, where, k) for k, (r, o) in enumerate(zip(rs, outs))
        )

    def _signature_dtype(self, sig):
        """The loop dtype of NumPy's ``signature=`` (``'dd->d'``, or a tuple of a dtype or
        ``None`` per operand and result): cuprum's loops have one dtype throughout."""
        name, nin, nout = self.__name__, self.nin, self.nout
        if isinstance(sig, str):
            if len(sig) == 1:
                raise TypeError("Use `dtype` or  fill the tuple with more than one 'None'.")
            left, _, right = sig.partition("->")
            if len(left) != nin or len(right) != nout:
                raise ValueError(
                    f"a type-string for {name}, {nin} typecode(s) before and {nout} after "
                    "the -> sign"
                )
            sig = tuple(left + right)
        sig = tuple(sig)
        if len(sig) != self.nargs:
            raise ValueError(
                f"signature tuple must have {self.nargs} entries (one per operand and result)"
            )
        dts = {numpy.dtype(t) for t in sig if t is not None}
        if len(dts) != 1:
            raise TypeError(
                f"No loop matching the specified signature and casting was found for ufunc {name}"
            )
        return dts.pop()

    # ------------------------------------------------------------------ methods

    def _binary(self, method):
        if self.nin != 2:
            what = "outer product" if method == "outer" else method
            raise ValueError(f"{what} only supported for binary functions")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def outer(self, A, B, /, **kwargs):
        """``ufunc(A[..., None, ..., None], B)``: every element of ``A`` with every element
        of ``B`` (the result's shape is ``A.shape + B.shape``)."""
        self._binary("outer")
        A = _array(A)
        B = _array(B)
        return self(A.reshape(A.shape + (1,) * B.ndim), B, **kwargs)

    def reduce(
        self,
        array,
        axis=0,
        dtype=None,
        out=None,
        keepdims=False,
        initial=_NoValue,
        where=True,
    ):
        """The ufunc applied along ``axis`` (an int, a tuple of ints, or ``None`` for all
        axes) until one value remains (``add.reduce`` is ``sum``); ``initial`` starts the
        reduction, ``where`` picks the elements reduced."""
        self._binary("reduce")
        name = self.__name__
        a = _array(array)
        out = _one_out(out)
        axes = _axes(axis, a.ndim)
        if len(axes) > 1 and name not in _REORDERABLE:
            raise ValueError(
                f"reduction operation '{name}' is not reorderable, so at most one axis may "
                "be specified"
            )
        ident = self.identity
        has_initial = _given(initial) and initial is not None
        if where is not True:
            fill = ident if ident is not None else (initial if has_initial else None)
            if fill is None:
                raise ValueError(
                    f"reduction operation '{name}' does not have an identity, so to use a "
                    "where mask one has to specify 'initial'"
                )
            if dtype is not None:
                a = a.astype(dtype, copy=False)
            if name not in _REORDERABLE and has_initial:
                # No value leaves such a ufunc's accumulator unchanged (subtract's 0 only on
                # the right): the elements out of `where` are skipped, not filled.
                r = self._masked_fold(a, axes, where, initial, keepdims)
                return _store(self, r, out, "same_kind", True)
            a = cuprum.where(where, a, fill).astype(a.dtype, copy=False)
        kernel = _REDUCTIONS.get(name)
        if has_initial and name not in _REORDERABLE:
            # NumPy's order: ((initial op x0) op x1) ...
            if dtype is not None:
                a = a.astype(dtype, copy=False)
            r = self._fold(a, axes, ident, initial, keepdims, start=True)
            return _store(self, r, out, "same_kind", True)
        if kernel is not None and not (has_initial and _empty_along(a, axes)):
            f = getattr(cuprum, kernel)
            ax = axes if len(axes) != 1 else axes[0]
            if kernel in ("sum", "prod"):
                r = f(a, axis=ax, dtype=dtype, keepdims=keepdims)
            else:
                if dtype is not None:
                    a = a.astype(dtype, copy=False)
                r = f(a, axis=ax, keepdims=keepdims)
        else:
            if dtype is not None:
                a = a.astype(dtype, copy=False)
            r = self._fold(a, axes, ident, initial if has_initial else None, keepdims)
            has_initial = has_initial and not _empty_along(a, axes)
        if has_initial:
            r = self(r, initial)
            if dtype is not None:
                r = r.astype(dtype, copy=False)
        return _store(self, r, out, "same_kind", True)

    def _loop_dtype(self, dt):
        """The dtype of this (binary) ufunc's result for two operands of dtype ``dt``."""
        e = cuprum.empty((0,), dt)
        return self(e, e).dtype

    def _fold(self, a, axes, ident, initial, keepdims, start=False):
        """The reduction of ``a`` over ``axes`` by this ufunc itself, on the device
        (starting from ``initial`` when ``start``)."""
        shape = a.shape
        kept = [n for k, n in enumerate(shape) if k not in axes]
        rdt = self._loop_dtype(a.dtype)
        if _empty_along(a, axes):
            fill = initial if initial is not None else ident
            if fill is None:
                raise ValueError(
                    f"zero-size array to reduction operation {self.__name__} which has no identity"
                )
            # (the fill value in the result's dtype: bitwise_and's -1 is all ones)
            fill = numpy.asarray(fill).astype(rdt)[()]
            r = cuprum.full(tuple(kept), fill, dtype=rdt)
        else:
            r = a
            for ax in sorted(axes, reverse=True):
                r = self._fold_axis(cuprum.moveaxis(r, ax, 0), initial if start else None)
            if r.dtype != rdt:
                r = _cast(r, rdt)  # (no step taken: one element, or no axes)
        if keepdims:
            r = r.reshape(tuple(1 if k in axes else n for k, n in enumerate(shape)))
        return r

    def _masked_fold(self, a, axes, where, initial, keepdims):
        """NumPy's ``((initial op x0) op x1) ...`` over the one axis in ``axes``, each step
        taken only where ``where`` (broadcast to ``a``) holds."""
        m = cuprum.broadcast_to(cuprum.asarray(where, dtype=bool), a.shape)
        kept = tuple(n for k, n in enumerate(a.shape) if k not in axes)
        acc = cuprum.full(kept, initial, dtype=self._loop_dtype(a.dtype))
        if axes:
            (ax,) = axes
            x, mx = cuprum.moveaxis(a, ax, 0), cuprum.moveaxis(m, ax, 0)
            for i in range(x.shape[0]):
                acc = cuprum.where(mx[i], self(acc, x[i]), acc).astype(acc.dtype, copy=False)
        else:
            acc = cuprum.where(m, self(acc, a), acc).astype(acc.dtype, copy=False)
        if keepdims:
            acc = acc.reshape(tuple(1 if k in axes else n for k, n in enumerate(a.shape)))
        return acc

    def _fold_axis(self, x, initial=None):
        """``x`` reduced over its first axis (non-empty), from ``initial`` when given."""
        if initial is not None:
            acc = self(initial, x[0])
            for i in range(1, x.shape[0]):
                acc = self(acc, x[i])
            return acc
        if self.__name__ in _REORDERABLE:
            while x.shape[0] > 1:
                n = x.shape[0]
                h = n // 2
                y = self(x[:h], x[h : 2 * h])
                x = cuprum.concatenate([y, _cast(x[2 * h :], y.dtype)]) if n % 2 else y
            return x[0]
        acc = x[0]
        for i in range(1, x.shape[0]):  # NumPy's order: ((x0 op x1) op x2) ...
            acc = self(acc, x[i])
        return acc

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """The running results of the ufunc along ``axis`` (``add.accumulate`` is
        ``cumsum``): ``r[i] = ufunc(r[i-1], array[i])``."""
        self._binary("accumulate")
        name = self.__name__
        a = _array(array)
        out = _one_out(out)
        if a.ndim == 0:
            raise TypeError("cannot accumulate on a scalar")
        if axis is None or isinstance(axis, tuple):
            axes = _axes(axis, a.ndim)
            if len(axes) != 1:
                raise ValueError("accumulate does not allow multiple axes")
            axis = axes[0]
        axis = _axis(axis, a.ndim)
        if name == "add":
            r = cuprum.cumsum(a, axis=axis, dtype=dtype)
        elif name == "multiply":
            r = cuprum.cumprod(a, axis=axis, dtype=dtype)
        else:
            if dtype is not None:
                a = a.astype(dtype, copy=False)
            x = cuprum.moveaxis(a, axis, 0)
            n = x.shape[0]
            rdt = self._loop_dtype(x.dtype)
            if n == 0:
                r = _cast(x, rdt, copy=True)
            elif name in _REORDERABLE:
                # Hillis and Steele's scan: about log2(n) steps over the whole axis
                r = _cast(x, rdt, copy=True)
                s = 1
                while s < n:
                    r[s:] = self(r[s:], r[: n - s])
                    s *= 2
            else:
                parts = [x[0]]
                for i in range(1, n):  # NumPy's order, one step per element
                    parts.append(self(parts[-1], x[i]))
                r = cuprum.stack([_cast(p, rdt) for p in parts])
            r = cuprum.ascontiguousarray(cuprum.moveaxis(r, 0, axis))
        return _store(self, r, out, "same_kind", True)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        """Reductions over the slices ``array[indices[i]:indices[i+1]]`` along ``axis``
        (the last to the end; where ``indices[i] >= indices[i+1]``, ``array[indices[i]]``)."""
        self._binary("reduceat")
        name = self.__name__
        a = _array(array)
        out = _one_out(out)
        if axis is None or isinstance(axis, tuple):
            axes = _axes(axis, a.ndim)
            if len(axes) != 1:
                raise ValueError("reduceat does not allow multiple axes")
            axis = axes[0]
        axis = _axis(axis, a.ndim)
        # the indices are metadata (one slice each): read on the host
        if isinstance(indices, cuprum.ndarray):
            idx = cuprum.asnumpy(indices)
        elif isinstance(indices, numpy.ndarray):
            idx = indices
        else:
            idx = numpy.asarray(indices, dtype=numpy.intp)  # (NumPy's cast of a sequence)
        if idx.ndim != 1:
            raise ValueError("reduceat: indices must be a one-dimensional sequence of integers")
        if idx.size and idx.dtype.kind not in "iu":
            raise TypeError(
                f"Cannot cast array data from {idx.dtype!r} to dtype('int64') according to "
                "the rule 'safe'"
            )
        idx = [int(i) for i in idx]
        n = a.shape[axis]
        for i in idx:
            if not 0 <= i < n:
                raise IndexError(f"index {i} out-of-bounds in {name}.reduceat [0, {n})")
        if dtype is not None:
            a = a.astype(dtype, copy=False)
        x = cuprum.moveaxis(a, axis, 0)
        parts = []
        for k, i in enumerate(idx):
            j = idx[k + 1] if k + 1 < len(idx) else n
            if i < j:
                parts.append(self.reduce(x[i:j], axis=0, dtype=dtype, keepdims=True))
            else:
                parts.append(x[i : i + 1])
        if not parts:
            f = self._numpy_ufunc()  # the result's dtype, NumPy's (on one host element)
            dt = f.reduce(numpy.zeros((1,), x.dtype)).dtype if f is not None else x.dtype
            r = x[:0].astype(dt)
        else:
            dt = numpy.result_type(*(p.dtype for p in parts))
            r = cuprum.concatenate([p.astype(dt, copy=False) for p in parts])
        r = cuprum.ascontiguousarray(cuprum.moveaxis(r, 0, axis))
        return _store(self, r, out, "same_kind", True)

    def at(self, a, indices, b=None, /):
        """``a[indices] = ufunc(a[indices], b)`` in place, unbuffered: a repeated index
        counts each time; any subscript (ints, slices, ``...``, ``None``, integer and
        boolean arrays); ``b`` is cast to ``a``'s dtype."""
        name = self.__name__
        if self.nin == 2 and b is None:
            raise ValueError("second operand needed for ufunc")
        if self.nin == 1 and b is not None:
            raise ValueError("second operand provided when ufunc is unary")
        if not isinstance(a, cuprum.ndarray):
            raise TypeError(f"{name}.at(): the target must be a cuprum.ndarray, not {type(a)}")
        if isinstance(indices, (int, numpy.integer)) and not isinstance(indices, bool):
            i = operator.index(indices)
            n = a.shape[0] if a.ndim else 0
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis 0 with size {n}")
            indices = slice(i % n, i % n + 1)
            if b is not None and a.ndim > 1:
                b = _array(b)[None]  # (b against a[i]: one more leading axis)
        if _basic_index(indices):
            view = a[indices]  # no element twice: the in-place ufunc is exact
            if self.nin == 1:
                self(view, out=view)
            else:
                self(view, b, out=view)
            return
        if name == "add" and _lone_index_array(indices):
            src = b.dtype if hasattr(b, "dtype") else numpy.asarray(b).dtype
            if not numpy.can_cast(src, a.dtype, "same_kind"):
                b = cuprum.asarray(b).astype(a.dtype)  # CuPy casts the values
            _cuprum.scatter_add(a, indices, b)  # the tuned axis-0 kernel
            return
        if self._op in _ATOMIC_AT:
            _cuprum.ufunc_at(self._op, a, indices, b)
        else:
            self._at_in_rounds(a, indices, b)

    def _at_in_rounds(self, a, indices, b):
        """``at`` for any ufunc, on the device: rounds over the selected elements, each
        applying the ufunc once to every element still selected, in the order of the
        selection (as many rounds as one element is selected most)."""
        pos = cuprum.arange(a.size).reshape(a.shape)[indices]  # (NumPy's IndexError)
        if b is not None:
            v = cuprum.broadcast_to(_array(b), pos.shape).astype(a.dtype).ravel()
        pos = pos.ravel()
        contiguous = a.flags.c_contiguous
        flat = a.ravel() if contiguous else a.flatten()  # (a view when contiguous)
        while pos.size:
            u, first = cuprum.unique(pos, return_index=True)
            flat[u] = self(flat[u]) if b is None else self(flat[u], v[first])
            rest = cuprum.ones(pos.size, dtype=bool)
            rest[first] = False
            pos = pos[rest]
            if b is not None:
                v = v[rest]
        if not contiguous:
            a[...] = flat.reshape(a.shape)


# ---------------------------------------------------------------------------- helpers


def _by_name(name):
    """The package's ufunc ``name`` (what a pickled ufunc becomes)."""
    return getattr(cuprum, name)


def _array(x):
    if isinstance(x, (cuprum.ndarray, _cuprum._FusionVar)):
        return x
    return cuprum.asarray(x)


def _outs(out, nout):
    """``out`` as a tuple of ``nout`` entries (arrays or ``None``), NumPy's checks."""
    if out is None:
        return (None,) * nout
    if type(out) is tuple:
        if len(out) != nout:
            raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
        return out
    if nout != 1:
        raise TypeError("'out' must be a tuple of arrays")
    return (out,)


def _one_out(out):
    if type(out) is tuple:
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
        return out[0]
    return out


def _axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise cuprum.AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _axes(axis, ndim):
    """``axis`` (``None``, an int or a tuple) as a tuple of distinct axes in ``[0, ndim)``."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        axes = tuple(_axis(k, ndim) for k in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        return axes
    if ndim == 0 and axis in (0, -1):
        return ()  # NumPy reduces a 0-d array along axis 0 to itself
    return (_axis(axis, ndim),)


def _empty_along(a, axes):
    for k in axes:
        if a.shape[k] == 0:
            return True
    return False


def _check_inputs(uf, args, casting):
    """NumPy's input check for ``casting`` ``'no'``/``'equiv'``: every array operand
    already has the loop's dtype (their promoted type)."""
    dts = [a.dtype for a in args if hasattr(a, "dtype")]
    if len(dts) < 2:
        return
    loop = numpy.result_type(*dts)
    for k, a in enumerate(args):
        src = getattr(a, "dtype", None)
        if src is not None and not numpy.can_cast(src, loop, casting=casting):
            raise _casting_error(uf, True, k, src, loop, casting)


def _casting_error(uf, is_input, k, src, d, casting):
    """NumPy's error (``_UFuncInputCastingError`` or ``_UFuncOutputCastingError``, both
    ``TypeError``s) for operand or result ``k`` of ufunc ``uf`` under ``casting``."""
    which = "Input" if is_input else "Output"
    try:
        cls = getattr(numpy._core._exceptions, f"_UFunc{which}CastingError")
        e = cls(uf, casting, src, d, k)
        str(e)  # (its message is made here: NumPy's own)
        return e
    except (AttributeError, TypeError):  # (another NumPy: its message, in a TypeError)
        at = f"{which.lower()} {k} " if is_input or uf.nout != 1 else f"{which.lower()} "
        return TypeError(
            f"Cannot cast ufunc '{uf.__name__}' {at}from {src!r} to {d!r} with casting rule "
            f"{casting!r}"
        )


def _loop_operand(uf, k, a, d, casting):
    """Operand ``k`` of ufunc ``uf`` for a loop in dtype ``d``: an array cast to ``d``
    (NumPy's ``TypeError`` where ``casting`` does not allow it); a Python scalar as a NumPy
    scalar of ``d`` (NumPy's ``OverflowError`` where it does not fit)."""
    if isinstance(a, (bool, int, float, complex)):
        # a Python scalar is weak: any dtype of its kind or above takes it
        kind = (
            "b"
            if isinstance(a, bool)
            else "i"
            if isinstance(a, int)
            else "f"
            if isinstance(a, float)
            else "c"
        )
        ok = {"b": "biufc", "i": "iufc", "f": "fc", "c": "c"}[kind]
        if d.kind not in ok:
            src = numpy.asarray(a).dtype
            if not numpy.can_cast(src, d, casting=casting):
                raise _casting_error(uf, True, k, src, d, casting)
        if d.kind in "iu" and not isinstance(a, bool):
            a = int(a) if kind == "i" else a
            info = numpy.iinfo(d)
            if kind == "i" and not info.min <= a <= info.max:
                raise OverflowError(f"Python integer {a} out of bounds for {d}")
        with numpy.errstate(all="ignore"):
            return numpy.asarray(a).astype(d)[()]
    src = getattr(a, "dtype", None)
    if src is None:
        a = cuprum.asarray(a)
        src = a.dtype
    if src == d:
        return a
    if not numpy.can_cast(src, d, casting=casting):
        raise _casting_error(uf, True, k, src, d, casting)
    return a.astype(d)


def _store(uf, r, out, casting, where, k=0):
    """``r`` written into ``out`` (under ``casting``, where ``where`` holds); ``r`` itself
    when there is no ``out`` and no mask."""
    if out is None:
        if where is True:
            return r
        out = cuprum.empty(r.shape, r.dtype)
    elif not isinstance(out, (cuprum.ndarray, _cuprum._FusionVar)):
        raise TypeError("Output arguments type must be cuprum.ndarray")
    if not numpy.can_cast(r.dtype, out.dtype, casting=casting):
        raise _casting_error(uf, False, uf.nin + k, r.dtype, out.dtype, casting)
    if r.dtype != out.dtype:
        r = _cast(r, out.dtype)  # (NumPy's ComplexWarning where complex becomes real)
    if where is True:
        out[...] = r
    else:
        out[...] = cuprum.where(where, r, out)
    return out


def _cast(x, dt, copy=False):
    """``x`` as dtype ``dt``; to bool as NumPy casts (``x != 0``: complex values with no
    ``ComplexWarning``)."""
    if dt.kind == "b" and x.dtype.kind != "b":
        return x != 0
    return x.astype(dt, copy=copy)


def _basic_index(indices):
    """Whether ``indices`` selects by ints, slices, ``...`` and ``None`` only (each element
    at most once)."""
    items = indices if isinstance(indices, tuple) else (indices,)
    for i in items:
        if not (i is None or i is Ellipsis or isinstance(i, (slice, int, numpy.integer))):
            return False
    return not isinstance(indices, bool)


def _lone_index_array(indices):
    """Whether ``indices`` is one integer index array (not a tuple, a mask or a scalar)."""
    if isinstance(indices, cuprum.ndarray):
        return indices.dtype.kind in "iu" and indices.ndim > 0
    return False


# `matmul`'s name and number of results, for its errors.
_MATMUL = ufunc("matmul", 2)


def matmul_axes(x1, x2, axes, matmul):
    """``matmul`` of ``x1`` and ``x2`` whose matrices lie on the axes ``axes[0]`` and
    ``axes[1]``, the result's matrices put on ``axes[2]`` (NumPy's ``axes=`` of
    ``matmul``, its errors)."""
    axes = list(axes)
    if len(axes) != 3:
        raise ValueError(
            "axes should be a list with an entry for all 3 inputs and outputs; entries for "
            "outputs can only be omitted if none of them has core axes."
        )
    x1, x2 = _array(x1), _array(x2)

    def pair(k, ax, ndim):
        if not isinstance(ax, (tuple, list)):
            raise cuprum.AxisError(
                f"matmul: operand {k} has 2 core dimensions, but the axes item is a single integer."
            )
        if len(ax) != 2:
            raise cuprum.AxisError(
                f"matmul: operand {k} has 2 core dimensions, but {len(ax)} dimensions are "
                "specified by axes tuple."
            )
        got = [_axis(a, ndim) for a in ax]
        if got[0] == got[1]:
            raise ValueError(f"axes item {k} has value {got[0]} repeated")
        return got

    ins = [
        cuprum.moveaxis(x, pair(k, ax, x.ndim), [-2, -1])
        for k, (x, ax) in enumerate(zip((x1, x2), axes[:2]))
    ]
    at = pair(2, axes[2], builtins.max(x1.ndim, x2.ndim))  # (checked before the product)
    return cuprum.moveaxis(matmul(ins[0], ins[1]), [-2, -1], at)
