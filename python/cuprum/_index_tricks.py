"""NumPy's index tricks that build arrays by concatenation: ``r_`` (along the first axis)
and ``c_`` (along the last, 1-D pieces as columns), composed from cuprum's operations.

``r_[...]`` takes device arrays, NumPy arrays, sequences, scalars and slices (``a:b:c`` is
``arange(a, b, c)``, ``a:b:Nj`` is ``linspace(a, b, N)``), joined in NumPy's common dtype
(Python scalars weak); a leading string sets the axis (``'-1'``), the axis and the minimum
number of dimensions (``'0,2'``), and where a piece's own axes go among them (``'0,2,0'``),
or asks for a 2-D result (``'r'``: a row, ``'c'``: a column, where NumPy returns a matrix).
The result is a cuprum array."""

from __future__ import annotations

import cuprum
from cuprum._lazy import numpy


def _ndim(x):
    """The dimensions of a device array (not converted) or other data."""
    return x.ndim if isinstance(x, cuprum.ndarray) else numpy.ndim(x)


class AxisConcatenator:
    """The pieces of a subscript joined along ``axis``, each made at least ``ndmin``-D
    (its own axes starting at ``trans1d``; ``-1``: last), NumPy's ``AxisConcatenator``."""

    __slots__ = ("axis", "matrix", "ndmin", "trans1d")

    def __init__(self, axis=0, matrix=False, ndmin=1, trans1d=-1):
        self.axis = axis
        self.matrix = matrix
        self.trans1d = trans1d
        self.ndmin = ndmin

    def __getitem__(self, key):
        if isinstance(key, str):
            raise NotImplementedError(
                "the matrix builder syntax (a string subscript) is not supported"
            )
        if not isinstance(key, tuple):
            key = (key,)
        trans1d, ndmin, matrix, axis = self.trans1d, self.ndmin, self.matrix, self.axis
        col = False
        objs = []
        kinds = []  # dtypes, and the scalars themselves (weak in result_type)
        for k, item in enumerate(key):
            scalar = False
            if isinstance(item, slice):
                start = 0 if item.start is None else item.start
                step = 1 if item.step is None else item.step
                if isinstance(step, (complex, numpy.complexfloating)):
                    newobj = cuprum.linspace(start, item.stop, num=int(abs(step)))
                else:
                    newobj = cuprum.arange(start, item.stop, step)
                if ndmin > 1:
                    newobj = cuprum.array(newobj, copy=None, ndmin=ndmin)
                    if trans1d != -1:
                        newobj = newobj.swapaxes(-1, trans1d)
            elif isinstance(item, str):
                if k != 0:
                    raise ValueError("special directives must be the first entry.")
                if item in ("r", "c"):
                    matrix = True
                    col = item == "c"
                    continue
                if "," in item:
                    vec = item.split(",")
                    try:
                        axis, ndmin = [int(x) for x in vec[:2]]
                        if len(vec) == 3:
                            trans1d = int(vec[2])
                        continue
                    except Exception as e:
                        raise ValueError(f"unknown special directive {item!r}") from e
                try:
                    axis = int(item)
                    continue
                except (ValueError, TypeError) as e:
                    raise ValueError("unknown special directive") from e
            elif type(item) in numpy.ScalarType:
                scalar = True
                newobj = item
            else:
                item_ndim = _ndim(item)
                newobj = cuprum.array(item, copy=None, ndmin=ndmin)
                if trans1d != -1 and item_ndim < ndmin:
                    k2 = ndmin - item_ndim
                    k1 = trans1d
                    if k1 < 0:
                        k1 += k2 + 1
                    defaxes = list(range(ndmin))
                    newobj = newobj.transpose(defaxes[:k1] + defaxes[k2:] + defaxes[k1:k2])
            objs.append(newobj)
            kinds.append(item if scalar else newobj.dtype)
        if kinds:
            dtype = numpy.result_type(*kinds)
            objs = [cuprum.array(o, dtype=dtype, copy=None, ndmin=ndmin) for o in objs]
        res = cuprum.concatenate(tuple(objs), axis=axis)
        if matrix:  # NumPy's matrix of the result, as a 2-D array
            if res.ndim > 2:
                raise ValueError("matrix must be 2-dimensional")
            oldndim = res.ndim
            res = res.reshape((1,) * (2 - res.ndim) + res.shape)
            if oldndim == 1 and col:
                res = res.T
        return res

    def __len__(self):
        return 0


class RClass(AxisConcatenator):
    """``r_``: pieces joined along the first axis."""

    def __init__(self):
        AxisConcatenator.__init__(self, 0)


class CClass(AxisConcatenator):
    """``c_``: pieces joined along the last axis, 1-D pieces (made 2-D) as columns."""

    def __init__(self):
        AxisConcatenator.__init__(self, -1, ndmin=2, trans1d=0)


r_ = RClass()
c_ = CClass()
