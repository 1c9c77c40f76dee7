"""NumPy 1's names that NumPy 2 removed or moved and CuPy still offers: the constants
(``PINF``, ``NAN``, ``NZERO`` …), the deprecated spellings of routines (``product``,
``cumproduct``, ``msort``, ``in1d``, ``asfarray``), the scalar-type helpers of NumPy 1's
``numerictypes`` (``obj2sctype``, ``issctype`` …) and, for functions NumPy 2 dropped with no
replacement, stand-ins that raise ``RuntimeError`` saying what to use instead. The plain
aliases (``alltrue`` for ``all``, ``trapz`` for ``trapezoid``) are bound in
``cuprum/__init__.py`` to the same objects, as CuPy binds them; NumPy's own objects of old
names (``cfloat``, ``DataSource``, ``format_parser``) are looked up there at first use
(:data:`FROM_NUMPY`), so ``import cuprum`` does not import NumPy."""

from __future__ import annotations

import math
import warnings

import cuprum
from cuprum._lazy import numpy

# ---------------------------------------------------------------------------- constants

PINF = Inf = Infinity = infty = math.inf
NINF = -math.inf
NAN = NaN = math.nan
PZERO = 0.0
NZERO = -0.0

# NumPy's objects that CuPy exports under names NumPy 2 no longer has at its top level:
# the name -> (NumPy's module, the object's name there).
FROM_NUMPY = {
    "singlecomplex": ("numpy", "complex64"),
    "cfloat": ("numpy", "complex128"),
    "DataSource": ("numpy.lib.npyio", "DataSource"),
    "format_parser": ("numpy.rec", "format_parser"),
}


def numpy_object(name):
    """The NumPy object that :data:`FROM_NUMPY` names ``name`` (NumPy imported now)."""
    import importlib

    module, attr = FROM_NUMPY[name]
    return getattr(importlib.import_module(module), attr)


# ---------------------------------------------------------------------------- routines


def product(a, axis=None, dtype=None, out=None, keepdims=False):
    """``prod`` after a ``DeprecationWarning`` (NumPy 1's old name)."""
    warnings.warn("Please use `prod` instead.", DeprecationWarning, stacklevel=2)
    return cuprum.prod(a, axis, dtype, out, keepdims)


def cumproduct(a, axis=None, dtype=None, out=None):
    """``cumprod`` after a ``DeprecationWarning`` (NumPy 1's old name)."""
    warnings.warn("Please use `cumprod` instead.", DeprecationWarning, stacklevel=2)
    return cuprum.cumprod(a, axis, dtype, out)


def msort(a):
    """A copy of ``a`` sorted along its first axis, after a ``DeprecationWarning``
    (``sort(a, axis=0)``)."""
    warnings.warn(
        "msort is deprecated, use cupy.sort(a, axis=0) instead", DeprecationWarning, stacklevel=2
    )
    return cuprum.sort(a, axis=0)


def in1d(ar1, ar2, assume_unique=False, invert=False):
    """Whether each element of ``ar1``, flattened, is in ``ar2`` (a 1-D bool array;
    ``invert`` negates it; ``assume_unique`` is accepted and ignored, as CuPy's)."""
    ar1 = cuprum.asarray(ar1).ravel()
    ar2 = cuprum.asarray(ar2).ravel()
    return cuprum.isin(ar1, ar2, invert=invert)


def asfarray(a, dtype="float64"):
    """``a`` as an array of ``dtype`` when that is a float or complex dtype, else of
    float64 (``dtype=None`` keeps ``a``'s dtype, as CuPy's)."""
    if not numpy.issubdtype(dtype, numpy.inexact):
        dtype = numpy.float64
    return cuprum.asarray(a, dtype=dtype)


# ---------------------------------------------------------------------------- scalar types


def issubclass_(arg1, arg2):
    """``issubclass(arg1, arg2)``, ``False`` where that raises ``TypeError``."""
    try:
        return issubclass(arg1, arg2)
    except TypeError:
        return False


def obj2sctype(rep, default=None):
    """The NumPy scalar type of ``rep`` (a scalar type, an array, or anything ``dtype``
    takes); ``default`` when it has none."""
    if isinstance(rep, type) and issubclass(rep, numpy.generic):
        return rep  # (an abstract type such as numpy.integer stays as it is)
    if isinstance(rep, numpy.ndarray):
        return rep.dtype.type
    try:
        return numpy.dtype(rep).type
    except Exception:  # noqa: BLE001  (NumPy 1's rule: anything it cannot read)
        return default


def issubsctype(arg1, arg2):
    """Whether the scalar type of ``arg1`` is a subclass of that of ``arg2``."""
    return issubclass(obj2sctype(arg1), obj2sctype(arg2))


def sctype2char(sctype):
    """The character code of the scalar type of ``sctype`` (``'d'`` for float64)."""
    t = obj2sctype(sctype)
    if t is None:
        raise ValueError("unrecognized type")
    return numpy.dtype(t).char


def issctype(rep):
    """Whether ``rep`` (a type or a dtype) stands for a scalar type other than
    ``object_``."""
    if not isinstance(rep, (type, numpy.dtype)):
        return False
    try:
        t = obj2sctype(rep)
        return bool(t) and t is not numpy.object_
    except Exception:  # noqa: BLE001  (NumPy 1's rule: no answer means no)
        return False


# ---------------------------------------------------------------------------- removed

_REMOVED = "This function has been removed in NumPy v2.\nUse {} instead.\n"


def find_common_type(*args, **kwargs):
    """Removed in NumPy 2: raises ``RuntimeError`` (use ``result_type``)."""
    raise RuntimeError(_REMOVED.format("`promote_types` or `result_type`"))


def set_string_function(*args, **kwargs):
    """Removed in NumPy 2: raises ``RuntimeError`` (use ``set_printoptions``)."""
    raise RuntimeError(_REMOVED.format("`np.set_printoptions`"))


def get_array_wrap(*args, **kwargs):
    """Removed in NumPy 2 with no replacement: raises ``RuntimeError``."""
    raise RuntimeError(_REMOVED.format("<no replacement>"))


def disp(*args, **kwargs):
    """Removed in NumPy 2: raises ``RuntimeError`` (use ``print``)."""
    raise RuntimeError(_REMOVED.format("your own print function"))


def safe_eval(*args, **kwargs):
    """Removed in NumPy 2: raises ``RuntimeError`` (use ``ast.literal_eval``)."""
    raise RuntimeError(_REMOVED.format("`ast.literal_eval`"))
