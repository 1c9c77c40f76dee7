"""The JIT's built-in names (``threadIdx``, ``grid``, ``syncthreads``, ``shared_memory``,
atomics, warp shuffles, ``range``) and the ufuncs as the translator writes them.

Design decisions:

- **Markers.** Each built-in is an object whose ``emit`` writes its C++ while translating;
  called from Python it raises ``RuntimeError`` (it means something only inside a kernel).
  The ufunc names (``cuprum.sqrt``, ``numpy.sqrt``, ``math.sqrt`` on non-constants, the
  operators) share one table of loops (``_types.LOOPS``) and one writer, :func:`call_ufunc`.
- **Helpers** (Python's floor division and modulo, integer power, NaN-propagating
  ``max``/``min``, the lane id) are small ``__forceinline__`` templates written into the
  program only when its code still calls them. ``x % y == 0`` (the common divisibility
  test) becomes ``_jit_divides(x, y)`` = ``y == 0 || x % y == 0``: the same truth value
  as Python's modulo (and CuPy's 0 for a zero divisor) without the sign fix-up;
  ``x ** 2`` is ``x * x``.
- **Value ranges** (``_types.op_range``, the translator's variable ranges) decide how much
  of ``//`` and ``%`` needs code: C's ``/`` and ``%`` where the divisor is non-zero and the
  operands have one sign (``num // i`` with ``num >= 0`` and ``i >= 3``: truncation is
  flooring), the helper without its zero check where only the divisor is known non-zero,
  the full helper otherwise; ``x % y == 0`` is ``x % y == 0`` where ``y`` is non-zero.
- **Atomics** take CuPy's dtype table per operation (``atomic_add`` has no int64: CUDA has
  no such instruction; its float16 form is a CAS loop on the 32-bit word holding the
  element, since cuprum's ``float16`` is not CUDA's ``__half``); warp shuffles CuPy's (int32/uint32/int64/uint64/float32/float64/
  float16); the mask must be a constant, as in CuPy.
"""

from __future__ import annotations

import numpy

from cuprum.jit import _types as T
from cuprum.jit._types import Const, Data, TupleValue

# ------------------------------------------------------------------------------ helpers

HELPERS = {
    "floor_divide": """template <typename T>
__device__ __forceinline__ T _jit_floor_divide(T x, T y) {
  if (y == 0) return 0;
  T q = x / y;
  return q - (T)((x % y != 0) & ((x ^ y) < 0));
}""",
    "remainder": """template <typename T>
__device__ __forceinline__ T _jit_remainder(T x, T y) {
  if (y == 0) return 0;
  T r = x % y;
  return (r != 0 && ((r ^ y) < 0)) ? (T)(r + y) : r;
}""",
    "floor_divide_nz": """template <typename T>
__device__ __forceinline__ T _jit_floor_divide_nz(T x, T y) {
  T q = x / y;
  return q - (T)((x % y != 0) & ((x ^ y) < 0));
}""",
    "remainder_nz": """template <typename T>
__device__ __forceinline__ T _jit_remainder_nz(T x, T y) {
  T r = x % y;
  return (r != 0 && ((r ^ y) < 0)) ? (T)(r + y) : r;
}""",
    "divides": """template <typename T>
__device__ __forceinline__ bool _jit_divides(T x, T y) { return y == 0 || x % y == 0; }""",
    "fremainder": """template <typename T>
__device__ __forceinline__ T _jit_fremainder(T x, T y) { return x - floor(x / y) * y; }""",
    "ipow": """template <typename T>
__device__ __forceinline__ T _jit_ipow(T x, T y) {
  if (y < 0) return x == 1 ? (T)1 : (x == (T)-1 ? (T)((y & 1) ? -1 : 1) : (T)0);
  T r = 1;
  while (y) { if (y & 1) r *= x; x *= x; y >>= 1; }
  return r;
}""",
    "ifmod": """template <typename T>
__device__ __forceinline__ T _jit_ifmod(T x, T y) { return y == 0 ? (T)0 : (T)(x % y); }""",
    "maximum": """template <typename T>
__device__ __forceinline__ T _jit_maximum(T a, T b) { return (a > b || a != a) ? a : b; }""",
    "minimum": """template <typename T>
__device__ __forceinline__ T _jit_minimum(T a, T b) { return (a < b || a != a) ? a : b; }""",
    "sign": """template <typename T>
__device__ __forceinline__ T _jit_sign(T x) { return x > 0 ? (T)1 : (x < 0 ? (T)-1 : x); }""",
    "iabs": """template <typename T>
__device__ __forceinline__ T _jit_abs(T x) { return x < 0 ? (T)-x : x; }""",
    "atomic_add_f16": """__device__ __forceinline__ float _jit_atomic_add_f16(float16* p, float v) {
  // CAS on the aligned 32-bit word holding the half (CUDA's atomicAdd(__half*) works on
  // __half, not on cuprum's float16; this form runs on every GPU and on the host device)
  unsigned int* word = (unsigned int*)((unsigned long long)p & ~3ull);
  const unsigned int shift = ((unsigned long long)p & 2ull) ? 16u : 0u;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    float16 h;
    h.bits = (unsigned short)(assumed >> shift);
    float16 r((float)h + v);
    const unsigned int next = (assumed & ~(0xffffu << shift)) | ((unsigned int)r.bits << shift);
    old = atomicCAS(word, assumed, next);
  } while (assumed != old);
  float16 h;
  h.bits = (unsigned short)(old >> shift);
  return (float)h;
}""",
    "laneid": """__device__ __forceinline__ unsigned int _jit_laneid() {
#ifdef __CUPRUM_HOST__
  return __cuprum_lane_id();
#else
  unsigned int r;
  asm("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
#endif
}""",
}

_CNAME = {
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "arctan2": "atan2",
}

_BINOP = {
    "add": "+",
    "subtract": "-",
    "multiply": "*",
    "left_shift": "<<",
    "right_shift": ">>",
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
    "logical_and": "&&",
    "logical_or": "||",
    "equal": "==",
    "not_equal": "!=",
    "less": "<",
    "less_equal": "<=",
    "greater": ">",
    "greater_equal": ">=",
}


def call_ufunc(tr, name: str, args: list):
    """The ufunc ``name`` on scalar values ``args`` (constants fold where all are)."""
    name = T.ALIASES.get(name, name)
    if name not in T.LOOPS:
        raise NotImplementedError(f"ufunc `{name}` is not supported in JIT kernels")
    types = []
    for a in args:
        if isinstance(a, TupleValue) or (isinstance(a, Data) and not isinstance(a.ctype, T.Scalar)):
            raise TypeError(f"ufunc `{name}` takes scalars, got {_describe(a)}")
        types.append(T.type_of(a))
    ins, out = T.find_loop(name, types)
    t = ins[0]
    for s in types + [out]:
        tr.note_type(s)
    c = [T.operand_code(a, s) for a, s in zip(args, ins)]
    rs = [T.fit(T.range_of(a), s) for a, s in zip(args, ins)]
    code = _ufunc_code(tr, name, c, t, out, args, rs)
    return Data(code, out, T.op_range(name, rs, out))


_BINOP_DIV = {"floor_divide": "/", "remainder": "%"}


def _describe(x):
    if isinstance(x, TupleValue):
        return "a tuple"
    return f"{x.code} ({x.ctype})"


def _ufunc_code(tr, name, c, t, out, args, rs):
    k = t.kind
    if name in _BINOP:
        a, b = c
        op = _BINOP[name]
        if t.char == "?" and name in ("add", "multiply"):
            op = "||" if name == "add" else "&&"
        code = _binary(a, op, b)
        if out.char == "?" or op in ("&&", "||"):
            return code
        return T.result_cast(code, out)
    if name == "true_divide":
        a, b = c
        if k in "biu":
            return _binary(f"(double){T.paren(a, 15)}", "/", b)
        return _binary(a, "/", b)
    if name in ("floor_divide", "remainder") and k in "iu":
        # the operands' ranges decide how much of Python's semantics needs code
        how = T.division_kind(rs[0], rs[1])
        if how == "c":  # C's truncation is flooring here
            return T.result_cast(_binary(c[0], _BINOP_DIV[name], c[1]), out)
        helper = name if how is None else f"{name}_nz"
        tr.need_helper(helper)
        code = f"_jit_{helper}<{t}>({c[0]}, {c[1]})"
        if name == "remainder":
            tr.remainders[code] = (c[0], c[1], t, how == "nz")
        return code
    if name == "floor_divide":
        return f"floor({_binary(c[0], '/', c[1])})"
    if name == "remainder":
        tr.need_helper("fremainder")
        return f"_jit_fremainder<{t}>({c[0]}, {c[1]})"
    if name == "fmod":
        if k in "iu":
            tr.need_helper("ifmod")
            return f"_jit_ifmod<{t}>({c[0]}, {c[1]})"
        return f"fmod({c[0]}, {c[1]})"
    if name == "power":
        if isinstance(args[1], Const) and args[1].obj == 2 and k != "c":
            return T.result_cast(_binary(c[0], "*", c[0]), out)  # x ** 2 is exactly x * x
        if k in "iu":
            tr.need_helper("ipow")
            return f"_jit_ipow<{t}>({c[0]}, {c[1]})"
        return f"pow({c[0]}, {c[1]})"
    if name in ("maximum", "minimum"):
        tr.need_helper(name)
        return f"_jit_{name}<{t}>({c[0]}, {c[1]})"
    if name in ("fmax", "fmin"):
        if k == "f":
            return f"{name}({c[0]}, {c[1]})"
        tr.need_helper("maximum" if name == "fmax" else "minimum")
        which = "maximum" if name == "fmax" else "minimum"
        return f"_jit_{which}<{t}>({c[0]}, {c[1]})"
    if name in ("arctan2", "hypot", "copysign", "nextafter", "ldexp"):
        return f"{_CNAME.get(name, name)}({c[0]}, {c[1]})"
    (a,) = c
    if name == "negative":
        return T.result_cast(f"-{T.paren(a, 15)}", out)
    if name == "positive":
        return a
    if name == "invert":
        if t.char == "?":
            return f"!{T.paren(a, 15)}"
        return T.result_cast(f"~{T.paren(a, 15)}", out)
    if name == "logical_not":
        return f"!{T.paren(a, 15)}"
    if name == "absolute":
        if k == "c":
            return f"abs({a})"
        if k == "f":
            return f"fabs({a})"
        if k == "u" or t.char == "?":
            return a
        tr.need_helper("iabs")
        return f"_jit_abs<{t}>({a})"
    if name == "fabs":
        return f"fabs({a})"
    if name == "sign":
        tr.need_helper("sign")
        return f"_jit_sign<{t}>({a})"
    if name == "square":
        return T.result_cast(_binary(a, "*", a), out)
    if name == "reciprocal":
        if k in "iu":
            raise NotImplementedError("reciprocal of integers is not supported")
        return _binary(T.const_code(1, t), "/", a)
    if name == "conjugate":
        return f"conj({a})" if k == "c" else a
    if name == "real":
        return f"{_paren(a)}.real()" if k == "c" else a
    if name == "imag":
        return f"{_paren(a)}.imag()" if k == "c" else T.const_code(0, out)
    if name in ("isnan", "isinf", "isfinite"):
        if k == "c":
            join = " && " if name == "isfinite" else " || "
            return f"({name}({_paren(a)}.real()){join}{name}({_paren(a)}.imag()))"
        return f"{name}({a})"
    if name in ("deg2rad", "radians"):
        return _binary(a, "*", T.const_code(numpy.pi / 180, t))
    if name in ("rad2deg", "degrees"):
        return _binary(a, "*", T.const_code(180 / numpy.pi, t))
    return f"{_CNAME.get(name, name)}({a})"


_PREC = {
    "*": 13, "/": 13, "%": 13, "+": 12, "-": 12, "<<": 11, ">>": 11,
    "<": 10, "<=": 10, ">": 10, ">=": 10, "==": 9, "!=": 9,
    "&": 8, "^": 7, "|": 6, "&&": 5, "||": 4,
}  # fmt: skip


def _binary(a: str, op: str, b: str) -> str:
    p = _PREC[op]
    return f"{T.paren(a, p)} {op} {T.paren(b, p + 1)}"


def _paren(code: str) -> str:
    """``code`` in parentheses unless it is an atom, a call or an index."""
    return T.paren(code, 16)


# ------------------------------------------------------------------------------ markers


class BuiltinFunc:
    """A name with a meaning only inside a JIT kernel."""

    name = "builtin"

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"cuprum.jit.{self.name} can only be called inside a JIT kernel")

    def __repr__(self):
        return f"<cuprum.jit function {self.name}>"

    def emit(self, tr, args, kwargs):  # pragma: no cover - every subclass overrides it
        raise NotImplementedError


def _consts(name, args, kwargs):
    for x in list(args) + list(kwargs.values()):
        if not isinstance(x, Const):
            raise TypeError(f"{name}(): arguments must be constants")
    return [x.obj for x in args], {k: v.obj for k, v in kwargs.items()}


class Dim3Var:
    """``threadIdx``, ``blockIdx``, ``blockDim``, ``gridDim``: ``.x``, ``.y``, ``.z`` are
    uint32 (CUDA's ``dim3``)."""

    def __init__(self, name: str):
        self.name = name
        self.__doc__ = f"CUDA's ``{name}``: ``.x``, ``.y``, ``.z`` (uint32)."

    def __repr__(self):
        return f"<cuprum.jit {self.name}>"

    def attr(self, attr: str):
        if attr not in ("x", "y", "z"):
            raise AttributeError(f"{self.name} has no attribute {attr!r} (x, y, z)")
        return Data(f"{self.name}.{attr}", T.uint32)


class WarpSize:
    """The number of threads in a warp (``warpSize``, int32)."""

    def __repr__(self):
        return "<cuprum.jit warpsize>"


class RangeFunc(BuiltinFunc):
    """``range(start, stop, step, *, unroll=None)``: Python's ``range`` with loop unrolling
    (``unroll=True`` → ``#pragma unroll``, an int n → ``#pragma unroll(n)``, ``False`` →
    ``#pragma unroll(1)``)."""

    name = "range"

    def emit(self, tr, args, kwargs):
        unroll = kwargs.pop("unroll", None)
        if kwargs:
            raise TypeError(f"range() got an unexpected keyword argument {next(iter(kwargs))!r}")
        if not args:
            raise TypeError("range expected at least 1 argument, got 0")
        if len(args) > 3:
            raise TypeError(f"range expected at most 3 arguments, got {len(args)}")
        if len(args) == 1:
            start, stop, step = Const(0), args[0], Const(1)
        elif len(args) == 2:
            start, stop, step = args[0], args[1], Const(1)
        else:
            start, stop, step = args
        if unroll is not None:
            if not isinstance(unroll, Const):
                raise TypeError("unroll must be a constant")
            unroll = unroll.obj
            if unroll is False:
                unroll = 1
        for x in (start, stop, step):
            t = T.type_of(x) if not isinstance(x, TupleValue) else None
            if not isinstance(t, T.Scalar) or t.kind not in "iu":
                raise TypeError("range supports only for integer type.")
        if isinstance(step, Const) and step.obj == 0:
            raise ValueError("range() arg 3 must not be zero")
        ctype = T.int64 if T.MODE.get() == "numpy" else T.type_of(stop)
        return RangeValue(start, stop, step, ctype, unroll)


class RangeValue:
    """A ``range(...)`` seen by a ``for`` loop."""

    def __init__(self, start, stop, step, ctype, unroll):
        self.start, self.stop, self.step = start, stop, step
        self.ctype = ctype
        self.unroll = unroll


class LenFunc(BuiltinFunc):
    name = "len"

    def emit(self, tr, args, kwargs):
        if len(args) != 1 or kwargs:
            raise TypeError(f"len() takes exactly one argument ({len(args)} given)")
        (x,) = args
        if isinstance(x, TupleValue):
            return Const(len(x.items))
        if isinstance(x, Const):
            return Const(len(x.obj))
        if not isinstance(x.ctype, T.Array):
            raise TypeError("len() supports only array type")
        if x.ctype.ndim == 0:
            raise TypeError("len() of unsized array")
        return tr.array_shape(x, 0)


class MinMaxFunc(BuiltinFunc):
    def __init__(self, name, ufunc):
        self.name = name
        self._ufunc = ufunc

    def emit(self, tr, args, kwargs):
        if kwargs:
            raise TypeError("keyword arguments are not supported")
        if len(args) < 2:
            raise TypeError(f"{self.name}() expects at least 2 arguments, got {len(args)}")
        if all(isinstance(a, Const) for a in args):
            import builtins

            return Const(getattr(builtins, self.name)(a.obj for a in args))
        r = args[0]
        for a in args[1:]:
            r = call_ufunc(tr, self._ufunc, [r, a])
        return r


class AbsFunc(BuiltinFunc):
    name = "abs"

    def emit(self, tr, args, kwargs):
        if len(args) != 1 or kwargs:
            raise TypeError("abs() takes exactly one argument")
        if isinstance(args[0], Const):
            return Const(abs(args[0].obj))
        return call_ufunc(tr, "absolute", args)


class SyncThreads(BuiltinFunc):
    """``__syncthreads()``: every thread of the block waits here."""

    name = "syncthreads"

    def emit(self, tr, args, kwargs):
        _consts(self.name, args, kwargs)
        return Data("__syncthreads()", T.void)


class SyncWarp(BuiltinFunc):
    """``__syncwarp(mask)`` (``mask=0xffffffff``: the whole warp)."""

    name = "syncwarp"

    def emit(self, tr, args, kwargs):
        mask = kwargs.pop("mask", None)
        if args or kwargs:
            raise TypeError("syncwarp() takes only the keyword argument mask")
        if mask is None:
            return Data("__syncwarp()", T.void)
        if isinstance(mask, Const) and not 0 <= mask.obj <= 0xFFFFFFFF:
            raise ValueError("mask is out of range")
        return Data(f"__syncwarp({T.operand_code(mask, T.uint32)})", T.void)


class SharedMemory(BuiltinFunc):
    """``shared_memory(dtype, size, alignment=None)``: a 1-D array in the block's shared
    memory; ``size=None`` is the dynamic shared memory of the launch (``shared_mem=``)."""

    name = "shared_memory"

    def emit(self, tr, args, kwargs):
        (vals, kw) = _consts(self.name, args, kwargs)
        if len(vals) + len(kw) < 2:
            raise TypeError("shared_memory() takes dtype and size")
        dtype = vals[0] if vals else kw.get("dtype")
        size = vals[1] if len(vals) > 1 else kw.get("size")
        alignment = vals[2] if len(vals) > 2 else kw.get("alignment")
        if size is not None and not isinstance(size, int):
            raise TypeError("size of shared_memory must be an integer or None")
        child = T.Scalar(dtype)
        tr.note_type(child)
        name = tr.shared_name()
        align = f"__align__({alignment}) " if alignment else ""
        if size is None:
            tr.decl(f"extern {align}__shared__ {child.element_name} {name}[];")
        else:
            tr.decl(f"{align}__shared__ {child.element_name} {name}[{size}];")
        return Data(name, T.Ptr(child))


_ATOMIC_DTYPES = {
    "Add": ("int32", "uint32", "uint64", "float16", "float32", "float64"),
    "Sub": ("int32", "uint32"),
    "Exch": ("int32", "uint32", "uint64", "float32"),
    "Min": ("int32", "uint32", "uint64"),
    "Max": ("int32", "uint32", "uint64"),
    "Inc": ("uint32",),
    "Dec": ("uint32",),
    "CAS": ("int32", "uint32", "uint64", "uint16"),
    "And": ("int32", "uint32", "uint64"),
    "Or": ("int32", "uint32", "uint64"),
    "Xor": ("int32", "uint32", "uint64"),
}


class AtomicOp(BuiltinFunc):
    """``atomic_<op>(array, index, value[, value2])``: CUDA's ``atomic<Op>`` on
    ``array[index]``; returns the old value."""

    def __init__(self, op: str):
        self.op = op
        self.name = "atomic_" + op.lower()
        self._dtypes = _ATOMIC_DTYPES[op]
        self.__doc__ = (
            f"``cuprum.jit.{self.name}(array, index, value{', value2' if op == 'CAS' else ''})``"
            f": CUDA's ``atomic{op}`` on ``array[index]``, returning the old value "
            f"(dtypes: {', '.join(self._dtypes)})."
        )

    def emit(self, tr, args, kwargs):
        if kwargs:
            raise TypeError(f"{self.name}() takes no keyword arguments")
        n = 4 if self.op == "CAS" else 3
        if len(args) != n:
            raise TypeError(f"{self.name}() takes {n} arguments ({len(args)} given)")
        array, index, value = args[:3]
        if not isinstance(array, Data) or not isinstance(array.ctype, (T.Array, T.Ptr)):
            raise TypeError("The first argument must be of array type.")
        target = tr.index(array, index)
        ctype = target.ctype
        if ctype.dtype.name not in self._dtypes:
            raise TypeError(f"`{self.name}` does not support {ctype.dtype} input.")
        v = T.to_data(T.astype(value, ctype, "same_kind")).code
        if self.op == "CAS":
            v2 = T.to_data(T.astype(args[3], ctype, "same_kind")).code
            return Data(f"atomicCAS(&{target.code}, {v}, {v2})", ctype)
        if ctype.char == "e":  # float16: a CAS loop on the word holding it
            tr.need_helper("atomic_add_f16")
            return Data(f"_jit_atomic_add_f16(&{target.code}, {v})", ctype)
        return Data(f"atomic{self.op}(&{target.code}, {v})", ctype)


class GridFunc(BuiltinFunc):
    """``grid(ndim)``: the thread's index in the grid (``threadIdx + blockIdx * blockDim``
    per axis; one uint32 for ndim 1, else a tuple). ``gridsize(ndim)``: the grid's extent
    in threads (``blockDim * gridDim``)."""

    def __init__(self, name, pattern):
        self.name = name
        self._pattern = pattern

    def emit(self, tr, args, kwargs):
        (vals, kw) = _consts(self.name, args, kwargs)
        if len(vals) != 1 or kw:
            raise TypeError(f"{self.name}() takes exactly one argument (ndim)")
        ndim = vals[0]
        if not isinstance(ndim, int):
            raise TypeError("ndim must be an integer")
        if ndim not in (1, 2, 3):
            raise ValueError("Only ndim=1,2,3 are supported")
        items = [Data(self._pattern.format(n=n), T.uint32) for n in "xyz"[:ndim]]
        return items[0] if ndim == 1 else TupleValue(items)


class LaneID(BuiltinFunc):
    """``laneid()``: the thread's lane in its warp, in ``[0, warpsize)`` (uint32)."""

    name = "laneid"

    def emit(self, tr, args, kwargs):
        _consts(self.name, args, kwargs)
        tr.need_helper("laneid")
        return Data("_jit_laneid()", T.uint32)


_SHFL_DTYPES = ("int32", "uint32", "int64", "uint64", "float32", "float64", "float16")


class WarpShuffleOp(BuiltinFunc):
    """``shfl{,_up,_down,_xor}_sync(mask, var, val_id, *, width=32)``: CUDA's warp
    shuffles (the mask must be a constant)."""

    def __init__(self, op: str):
        self.op = op
        self.cname = "__shfl_" + (op + "_" if op else "") + "sync"
        self.name = "shfl_" + (op + "_" if op else "") + "sync"

    def emit(self, tr, args, kwargs):
        width = kwargs.pop("width", None)
        if kwargs or len(args) != 3:
            raise TypeError(f"{self.name}(mask, var, val_id, *, width=32)")
        mask, var, val_id = args
        var = T.to_data(var)
        if not isinstance(var.ctype, T.Scalar) or var.ctype.dtype.name not in _SHFL_DTYPES:
            raise TypeError(f"`{self.cname}` does not support {var.ctype} input.")
        if not isinstance(mask, Const):
            raise TypeError("mask must be an integer")
        if not 0 <= mask.obj <= 0xFFFFFFFF:
            raise ValueError("mask is out of range")
        vt = T.uint32 if self.op in ("up", "down") else T.int32
        vid = T.operand_code(T.astype(val_id, vt, "same_kind"), vt)
        code = f"{self.cname}({hex(mask.obj)}, {var.code}, {vid}"
        if width is not None:
            if isinstance(width, Const) and width.obj not in (2, 4, 8, 16, 32):
                raise ValueError("width needs to be power of 2")
            code += f", {T.operand_code(width, T.int32)}"
        return Data(code + ")", var.ctype)


range_ = RangeFunc()
syncthreads = SyncThreads()
syncwarp = SyncWarp()
shared_memory = SharedMemory()
grid = GridFunc("grid", "threadIdx.{n} + blockIdx.{n} * blockDim.{n}")
gridsize = GridFunc("gridsize", "blockDim.{n} * gridDim.{n}")
laneid = LaneID()
threadIdx = Dim3Var("threadIdx")
blockIdx = Dim3Var("blockIdx")
blockDim = Dim3Var("blockDim")
gridDim = Dim3Var("gridDim")
warpsize = WarpSize()

atomic_add = AtomicOp("Add")
atomic_sub = AtomicOp("Sub")
atomic_exch = AtomicOp("Exch")
atomic_min = AtomicOp("Min")
atomic_max = AtomicOp("Max")
atomic_inc = AtomicOp("Inc")
atomic_dec = AtomicOp("Dec")
atomic_cas = AtomicOp("CAS")
atomic_and = AtomicOp("And")
atomic_or = AtomicOp("Or")
atomic_xor = AtomicOp("Xor")

shfl_sync = WarpShuffleOp("")
shfl_up_sync = WarpShuffleOp("up")
shfl_down_sync = WarpShuffleOp("down")
shfl_xor_sync = WarpShuffleOp("xor")

PYTHON_BUILTINS = {
    id(range): range_,
    id(len): LenFunc(),
    id(min): MinMaxFunc("min", "minimum"),
    id(max): MinMaxFunc("max", "maximum"),
    id(abs): AbsFunc(),
}
