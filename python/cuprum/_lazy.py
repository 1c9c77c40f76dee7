"""NumPy, imported where first used rather than by ``import cuprum``.

Decision: ``import cuprum`` costs what cuprum's own modules cost, not NumPy's import (about
as long again as everything else together); a program that reaches for NumPy's names
(``cp.float32``, a ``dtype=`` argument, ``asnumpy``) imports it then, once. The modules of
the package write ``numpy.x`` as usual against :data:`numpy` here, a stand-in that imports
NumPy at its first attribute access and keeps each attribute it hands out, so a later
``numpy.integer`` is an ordinary attribute read. ``cuprum``'s own re-exports of NumPy's
names (the scalar types, ``dtype``, ``finfo``, ``iinfo``, ``AxisError``) resolve through the
package's module ``__getattr__`` the same way.
"""

from __future__ import annotations

import importlib
from typing import Any


class _LazyModule:
    """A module imported at its first attribute access; each attribute read is kept."""

    def __init__(self, name: str) -> None:
        self.__dict__["_lazy_module_name"] = name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._lazy_load(), attr)
        self.__dict__[attr] = value
        return value

    def _lazy_load(self) -> Any:
        """The module itself (imported now if it was not)."""
        return importlib.import_module(self.__dict__["_lazy_module_name"])

    def __repr__(self) -> str:
        return f"<lazily imported module {self.__dict__['_lazy_module_name']!r}>"


numpy: Any = _LazyModule("numpy")
