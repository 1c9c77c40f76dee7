"""``cuprum.polynomial``: NumPy's power-series helpers on device arrays
(``polynomial.polyvander``, ``polynomial.polycompanion``; ``polyutils.as_series``,
``polyutils.trimseq``, ``polyutils.trimcoef``)."""

from __future__ import annotations

from cuprum.polynomial import polynomial, polyutils  # noqa: F401
