"""``ndarray.flat``: the elements of an array in C order as one flat sequence, for reading
(ints, slices, index arrays, masks), writing and iteration (NumPy's and CuPy's
``flatiter``)."""

from __future__ import annotations


class flatiter:
    """A flat view of the elements of ``a`` in C order (``a.flat``)."""

    def __init__(self, a):
        self._base = a

    @property
    def base(self):
        """The array being iterated."""
        return self._base

    def __len__(self):
        return self._base.size

    def __iter__(self):
        return iter(self._base.ravel())

    def __getitem__(self, key):
        return self._base.ravel()[key]

    def __setitem__(self, key, value):
        # the flat positions selected, written with ``put`` (values repeat when shorter,
        # as NumPy's ``flat`` assignment does; any layout of the array)
        import cuprum

        a = self._base
        pos = cuprum.arange(a.size)[key]
        cuprum.put(a, pos.reshape(-1), value)

    def copy(self):
        """A flat copy of the elements."""
        return self._base.flatten()
