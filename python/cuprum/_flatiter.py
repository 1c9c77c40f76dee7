"""``ndarray.flat``: the elements of an array in C order as one flat sequence, for reading
(ints, slices, index arrays, masks), writing and iteration (NumPy's and CuPy's
``flatiter``)."""

from __future__ import annotations


class flatiter:
    """A flat view of the elements of ``a`` in C order (``a.flat``)."""

    def __init__(self, a):
        self._base = a
        self._index = 0
        self._items = None  # the flat elements, while iterating

    @property
    def base(self):
        """The array being iterated."""
        return self._base

    @property
    def index(self):
        """The flat position of the next element."""
        return self._index

    def __len__(self):
        return self._base.size

    def __iter__(self):
        return self

    def __next__(self):
        if self._index >= self._base.size:
            self._items = None
            raise StopIteration
        if self._items is None:
            self._items = self._base.ravel()
        item = self._items[self._index]
        self._index += 1
        return item

    @staticmethod
    def _check(key):
        # None, tuples and bools are refused (NumPy deprecates the last two; CuPy's
        # IndexError), index arrays and lists taken as NumPy takes them
        if key is None or isinstance(key, (tuple, bool)) or type(key).__name__ == "bool_":
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`) and integer or boolean arrays "
                "are valid indices"
            )

    def __getitem__(self, key):
        self._check(key)
        return self._base.ravel()[key]

    def __setitem__(self, key, value):
        # the flat positions selected, written with ``put`` (values repeat when shorter,
        # as NumPy's ``flat`` assignment does; any layout of the array)
        import cuprum

        self._check(key)
        a = self._base
        pos = cuprum.arange(a.size)[key]
        cuprum.put(a, pos.reshape(-1), value)

    def copy(self):
        """A flat copy of the elements."""
        return self._base.flatten()
