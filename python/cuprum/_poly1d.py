"""NumPy's one-dimensional polynomials on device arrays: the ``poly1d`` class and
``poly``, ``polyval``, ``polyadd``, ``polysub``, ``polymul`` (coefficients highest power
first), ``polyfit`` and ``roots``, composed from cuprum's operations (Horner's rule,
``convolve``, ``concatenate``, ``cuprum.linalg``'s ``lstsq``, ``eigvalsh`` and
``eigvals``). ``roots`` and ``poly`` of a matrix take CuPy's way for Hermitian companions
and matrices (``eigvalsh`` on the device, the roots in the coefficients' dtype) and
NumPy's for the others, which CuPy refuses (``eigvals``, LAPACK on the host)."""

from __future__ import annotations

import cuprum
from cuprum._lazy import numpy


def _coeffs(a):
    """``a``'s coefficients as a 1-D device array (a ``poly1d``'s, or the array)."""
    if isinstance(a, poly1d):
        return a.coeffs
    if isinstance(a, numpy.poly1d):
        return cuprum.asarray(a.coeffs)
    return cuprum.atleast_1d(cuprum.asarray(a))


def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots (NumPy's ``poly``:
    a 1-D sequence, or a square matrix's characteristic polynomial)."""
    z = cuprum.atleast_1d(cuprum.asarray(seq_of_zeros))
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        z = _eigenvalues(z)
    if z.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    z = z.astype(numpy.mintypecode(z.dtype.char))
    if len(z) == 0:
        return 1.0
    a = cuprum.ones((1,), dtype=z.dtype)
    for k in range(len(z)):
        a = cuprum.convolve(a, cuprum.concatenate([cuprum.ones(1, dtype=z.dtype), -z[k : k + 1]]))
    if a.dtype.kind == "c":
        r = z.astype(numpy.complex128)
        if bool(cuprum.all(cuprum.sort(r) == cuprum.sort(r.conj()))):
            a = a.real.copy()
    return a


def _eigenvalues(m):
    """A matrix's eigenvalues: ``eigvalsh``'s for a Hermitian one (CuPy's way, on the
    device), else ``eigvals``' (LAPACK on the host; CuPy has none here), real where they
    all are and ``m`` is (NumPy's rule)."""
    if bool(cuprum.array_equal(m, m.conj().T)):
        return cuprum.linalg.eigvalsh(m)
    w = cuprum.linalg.eigvals(m)
    if m.dtype.kind != "c" and not bool(cuprum.any(w.imag != 0)):
        w = w.real.copy()
    return w


def roots(p):
    """The roots of the polynomial with coefficients ``p`` (highest power first): degree 1
    directly, else the eigenvalues of the companion matrix (``eigvalsh``'s when it is
    Hermitian, as CuPy; else ``eigvals``', complex unless all are real, as NumPy)."""
    from cuprum.polynomial import polynomial, polyutils

    if isinstance(p, (poly1d, numpy.poly1d)):
        p = _coeffs(p)
    p = cuprum.asarray(p)
    if p.dtype.kind == "b":
        raise NotImplementedError("boolean inputs are not supported")
    if p.ndim == 0:
        raise TypeError("0-dimensional input is not allowed")
    if p.size < 2:
        return cuprum.array([])
    [p] = polyutils.as_series([p[::-1]])
    if p.size < 2:
        return cuprum.array([])
    if p.size == 2:
        out = (-p[0] / p[1])[None]
        if bool(p[0] == 0):
            out = out.real.astype(numpy.float64)
        return out
    c = polynomial.polycompanion(p)
    w = _eigenvalues(c)
    return w.astype(p.dtype) if bool(cuprum.array_equal(c, c.conj().T)) else w


def _as_float(x):
    return x.astype(numpy.complex128 if x.dtype.kind == "c" else numpy.float64, copy=False)


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial of degree ``deg`` through the points ``(x, y)``
    (NumPy's ``polyfit``: coefficients highest power first, one column per column of a
    2-D ``y``; ``full`` adds ``(residuals, rank, singular values, rcond)``, ``cov`` the
    coefficients' covariance)."""
    x, y = cuprum.asarray(x), cuprum.asarray(y)
    if x.dtype.char == "e" and y.dtype.kind == "b":
        raise NotImplementedError("float16 x and bool y are not currently supported")
    if y.dtype == numpy.float16:
        raise TypeError("float16 y are not supported")
    x, y = _as_float(x), _as_float(y)
    deg = int(deg)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.size != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    from cuprum.polynomial import polynomial

    lhs = polynomial.polyvander(x, deg)[:, ::-1].copy()
    rhs = y.copy()
    if w is not None:
        w = _as_float(cuprum.asarray(w))
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.size != x.size:
            raise TypeError("expected w and y to have the same length")
        lhs *= w[:, None]
        rhs *= w[:, None] if rhs.ndim == 2 else w
    if rcond is None:
        rcond = x.size * float(numpy.finfo(x.dtype).eps)
    scale = cuprum.sqrt(cuprum.sum(cuprum.square(lhs), axis=0))
    lhs /= scale
    c, resids, rank, s = cuprum.linalg.lstsq(lhs, rhs, rcond)
    if y.ndim > 1:
        scale = scale.reshape(-1, 1)
    c /= scale
    order = deg + 1
    if int(rank) != order and not full:
        import warnings

        rank_warning = getattr(numpy, "exceptions", numpy).RankWarning
        warnings.warn("Polyfit may be poorly conditioned", rank_warning, stacklevel=2)
    if full:
        if resids.dtype.kind == "c":
            resids = cuprum.absolute(resids)
        return c, resids, rank, s, rcond
    if cov:
        base = cuprum.linalg.inv(cuprum.dot(lhs.T, lhs))
        base /= cuprum.outer(scale, scale)
        if cov == "unscaled":
            factor = 1
        elif x.size > order:
            factor = resids / (x.size - order)
        else:
            raise ValueError(
                "the number of data points must exceed order to scale the covariance matrix"
            )
        if y.ndim != 1:
            base = base[..., None]
        return c, base * factor
    return c


def polyval(p, x):
    """The polynomial ``p`` (highest power first) at ``x`` by Horner's rule (NumPy's
    ``polyval``; ``x`` a ``poly1d`` gives the composed polynomial)."""
    p = _coeffs(p) if isinstance(p, (poly1d, numpy.poly1d)) else cuprum.asarray(p)
    if isinstance(x, poly1d):
        y = 0
    else:
        x = cuprum.asarray(x)
        y = cuprum.zeros_like(x)
    for k in range(len(p)):
        y = y * x + p[k]
    return y


def _padded_sum(a1, a2, sign):
    truepoly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    a1, a2 = _coeffs(a1), _coeffs(a2)
    diff = len(a2) - len(a1)
    if diff > 0:
        a1 = cuprum.concatenate((cuprum.zeros(diff, a1.dtype), a1))
    elif diff < 0:
        a2 = cuprum.concatenate((cuprum.zeros(-diff, a2.dtype), a2))
    val = a1 + a2 if sign > 0 else a1 - a2
    return poly1d(val) if truepoly else val


def polyadd(a1, a2):
    """The sum of two polynomials (NumPy's ``polyadd``: a ``poly1d`` when either is
    one)."""
    return _padded_sum(a1, a2, 1)


def polysub(a1, a2):
    """The difference of two polynomials (NumPy's ``polysub``)."""
    return _padded_sum(a1, a2, -1)


def polymul(a1, a2):
    """The product of two polynomials: the convolution of their coefficients (NumPy's
    ``polymul``)."""
    truepoly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    val = cuprum.convolve(poly1d(a1).coeffs, poly1d(a2).coeffs)
    return poly1d(val) if truepoly else val


class poly1d:
    """A one-dimensional polynomial, coefficients highest power first, kept on the
    device (NumPy's ``poly1d``): arithmetic with polynomials, arrays and scalars, calls
    (Horner's rule), ``p[k]`` for the coefficient of ``x**k``, ``get()``/``set()`` to and
    from NumPy's ``poly1d``."""

    __hash__ = None

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, (poly1d, numpy.poly1d)):
            self._variable = c_or_r.variable if variable is None else variable
            self._coeffs = cuprum.asarray(c_or_r.coeffs).copy()
            return
        if r:
            c_or_r = poly(c_or_r)
        c = cuprum.atleast_1d(cuprum.asarray(c_or_r))
        if c.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        # (trimmed at first use, as CuPy's: constructing waits for nothing on the device)
        self._c, self._trimmed = c, False
        self._variable = "x" if variable is None else variable

    @property
    def _coeffs(self):
        if not self._trimmed:
            c = cuprum.trim_zeros(self._c, trim="f")
            self._c = cuprum.zeros((1,), dtype=c.dtype) if len(c) == 0 else c
            self._trimmed = True
        return self._c

    @_coeffs.setter
    def _coeffs(self, value):
        self._c, self._trimmed = value, True

    def __cupy_get_ndarray__(self):
        """The coefficients: functions and ufuncs take a ``poly1d`` as this array."""
        return self._coeffs

    @property
    def coeffs(self):
        """The coefficients, highest power first."""
        return self._coeffs

    @property
    def variable(self):
        """The name of the variable when printed."""
        return self._variable

    @property
    def order(self):
        """The degree."""
        return len(self._coeffs) - 1

    o = order
    c = coef = coefficients = coeffs

    @property
    def roots(self):
        """The roots (``cuprum.roots`` of the coefficients)."""
        return roots(self.coeffs)

    r = roots

    def get(self, stream=None):
        """This polynomial as NumPy's ``poly1d`` (its coefficients downloaded)."""
        return numpy.poly1d(self._coeffs.get(), variable=self._variable)

    def set(self, polyin, stream=None):
        """Takes the coefficients and variable of NumPy's ``poly1d`` ``polyin``."""
        if not isinstance(polyin, numpy.poly1d):
            raise TypeError("Only numpy.poly1d can be set to cupy.poly1d")
        self._variable = polyin.variable
        self._coeffs = cuprum.asarray(polyin.coeffs)

    def __array__(self, dtype=None, copy=None):
        h = self._coeffs.get()
        return h if dtype is None else h.astype(dtype)

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())

    def __len__(self):
        return self.order

    def __iter__(self):
        return iter(self._coeffs)

    def __call__(self, val):
        return polyval(self._coeffs, val)

    def __neg__(self):
        return poly1d(-self._coeffs)

    def __pos__(self):
        return self

    def __mul__(self, other):
        if numpy.isscalar(other):
            return poly1d(self._coeffs * other)
        return poly1d(polymul(self._coeffs, poly1d(other).coeffs))

    def __rmul__(self, other):
        if isinstance(other, cuprum.ndarray):
            return other * self._coeffs  # an array's operator: element-wise, as NumPy's
        if numpy.isscalar(other):
            return poly1d(other * self._coeffs)
        return poly1d(polymul(poly1d(other).coeffs, self._coeffs))

    def __add__(self, other):
        return poly1d(polyadd(self._coeffs, poly1d(other).coeffs))

    def __radd__(self, other):
        if isinstance(other, cuprum.ndarray):
            return other + self._coeffs  # an array's operator: element-wise, as NumPy's
        return poly1d(polyadd(poly1d(other).coeffs, self._coeffs))

    def __sub__(self, other):
        return poly1d(polysub(self._coeffs, poly1d(other).coeffs))

    def __rsub__(self, other):
        if isinstance(other, cuprum.ndarray):
            return other - self._coeffs  # an array's operator: element-wise, as NumPy's
        return poly1d(polysub(poly1d(other).coeffs, self._coeffs))

    def __pow__(self, val):
        if not numpy.isscalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res = cuprum.asarray([1])  # NumPy's start: an int64 one
        for _ in range(val):  # a float power is range's TypeError, as NumPy's
            res = polymul(self._coeffs, res)
        return poly1d(res)

    def __truediv__(self, other):
        if numpy.isscalar(other):
            return poly1d(self._coeffs / other)
        raise NotImplementedError("cuprum.poly1d divides by scalars only")

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        if self._coeffs.shape != other._coeffs.shape:
            return False
        return bool(cuprum.all(self._coeffs == other._coeffs))

    def __ne__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    def __getitem__(self, val):
        # (on the stored coefficients, trimmed or not: no wait for the device, as CuPy's)
        c = self._c
        if 0 <= val < c.size:
            return c[c.size - 1 - val]
        return cuprum.zeros((), dtype=c.dtype)

    def __setitem__(self, key, val):
        if key < 0:
            raise ValueError("Does not support negative powers.")
        c = self._c
        if key >= c.size:
            c = cuprum.concatenate((cuprum.zeros(key + 1 - c.size, c.dtype), c))
        c[c.size - 1 - key] = val
        self._c = c
