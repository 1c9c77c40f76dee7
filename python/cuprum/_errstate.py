"""``cuprum.errstate``, ``seterr`` and ``geterr``: CuPy's ``cupyx`` error configuration,
per thread.

``linalg`` is the setting that acts: ``'ignore'`` (the default, CuPy's) leaves the
results of a failed factorization as they come (infinities, NaNs), ``'raise'`` makes
``solve``, ``inv`` and ``cholesky`` check them and raise NumPy's ``LinAlgError``
(``Singular matrix``, ``Matrix is not positive definite``), which waits for the device.
``divide``, ``over``, ``under`` and ``invalid`` take NumPy's values and are kept, so
NumPy code that sets them runs; device arithmetic never signals floating-point errors,
as CuPy's does not, so they change nothing.
"""

from __future__ import annotations

import contextlib
import threading

_NUMPY_MODES = (None, "ignore", "warn", "raise", "call", "print", "log")
_state = threading.local()
# NumPy's defaults for the floating-point categories, CuPy's for linalg
_DEFAULTS = {
    "divide": "warn",
    "over": "warn",
    "under": "ignore",
    "invalid": "warn",
    "linalg": "ignore",
}


def geterr():
    """The current settings: ``{'divide', 'over', 'under', 'invalid', 'linalg'}``."""
    return {name: getattr(_state, name, mode) for name, mode in _DEFAULTS.items()}


def seterr(*, all=None, divide=None, over=None, under=None, invalid=None, linalg=None):
    """Sets the error handling of this thread; returns the previous settings. ``linalg``
    is ``'ignore'`` or ``'raise'``; the floating-point categories take NumPy's values
    (``all`` sets the four) and have no effect on device arithmetic."""
    old = geterr()
    new = {"divide": divide, "over": over, "under": under, "invalid": invalid}
    for name, mode in new.items():
        new[name] = all if mode is None else mode
        if new[name] not in _NUMPY_MODES:
            raise ValueError(f"invalid value for {name}: {new[name]!r}")
    if linalg not in (None, "ignore", "raise"):
        raise NotImplementedError(
            f"linalg={linalg!r}: cuprum handles linear-algebra errors by 'ignore' or 'raise'"
        )
    new["linalg"] = linalg
    # None leaves a setting as it is (NumPy's seterr)
    _restore({k: v for k, v in new.items() if v is not None})
    return old


def _restore(settings):
    for name, mode in settings.items():
        setattr(_state, name, mode)


@contextlib.contextmanager
def errstate(*, all=None, divide=None, over=None, under=None, invalid=None, linalg=None):
    """``seterr`` for the ``with`` block, the previous settings restored after it."""
    old = seterr(all=all, divide=divide, over=over, under=under, invalid=invalid, linalg=linalg)
    try:
        yield
    finally:
        _restore(old)


def linalg_raises():
    """Whether linear-algebra functions check their results (``linalg='raise'``)."""
    return getattr(_state, "linalg", "ignore") == "raise"
