"""The kernel object of ``cuprum.jit.rawkernel``: translation per signature, caching,
argument packing and the launch through ``cuprum.RawKernel``.

Design decisions:

- **The signature** of a call is one small hashable value per argument: the ``Scalar`` of
  a Python scalar (int → int32 when it fits, else int64; float → float32; complex →
  complex64; bool), the NumPy scalar's type, or ``('array', dtype char, ndim,
  C-contiguous, 32-bit indexing)`` for an array. An array's entry is remembered per array
  object (arrays are immutable views; a weak reference guards against a reused ``id``), so
  a repeated launch reads no array attribute.
- **The compiled kernel** is a ``cuprum.RawKernel`` per signature: cuprum's kernel cache,
  its compile errors (``CompileException`` with the generated source) and its launch
  checks apply unchanged.
- **Arguments.** Python ints go as they are (a RawKernel gives a Python int the width of
  its parameter), floats and complex numbers become ``numpy.float32``/``complex64`` (the
  JIT's types), NumPy scalars and C-contiguous arrays go as they are. A strided array goes
  as its data address (the kernel indexes its strides). The extents and strides the kernel
  uses follow the user's arguments. A signature needing none of that conversion launches
  with the caller's tuple untouched. A strided array's address bypasses the per-stream
  record that keeps a freed buffer from being reused while the launch may still read it:
  keep such an array alive until the kernel has run (as with any raw address).
- **No FutureWarning** at decoration (CuPy warns that its JIT is experimental); the
  language and its typing are CuPy's.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy

from cuprum.jit import _translate
from cuprum.jit import _types as T

_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1
_INT_KEY = {True: T.int32, False: T.int64}
_FLOAT_KEY = T.float32
_COMPLEX_KEY = T.Scalar(numpy.complex64)
_BOOL_KEY = T.bool_

# id(array) -> (weak reference, signature entry)
_ARRAY_KEYS: dict = {}
_LAYOUTS: dict = {}


def _ndarray():
    import cuprum

    return cuprum.ndarray


class ArrayKey:
    """An array's entry in a signature: dtype, ndim, C-contiguity, 32-bit indexing. One
    object per layout (interned), so a signature hashes and compares by identity."""

    __slots__ = ("char", "contiguous", "idx32", "ndim")

    def __init__(self, char, ndim, contiguous, idx32):
        self.char, self.ndim, self.contiguous, self.idx32 = char, ndim, contiguous, idx32

    def __repr__(self):
        return _show(self)


def _array_key(x):
    return _remember(x)[1]


def _remember(x):
    """``x``'s entry: (weak reference, signature entry, extents + element strides)."""
    contiguous = bool(x.is_c_contiguous)
    shape, strides, item = tuple(x.shape), tuple(x.strides), x.itemsize
    # 32-bit indexing when every offset the kernel can form fits: the bytes of a contiguous
    # array, the span of a strided view (a sparse view of a large buffer spans far more)
    span = x.nbytes if contiguous else item + sum(abs(s) * (n - 1) for n, s in zip(shape, strides))
    layout = (x.dtype.char, x.ndim, contiguous, span < (1 << 31))
    key = _LAYOUTS.get(layout)
    if key is None:
        key = _LAYOUTS[layout] = ArrayKey(*layout)
    dims = shape + tuple(s // item for s in strides)
    i = id(x)

    def forget(_ref, i=i):
        e = _ARRAY_KEYS.get(i)
        if e is not None and e[0] is _ref:
            del _ARRAY_KEYS[i]

    try:
        entry = (weakref.ref(x, forget), key, dims)
    except TypeError:
        return (None, key, dims)
    _ARRAY_KEYS[i] = entry
    return entry


def _dims(x, _get=_ARRAY_KEYS.get):
    e = _get(id(x))
    if e is not None and e[0]() is x:
        return e[2]
    return _remember(x)[2]


def _signature(args, _get=_ARRAY_KEYS.get, _int=int, _int32=T.int32):
    """The signature of ``args`` (one pass; an array seen before costs one dict lookup, an
    int32 Python int a comparison)."""
    out = []
    for x in args:
        e = _get(id(x))
        if e is not None and e[0]() is x:
            out.append(e[1])
        elif type(x) is _int and _INT_MIN <= x <= _INT_MAX:
            out.append(_int32)
        else:
            out.append(_new_key(x))
    return tuple(out)


def _new_key(x):
    """The signature entry of a scalar, or of an array not seen before."""
    t = type(x)
    if t is int:
        return T.int32 if _INT_MIN <= x <= _INT_MAX else T.int64
    if t is float:
        return _FLOAT_KEY
    if t is bool:
        return _BOOL_KEY
    if t is complex:
        return _COMPLEX_KEY
    if isinstance(x, numpy.generic):
        return t
    if isinstance(x, _ndarray()):
        return _array_key(x)
    raise TypeError(f"{type(x)} is not supported for RawKernel")


def _arg_type(key):
    """The translator's type of a signature entry."""
    if isinstance(key, ArrayKey):
        return T.ArrayInfo("", numpy.dtype(key.char), key.ndim, key.contiguous, key.idx32)
    if isinstance(key, T.Scalar):
        return key
    return T.Scalar(numpy.dtype(key))


def _plan(keys, extras):
    """The per-call argument conversion of a signature, or None when there is none."""
    convs = []
    for key in keys:
        if key is _FLOAT_KEY or key is numpy.float16:
            convs.append(numpy.float32)  # float16 values live in float (CuPy's choice)
        elif key is _COMPLEX_KEY:
            convs.append(numpy.complex64)
        elif isinstance(key, ArrayKey) and not key.contiguous:
            convs.append(_address)
        else:
            convs.append(None)
    if not extras and all(c is None for c in convs):
        return None
    pairs = [(i, c) for i, c in enumerate(convs) if c is not None]
    # an extra is an index into the array's cached (extents + element strides)
    picks = [(i, k if kind == "n" else keys[i].ndim + k) for i, kind, k in extras]

    if not pairs and len(picks) == 1:
        ((i0, j0),) = picks

        def plan(args, _get=_ARRAY_KEYS.get):
            x = args[i0]
            e = _get(id(x))  # _dims inlined: the common launch (one extent)
            if e is not None and e[0]() is x:
                return (*args, e[2][j0])
            return (*args, _remember(x)[2][j0])

        return plan

    if not pairs:

        def plan(args):
            return (*args, *[_dims(args[i])[j] for i, j in picks])

        return plan

    def plan(args):
        out = list(args)
        for i, c in pairs:
            out[i] = c(args[i])
        return tuple(out) + tuple([_dims(args[i])[j] for i, j in picks])

    return plan


def _launcher(raw, keys, extras, mode):
    """The native launch of one signature (``_JitLaunch``: the same checks, conversions
    and extents as ``_plan`` and ``RawKernel``, in one call), or None where a key has no
    native spelling."""
    if mode != "cuda":
        return None
    from cuprum._cuprum import _JitLaunch

    specs = []
    for key in keys:
        if isinstance(key, ArrayKey):
            specs.append(("array", numpy.dtype(key.char), key.ndim, key.contiguous, key.idx32))
        elif key is T.int32 or key is T.int64:
            specs.append(("int32" if key is T.int32 else "int64",))
        elif key is _FLOAT_KEY:
            specs.append(("float",))
        elif key is _BOOL_KEY:
            specs.append(("bool",))
        elif key is _COMPLEX_KEY:
            specs.append(("complex",))
        elif isinstance(key, type) and issubclass(key, numpy.generic):
            specs.append(("numpy", key))
        else:
            return None
    picks = [(i, k if kind == "n" else keys[i].ndim + k) for i, kind, k in extras]
    return _JitLaunch(raw, tuple(specs), picks)


def _address(x):
    return numpy.uint64(x.data_ptr)


class _JitRawKernel:
    """A function translated to a CUDA kernel (made by :func:`rawkernel`).

    Launch it as CuPy's: ``k(grid, block, args, shared_mem=0, stream=None)`` or
    ``k[grid, block](*args)``. The first launch for each signature of argument types
    translates and compiles it; later launches reuse that kernel.
    """

    def __init__(self, func, mode, device):
        if mode not in ("cuda", "numpy"):
            raise ValueError(f"mode must be 'cuda' or 'numpy', not {mode!r}")
        self._func = func
        self._mode = mode
        self._device = device
        self._parsed = None
        self._cache: dict = {}
        self._cached_codes: dict = {}
        self._fast = None
        self._signature = _signature if mode == "cuda" else self._keys

    def _source(self):
        if self._parsed is None:
            self._parsed = _translate.Source(self._func)
        return self._parsed

    def __call__(
        self,
        grid: tuple[int, ...],
        block: tuple[int, ...],
        args: tuple[Any, ...],
        shared_mem: int = 0,
        stream: Any = None,
    ) -> None:
        """Launches the kernel on ``grid`` blocks of ``block`` threads with ``args``
        (``bool``, ``int``, ``float``, ``complex``, NumPy scalars, ``cuprum.ndarray``)."""
        fast = self._fast
        if fast is not None and fast(grid, block, args, shared_mem, stream):
            return  # the last signature again: checked, converted and launched natively
        found = self._cache.get(self._signature(args))
        raw, plan, self._fast = found if found is not None else self._compile(args)
        if plan is not None:
            args = plan(args)
        elif type(args) is not tuple:
            args = tuple(args)
        if shared_mem or stream is not None:
            raw(grid, block, args, shared_mem=shared_mem, stream=stream)
        else:
            raw(grid, block, args)

    def _keys(self, args):
        keys = _signature(args)
        if self._mode == "numpy":
            # Python scalars are int64, float64, complex128 in numpy mode
            wide = {T.int32: T.int64, _FLOAT_KEY: T.float64, _COMPLEX_KEY: T.Scalar("D")}
            keys = tuple(
                wide.get(k, k) if type(a) in (int, float, complex) else k
                for k, a in zip(keys, args)
            )
        return keys

    def _translate(self, keys):
        if self._device:
            raise TypeError(
                f"{self._func.__name__} is a device function (rawkernel(device=True)): "
                "call it from a kernel"
            )
        found = self._cached_codes.get(keys)
        if found is None:
            source = self._source()
            name = _translate.c_name(source.name)
            code, extras, coop = _translate.transpile(
                source, [_arg_type(k) for k in keys], name, self._mode
            )
            found = (code, name, extras, coop)
            self._cached_codes[keys] = found
        return found

    def _compile(self, args):
        import cuprum

        keys = self._keys(args)
        code, name, extras, coop = self._translate(keys)
        raw = cuprum.RawKernel(code, name, enable_cooperative_groups=coop)
        entry = (raw, _plan(keys, extras), _launcher(raw, keys, extras, self._mode))
        self._cache[keys] = entry
        return entry

    def __getitem__(self, grid_and_block: tuple[Any, Any]) -> Callable[..., None]:
        """``k[grid, block](*args)`` (numba's launch syntax; an int is ``(n, 1, 1)``)."""
        grid, block = grid_and_block
        if not isinstance(grid, tuple):
            grid = (grid, 1, 1)
        if not isinstance(block, tuple):
            block = (block, 1, 1)
        return lambda *args, **kwargs: self(grid, block, args, **kwargs)

    def explain(self, *args: Any) -> str:
        """The generated CUDA C++ for a launch with ``args`` (translated, not compiled or
        launched), after a header naming the argument types and the hidden parameters."""
        keys = self._keys(args)
        code, name, extras, coop = self._translate(keys)
        lines = [f"// kernel {name}: arguments {', '.join(_show(k) for k in keys)}"]
        for i, kind, k in extras:
            what = "extent" if kind == "n" else "element stride"
            lines.append(f"// hidden parameter: {what} {k} of argument {i}")
        if coop:
            lines.append("// launched cooperatively (grid sync)")
        return "\n".join(lines) + "\n" + code

    @property
    def cached_codes(self) -> dict[tuple[Any, ...], str]:
        """The generated code per signature of argument types (a dict)."""
        if not self._cached_codes:
            warnings.warn(
                "No codes are cached because compilation is deferred until the first function call.",
                stacklevel=2,
            )
        return {k: v[0] for k, v in self._cached_codes.items()}

    @property
    def cached_code(self) -> str:
        """The generated code of the (first) signature compiled."""
        codes = self.cached_codes
        if len(codes) > 1:
            warnings.warn(
                "The input types of the kernel could not be inferred. "
                "Please use `.cached_codes` instead.",
                stacklevel=2,
            )
        return next(iter(codes.values()))

    def __repr__(self):
        kind = "device function" if self._device else "kernel"
        return f"<cuprum.jit {kind} {self._func.__name__}>"


def _show(key):
    if isinstance(key, ArrayKey):
        layout = "C-contiguous" if key.contiguous else "strided"
        bits = "32-bit" if key.idx32 else "64-bit"
        return f"{numpy.dtype(key.char).name}[{key.ndim}-d, {layout}, {bits} index]"
    if isinstance(key, T.Scalar):
        return repr(key)
    return numpy.dtype(key).name


def rawkernel(
    *, mode: str = "cuda", device: bool = False
) -> Callable[[Callable[..., Any]], _JitRawKernel]:
    """A decorator that makes a Python function a CUDA kernel (``cupyx.jit.rawkernel``).

    The function is written in CuPy's JIT language (see :mod:`cuprum.jit`); each signature
    of argument types is translated to CUDA C++ at its first launch and compiled as a
    ``cuprum.RawKernel``. ``device=True`` makes a ``__device__`` function, callable from
    kernels only.

    >>> @jit.rawkernel()
    ... def add(x, y, out):
    ...     i = jit.grid(1)
    ...     if i < out.size:
    ...         out[i] = x[i] + y[i]
    >>> add[4, 128](x, y, out)
    """

    def wrapper(func):
        return functools.update_wrapper(_JitRawKernel(func, mode, device), func)

    return wrapper
