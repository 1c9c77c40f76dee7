"""The JIT's types and CuPy's typing rules for them (``cupyx.jit``'s ``mode='cuda'``).

Design decisions:

- **Values.** A translated expression is a :class:`Const` (a Python value known while
  translating: literals, module globals, ``x.ndim``; operations on constants fold in Python)
  or a :class:`Data` (C++ code and its type). A constant takes a C++ type only where it is
  used, from the operation around it: ``num % 2`` with ``num`` int64 is ``num % 2ll``.
- **Scalars** are NumPy dtypes. Literals and Python scalar arguments are typed as CuPy's
  cuda mode types them: ``int`` → int32 when it fits (else int64), ``float`` → **float32**,
  ``complex`` → complex64, ``bool`` → bool; NumPy scalars keep their dtype. In
  ``mode='numpy'`` (the ``MODE`` context variable while translating) they are int64,
  float64 and complex128, and loops are chosen by NumPy's safe casting. float16 values
  live in ``float`` variables (CuPy's choice, for speed); float16 arrays hold
  ``cuprum::float16``.
- **Operators** take CuPy's ufunc loops: the first loop of the operation's table whose
  input types are at or after each operand's type in the order ``?bBhHiIlLqQefdFD`` (so
  uint32 and int32 compare unsigned, int64 * float32 is float32, int / int is float64).
  An operand is cast only where C's usual conversions would not give the loop's type, and
  a result is cast back only where C's integer promotion widens it (int8 + int8 is int8):
  the code reads as a person writes it.
- **``//`` and ``%`` on integers** keep Python's floor semantics, as CuPy's: a quotient
  rounded towards minus infinity, a remainder with the divisor's sign, and 0 for a zero
  divisor. The helpers compute ``x / y`` and ``x % y`` together (one hardware division or
  one software routine), then a sign fix-up; floats use ``floor(x / y)`` and
  ``x - floor(x / y) * y``. Where the operands' value ranges (below) give a non-zero
  divisor and operands of one sign, C's ``/`` and ``%`` are written: truncation is
  flooring there, so the code is what a person writes in CUDA C++.
- **Value ranges.** An integer value may carry the interval it lies in (``Data.rng``):
  literals, casts that keep every value, extents (>= 0), ``range()`` counters, sums,
  products, quotients and remainders of known intervals; a result that may leave its type
  takes the type's bounds (a wrap), except the 64-bit signed sum of a small step, clamped
  as C++ assumes no signed overflow (see :func:`op_range`). The translator finds its
  variables' ranges by translating until they settle (``_translate.translate_function``).
- **Arrays** are passed as a plain ``T*`` (the data address of element 0), with the extents
  and element strides that the kernel uses appended as hidden scalar parameters
  (``x_n1``, ``x_s0``); they are ``int`` when every offset fits in 31 bits (the bytes of
  a contiguous array, the span of a strided view: CuPy's 32-bit indexing) and
  ``long long`` otherwise, so the index arithmetic is 32-bit where it
  may be. A C-contiguous ``x[i, j]`` is ``x[i * x_n1 + j]``; a strided one
  ``x[i * x_s0 + j * x_s1]``. ``x.shape[k]``, ``x.size`` and ``len(x)`` are int64 as in CuPy.
"""

from __future__ import annotations

import contextvars
import math

import numpy

_ORDER = "?bBhHiIlLqQefdFD"

_CNAMES = {
    "?": "bool",
    "b": "signed char",
    "B": "unsigned char",
    "h": "short",
    "H": "unsigned short",
    "i": "int",
    "I": "unsigned int",
    "l": "long long",
    "L": "unsigned long long",
    "q": "long long",
    "Q": "unsigned long long",
    "e": "float16",
    "f": "float",
    "d": "double",
    "F": "complex<float>",
    "D": "complex<double>",
}


class TypeBase:
    """A C++ type of the translated program."""

    def declvar(self, name: str, init: str | None = None) -> str:
        if init is None:
            return f"{self} {name}"
        return f"{self} {name} = {init}"


class Void(TypeBase):
    def __str__(self):
        return "void"


_INTERNED: dict = {}


class Scalar(TypeBase):
    """A scalar of a NumPy dtype. One object per C type (interned): equality is identity,
    so signatures hash and compare at C speed."""

    __slots__ = ("char", "dtype", "kind")

    def __new__(cls, dtype):
        dtype = numpy.dtype(dtype)
        c = dtype.char
        # one character per C type (numpy's 'q' and 'l' are both int64 here)
        c = {"q": "l", "Q": "L"}.get(c, c)
        self = _INTERNED.get(c)
        if self is None:
            if c not in _CNAMES:
                raise TypeError(f"dtype {dtype} is not supported in JIT kernels")
            self = super().__new__(cls)
            self.dtype = numpy.dtype(c)
            self.char = c
            self.kind = self.dtype.kind
            _INTERNED[c] = self
        return self

    def __str__(self):
        if self.char == "e":
            return "float"  # float16 values are computed in float, as CuPy does
        return _CNAMES[self.char]

    @property
    def element_name(self):
        """The C++ type of an array element of this dtype."""
        return _CNAMES[self.char]

    def __repr__(self):
        return self.dtype.name


class ArrayInfo:
    """A kernel parameter of array type: which hidden extras the body used."""

    def __init__(self, name: str, dtype, ndim: int, contiguous: bool, idx32: bool):
        self.name = name
        self.dtype = numpy.dtype(dtype)
        self.ndim = ndim
        self.contiguous = contiguous
        self.idx32 = idx32
        self.used: list[tuple[str, int]] = []  # ('n', k) extents, ('s', k) element strides

    def extra(self, kind: str, k: int) -> str:
        if (kind, k) not in self.used:
            self.used.append((kind, k))
        return f"{self.name}_{kind}{k}"

    @property
    def index_ctype(self) -> str:
        return "int" if self.idx32 else "long long"


class Array(TypeBase):
    """An array (or a view of one with ``skip`` leading axes indexed away): code is a
    pointer to its first element."""

    def __init__(self, info: ArrayInfo, skip: int = 0):
        self.info = info
        self.skip = skip
        self.dtype = info.dtype
        self.ndim = info.ndim - skip
        self.child = Scalar(info.dtype)

    def __str__(self):
        return f"{self.child.element_name}*"

    def extent(self, k: int) -> str:
        return self.info.extra("n", k + self.skip)

    def stride(self, k: int) -> str:
        """The element stride of axis k (as code)."""
        k += self.skip
        info = self.info
        if not info.contiguous:
            return info.extra("s", k)
        if k == info.ndim - 1:
            return "1"
        return " * ".join(info.extra("n", j) for j in range(k + 1, info.ndim))

    def __eq__(self, other):
        return isinstance(other, Array) and other.info is self.info and other.skip == self.skip

    def __hash__(self):
        return hash((id(self.info), self.skip))


class Ptr(TypeBase):
    """A pointer to scalars (shared memory): 1-D, no shape."""

    def __init__(self, child: Scalar):
        self.child = child
        self.ndim = 1

    def __str__(self):
        return f"{self.child.element_name}*"

    def __eq__(self, other):
        return isinstance(other, Ptr) and other.child == self.child

    def __hash__(self):
        return hash(("ptr", self.child))


class Dim3(TypeBase):
    def __str__(self):
        return "dim3"


class Group(TypeBase):
    """A cooperative group (``cg::thread_block`` or ``cg::grid_group``)."""

    def __init__(self, kind: str):
        self.kind = kind

    def __str__(self):
        return f"cg::{self.kind}"


void = Void()
bool_ = Scalar(numpy.bool_)
int32 = Scalar(numpy.int32)
uint32 = Scalar(numpy.uint32)
int64 = Scalar(numpy.int64)
uint64 = Scalar(numpy.uint64)
float32 = Scalar(numpy.float32)
float64 = Scalar(numpy.float64)
dim3 = Dim3()


class Expr:
    """A translated expression."""


class Const(Expr):
    """A value known while translating."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __repr__(self):
        return f"Const({self.obj!r})"


class Data(Expr):
    """C++ code of a known type; ``rng``: the interval its integer value lies in where the
    translator knows one narrower than the type's (see :func:`range_of`)."""

    __slots__ = ("code", "ctype", "rng")

    def __init__(self, code: str, ctype: TypeBase, rng=None):
        self.code = code
        self.ctype = ctype
        self.rng = rng

    def __repr__(self):
        return f"Data({self.code!r}, {self.ctype})"


class TupleValue(Expr):
    """A tuple of values, known element by element while translating."""

    def __init__(self, items: list):
        self._items = items

    @property
    def items(self) -> list:
        return self._items

    def item(self, k: int):
        return self.items[k]


class LazyTuple(TupleValue):
    """``x.shape`` / ``x.strides``: an element is written (and its hidden parameter used)
    only when the kernel reads it."""

    def __init__(self, n: int, make):
        self._n = n
        self._make = make

    @property
    def items(self) -> list:
        return [self._make(k) for k in range(self._n)]

    def item(self, k: int):
        if not -self._n <= k < self._n:
            raise IndexError("tuple index out of range")
        return self._make(k % self._n)


# ------------------------------------------------------------------------------ scalars


MODE = contextvars.ContextVar("cuprum_jit_mode", default="cuda")


def scalar_type(x) -> Scalar:
    """The JIT type of a Python or NumPy scalar: CuPy's cuda mode (int32 when it fits,
    float32, complex64), or its numpy mode (int64, float64, complex128)."""
    if isinstance(x, numpy.generic):
        return Scalar(x.dtype)
    if isinstance(x, bool):
        return bool_
    if MODE.get() == "numpy" and isinstance(x, (int, float, complex)):
        return Scalar(type(x))
    if isinstance(x, int):
        return int32 if -(1 << 31) <= x < (1 << 31) else int64
    if isinstance(x, float):
        return float32
    if isinstance(x, complex):
        return Scalar(numpy.complex64)
    raise TypeError(f"{type(x).__name__} {x!r} is not a scalar the JIT can type")


def _float_code(v: float, t: Scalar) -> str:
    if math.isnan(v):
        return (
            "__int_as_float(0x7fffffff)"
            if t.char in "ef"
            else "__longlong_as_double(0x7ff8000000000000ll)"
        )
    if v in (float("inf"), float("-inf")):
        sign = "-" if v < 0 else ""
        if t.char in "ef":
            return f"{sign}__int_as_float(0x7f800000)"
        return f"{sign}__longlong_as_double(0x7ff0000000000000ll)"
    s = repr(float(v))
    if "e" not in s and "." not in s:
        s += ".0"
    return s + "f" if t.char in "ef" else s


def const_code(x, t: Scalar) -> str:
    """The C++ literal of constant ``x`` as type ``t``."""
    c = t.char
    if c == "?":
        return "true" if bool(x) else "false"
    if t.kind == "c":
        z = complex(x)
        part = Scalar("f" if c == "F" else "d")
        return f"{t}({_float_code(z.real, part)}, {_float_code(z.imag, part)})"
    if t.kind == "f":
        if isinstance(x, complex):
            x = x.real
        return _float_code(float(x), t)
    v = int(t.dtype.type(x)) if not isinstance(x, float) else int(x)
    suffix = {"i": "", "I": "u", "l": "ll", "L": "ull"}.get(c)
    if suffix is not None:
        if c == "i" and v == -(1 << 31):
            return "(-2147483647 - 1)"
        if c == "l" and v == -(1 << 63):
            return "(-9223372036854775807ll - 1)"
        return f"{v}{suffix}"
    return f"({t}){v}"


def to_data(x: Expr) -> Data:
    """A constant made concrete with its own (literal) type; data as it is."""
    if isinstance(x, Data):
        return x
    if isinstance(x, Const):
        if x.obj is None:
            raise TypeError("None cannot be used as a value here")
        t = scalar_type(x.obj)
        return Data(const_code(x.obj, t), t, fit(range_of(x), t))
    if isinstance(x, TupleValue):
        raise TypeError("a tuple cannot be used as a single value here")
    raise TypeError(f"{x!r} cannot be used as a value")


def type_of(x: Expr):
    if isinstance(x, Const):
        return scalar_type(x.obj)
    return x.ctype


def _pos(t: Scalar) -> int:
    return _ORDER.index(t.char)


def can_cast(src: Scalar, dst: Scalar, casting: str) -> bool:
    """NumPy's ``can_cast`` between scalar dtypes (values of the type, not the value)."""
    if src == dst or casting == "unsafe":
        return True
    return bool(numpy.can_cast(src.dtype, dst.dtype, casting))


def astype(x: Expr, t: Scalar, casting: str = "unsafe") -> Expr:
    """``x`` converted to scalar type ``t``; TypeError where ``casting`` forbids it."""
    if isinstance(x, Const):
        if x.obj is None or isinstance(x.obj, tuple):
            raise TypeError(f"{x.obj!r} cannot be converted to {t!r}")
        try:
            return Const(t.dtype.type(x.obj))
        except (TypeError, ValueError, OverflowError) as e:
            raise TypeError(f"cannot convert {x.obj!r} to {t!r}: {e}") from None
    if not isinstance(x.ctype, Scalar):
        raise TypeError(f"{x.code} is not a scalar ({x.ctype})")
    src = x.ctype
    if src == t:
        return x
    if not can_cast(src, t, casting):
        raise TypeError(f"Cannot cast from '{src!r}' to '{t!r}' with casting rule {casting}.")
    if src.kind == "c" and t.kind != "c":
        return Data(f"({t}){paren(x.code, 16)}.real()", t)
    if src.char == "e" and t.char == "f" or src.char == "f" and t.char == "e":
        return Data(x.code, t)  # both are float in C++
    if t.kind == "c":
        return Data(f"{t}({x.code})", t)
    return Data(f"({t}){paren(x.code, 15)}", t, fit(range_of(x), t))


# ------------------------------------------------------------------------------ value ranges

EMPTY = "empty"
"""The range of no value: a variable not yet given one while its range is being found."""

_SMALL = 1 << 20
_LOW_STEPS = (1, 0)


_BOUNDS = {"?": (0, 1)}
_BOUNDS.update((c, (int(numpy.iinfo(c).min), int(numpy.iinfo(c).max))) for c in "bBhHiIlL")


def bounds(t):
    """The interval of every value of integer (or bool) type ``t``; None for others."""
    return _BOUNDS.get(t.char) if isinstance(t, Scalar) else None


def range_of(x):
    """The interval ``(lo, hi)`` an integer or bool value lies in (its type's bounds where
    nothing narrower is known), ``EMPTY``, or None for other values."""
    if isinstance(x, Const):
        o = x.obj
        if isinstance(o, (bool, int, numpy.integer, numpy.bool_)):
            return (int(o), int(o))
        return None
    if not isinstance(x, Data):
        return None
    b = bounds(x.ctype)
    if b is None:
        return None
    return x.rng if x.rng is not None else b


def fit(r, t):
    """Range ``r`` as values of type ``t``: kept where every value fits (the conversion
    keeps them), else ``t``'s bounds (it may wrap); None for a type that is not integer."""
    b = bounds(t)
    if b is None:
        return None
    if r is EMPTY:
        return EMPTY
    if r is None:
        return b
    return r if b[0] <= r[0] and r[1] <= b[1] else b


def join(a, b):
    """The smallest range holding ranges ``a`` and ``b``."""
    if a is EMPTY:
        return b
    if b is EMPTY:
        return a
    return (min(a[0], b[0]), max(a[1], b[1]))


def covers(a, b) -> bool:
    """Whether range ``a`` holds range ``b``."""
    if b is EMPTY:
        return True
    if a is EMPTY:
        return False
    return a[0] <= b[0] and b[1] <= a[1]


def widen(old, new, t):
    """The range a variable is assumed to hold next, after values in ``new`` were assigned
    to it while it was assumed to hold ``old``: a bound that moved goes to the next of a few
    steps (1, 0, the type's minimum below; the type's maximum above), so the search ends."""
    if old is EMPTY:
        return new
    lo, hi = old
    tlo, thi = bounds(t)
    if new[0] < lo:
        lo = next((s for s in _LOW_STEPS if tlo <= s <= new[0]), tlo)
    if new[1] > hi:
        hi = thi
    return (lo, hi)


def _exact_range(name, rs):
    """The interval of ufunc ``name``'s exact (unbounded) result on operand intervals, or
    None where it is not followed."""
    if len(rs) == 2:
        (a0, a1), (b0, b1) = rs
        if name == "add":
            return (a0 + b0, a1 + b1)
        if name == "subtract":
            return (a0 - b1, a1 - b0)
        if name == "multiply":
            p = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
            return (min(p), max(p))
        if name == "floor_divide" and (b0 > 0 or b1 < 0):
            # monotonic in each operand while the divisor keeps its sign: the corners bound it
            q = (a0 // b0, a0 // b1, a1 // b0, a1 // b1)
            return (min(q), max(q))
        if name == "remainder":
            if b0 > 0:
                return (0, min(a1, b1 - 1) if a0 >= 0 else b1 - 1)
            if b1 < 0:
                return (max(a0, b0 + 1) if a1 <= 0 else b0 + 1, 0)
            return None
        if name == "bitwise_and" and (a0 >= 0 or b0 >= 0):
            return (0, min(x1 for x0, x1 in rs if x0 >= 0))
        if name == "right_shift" and a0 >= 0 and b0 >= 0:
            return (0, a1)
        if name in ("maximum", "fmax"):
            return (max(a0, b0), max(a1, b1))
        if name in ("minimum", "fmin"):
            return (min(a0, b0), min(a1, b1))
        return None
    if len(rs) == 1 and name == "negative":
        return (-rs[0][1], -rs[0][0])
    if len(rs) == 1 and name == "positive":
        return rs[0]
    return None


def op_range(name, rs, out):
    """The range of ufunc ``name``'s result of type ``out`` on operands of ranges ``rs`` (as
    the loop's input types): the exact interval where it fits in ``out``, else ``out``'s
    bounds (a wrap). One exception, as C++ assumes no signed overflow: a 64-bit signed sum
    or difference with an operand within ±2**20 (a counter's step) is clamped to the type
    (wrapping it needs 2**43 such steps)."""
    b = bounds(out)
    if b is None:
        return None
    if any(r is EMPTY for r in rs):
        return EMPTY
    if any(r is None for r in rs):
        return b
    r = _exact_range(name, rs)
    if r is None:
        return b
    if b[0] <= r[0] and r[1] <= b[1]:
        return r
    if (
        name in ("add", "subtract")
        and out.kind == "i"
        and out.dtype.itemsize == 8
        and any(-_SMALL <= x0 and x1 <= _SMALL for x0, x1 in rs)
    ):
        lo, hi = max(r[0], b[0]), min(r[1], b[1])
        if lo <= hi:
            return (lo, hi)
    return b


def division_kind(rx, ry):
    """How integer ``x // y`` and ``x % y`` may be written, from the operands' ranges:
    ``"c"`` where C's ``/`` and ``%`` are Python's (a non-zero divisor and operands of one
    sign, so truncation is flooring), ``"nz"`` where only the zero check can go (the divisor
    is never 0), None where the full helper is needed."""
    if rx is None or ry is None:
        return None
    if rx is EMPTY or ry is EMPTY:
        return "c"  # no value yet (a variable still being followed): any code will do
    if (ry[0] > 0 and rx[0] >= 0) or (ry[1] < 0 and rx[1] <= 0):
        return "c"
    if ry[0] > 0 or ry[1] < 0:
        return "nz"
    return None


_LEVELS = [
    (3, (" ? ",)),
    (4, (" || ",)),
    (5, (" && ",)),
    (6, (" | ",)),
    (7, (" ^ ",)),
    (8, (" & ",)),
    (9, (" == ", " != ")),
    (10, (" < ", " <= ", " > ", " >= ")),
    (11, (" << ", " >> ")),
    (12, (" + ", " - ")),
    (13, (" * ", " / ", " % ")),
]


_PRECS: dict = {}


def prec(code: str) -> int:
    """The C++ precedence of the outermost operator of generated ``code`` (16: an atom,
    a call or an index; 15: a unary operator or a cast). Generated binary operators are
    always written with spaces around them, so one scan at paren depth 0 finds them
    (remembered per code: a function is translated a few times)."""
    p = _PRECS.get(code)
    if p is None:
        if len(_PRECS) > 50_000:
            _PRECS.clear()
        p = _PRECS[code] = _prec(code)
    return p


def _prec(code: str) -> int:
    depth = 0
    top = []
    for ch in code:
        if ch in "([":
            depth += 1
            top.append("\x00")
        elif ch in ")]":
            depth -= 1
            top.append("\x00")
        else:
            top.append(ch if depth == 0 else "\x00")
    flat = "".join(top)
    for level, ops in _LEVELS:
        if any(op in flat for op in ops):
            return level
    if code[:1] in "-!~" or (code.startswith("(") and not _closes_at_end(code)):
        return 15
    return 16


def _closes_at_end(code: str) -> bool:
    depth = 0
    for i, ch in enumerate(code):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i == len(code) - 1
    return False


def paren(code: str, need: int) -> str:
    """``code`` in parentheses where its precedence is below ``need``."""
    return code if prec(code) >= need else f"({code})"


def operand_code(x: Expr, t: Scalar) -> str:
    """Code of ``x`` used where the loop wants type ``t``: literals typed, casts only where
    C's usual arithmetic conversions would not give ``t`` anyway."""
    if isinstance(x, Const):
        return const_code(x.obj, t)
    s = x.ctype
    if s.char == "e" and x.code.endswith("]"):
        # a float16 array element (a cuprum::float16): read it as float first
        return f"(float){x.code}"
    if s == t or _implicit_ok(s, t):
        return x.code
    return astype(x, t).code


# Integer types of at least int's rank, and floats: C converts these to the wider of two
# operands exactly as the CuPy loop does, so no cast is written.
_RANKED = {"i": 0, "I": 1, "l": 2, "L": 3, "f": 4, "d": 5}


def _implicit_ok(s: Scalar, t: Scalar) -> bool:
    if s.char in "bBhH?" and t.char in "il" + "fd":
        # small integers (and bool) promote to int in C, then convert to t exactly
        return True
    if s.char == "e" and t.char in "fd":
        return True
    if s.char in _RANKED and t.char in _RANKED:
        # signed → unsigned of the same or wider rank, or anything → float: what C does
        return _RANKED[s.char] <= _RANKED[t.char]
    return False


def c_result_char(t: Scalar) -> str:
    """The C type an arithmetic result of loop type ``t`` has before any cast (integer
    promotion widens small types to int)."""
    if t.char in "?bBhH":
        return "i"
    if t.char == "e":
        return "f"
    return t.char


def result_cast(code: str, t: Scalar) -> str:
    """Wraps ``code`` (an arithmetic result computed on loop type ``t``) in a cast to ``t``
    where C's promotions made it wider."""
    if c_result_char(t) != t.char and t.char != "e":
        return f"({t}){paren(code, 15)}"
    return code


# ------------------------------------------------------------------------------ loops

_INTS = "bBhHiIlLQ"
_ALL = "?bBhHiIlLefdFD"


def _loops(chars: str, nin: int, out: str | None = None):
    return [((c,) * nin, out or c) for c in chars]


LOOPS = {
    "add": _loops("?bBhHiIlLefdFD", 2),
    "subtract": _loops("bBhHiIlLefdFD", 2),
    "multiply": _loops("?bBhHiIlLefdFD", 2),
    "true_divide": [((c, c), "d") for c in "bBhHiIlL"] + _loops("efdFD", 2),
    "floor_divide": _loops("bBhHiIlLefd", 2),
    "remainder": _loops("bBhHiIlLefd", 2),
    "power": _loops("bBhHiIlLefdFD", 2),
    "left_shift": _loops("bBhHiIlL", 2),
    "right_shift": _loops("bBhHiIlL", 2),
    "bitwise_and": _loops("?bBhHiIlL", 2),
    "bitwise_or": _loops("?bBhHiIlL", 2),
    "bitwise_xor": _loops("?bBhHiIlL", 2),
    "logical_and": _loops(_ALL, 2, "?"),
    "logical_or": _loops(_ALL, 2, "?"),
    "equal": _loops(_ALL, 2, "?"),
    "not_equal": _loops(_ALL, 2, "?"),
    "less": _loops("?bBhHiIlLefd", 2, "?"),
    "less_equal": _loops("?bBhHiIlLefd", 2, "?"),
    "greater": _loops("?bBhHiIlLefd", 2, "?"),
    "greater_equal": _loops("?bBhHiIlLefd", 2, "?"),
    "maximum": _loops("?bBhHiIlLefd", 2),
    "minimum": _loops("?bBhHiIlLefd", 2),
    "fmax": _loops("?bBhHiIlLefd", 2),
    "fmin": _loops("?bBhHiIlLefd", 2),
    "arctan2": _loops("efd", 2),
    "hypot": _loops("efd", 2),
    "fmod": _loops("bBhHiIlLefd", 2),
    "copysign": _loops("efd", 2),
    "nextafter": _loops("efd", 2),
    "ldexp": [(("e", "i"), "e"), (("f", "i"), "f"), (("d", "i"), "d")],
    "negative": _loops("bBhHiIlLefdFD", 1),
    "positive": _loops("bBhHiIlLefdFD", 1),
    "invert": _loops("?bBhHiIlL", 1),
    "logical_not": _loops(_ALL, 1, "?"),
    "absolute": _loops("?bBhHiIlLefd", 1) + [(("F",), "f"), (("D",), "d")],
    "sign": _loops("bBhHiIlLefd", 1),
    "square": _loops("bBhHiIlLefdFD", 1),
    "reciprocal": _loops("bBhHiIlLefdFD", 1),
    "conjugate": _loops("bBhHiIlLefdFD", 1),
    "real": [((c,), c) for c in "efd"] + [(("F",), "f"), (("D",), "d")],
    "imag": [((c,), c) for c in "efd"] + [(("F",), "f"), (("D",), "d")],
    "isnan": _loops("efdFD", 1, "?"),
    "isinf": _loops("efdFD", 1, "?"),
    "isfinite": _loops("efdFD", 1, "?"),
    "signbit": _loops("efd", 1, "?"),
    "floor": _loops("efd", 1),
    "ceil": _loops("efd", 1),
    "trunc": _loops("efd", 1),
    "rint": _loops("efd", 1),
    "fabs": _loops("efd", 1),
}
# Float functions of one argument (complex too where cuprum/complex.cuh has them).
for _n in ("sqrt", "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh"):
    LOOPS[_n] = _loops("efdFD", 1)
for _n in (
    "cbrt", "exp2", "expm1", "log2", "log10", "log1p", "arcsin", "arccos", "arctan",
    "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "degrees", "radians",
):  # fmt: skip
    LOOPS[_n] = _loops("efd", 1)

ALIASES = {
    "abs": "absolute",
    "mod": "remainder",
    "divide": "true_divide",
    "conj": "conjugate",
    "bitwise_not": "invert",
    "asin": "arcsin",
    "acos": "arccos",
    "atan": "arctan",
    "asinh": "arcsinh",
    "acosh": "arccosh",
    "atanh": "arctanh",
    "atan2": "arctan2",
    "pow": "power",
}


def find_loop(name: str, types: list[Scalar]):
    """The first loop of ufunc ``name`` that every operand type reaches (CuPy's cuda-mode
    rule; NumPy's safe casting in numpy mode): ``(input types, output type)``."""
    numpy_mode = MODE.get() == "numpy"
    key = (name, numpy_mode, *types)
    found = _FOUND.get(key)
    if found is not None:
        return list(found[0]), found[1]
    found = _find_loop(name, types, numpy_mode)
    _FOUND[key] = found
    return list(found[0]), found[1]


_FOUND: dict = {}  # (ufunc, numpy mode, *operand types) -> (input types, output type)


def _find_loop(name, types, numpy_mode):
    for ins, out in LOOPS[name]:
        if numpy_mode:
            ok = all(numpy.can_cast(t.dtype, numpy.dtype(c)) for t, c in zip(types, ins))
        else:
            ok = all(_pos(t) <= _ORDER.index(c) for t, c in zip(types, ins))
        if ok:
            return tuple(Scalar(c) for c in ins), Scalar(out)
    names = ", ".join(repr(t) for t in types)
    raise TypeError(f'"{name}" does not support the input types ({names})')
