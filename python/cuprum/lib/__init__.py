"""``cuprum.lib``: NumPy's ``lib`` namespace as far as cuprum has it
(``lib.stride_tricks``)."""

from __future__ import annotations

from cuprum.lib import stride_tricks  # noqa: F401
