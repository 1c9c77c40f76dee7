"""NumPy's input/output and inspection routines around device arrays: the base-n
strings (``binary_repr``, ``base_repr``), the printing functions (``array_repr``,
``array_str``, ``array2string``, ``format_float_positional``,
``format_float_scientific``), the files (``save``, ``load``, ``savez``,
``savez_compressed``, ``savetxt``), the memory ranges (``byte_bounds``,
``may_share_memory``, ``shares_memory``) and ``who``.

Text and files are host things: the data is downloaded once and NumPy writes or
formats it (as CuPy does); a file read is uploaded. The memory checks only do
arithmetic on the arrays' addresses and strides: nothing is read."""

from __future__ import annotations

import copyreg
import sys

import cuprum
from cuprum._lazy import numpy


def _host(a):
    """``a`` on the host: a device array downloaded, anything else as it is."""
    return a.get() if isinstance(a, cuprum.ndarray) else a


def _scalar(x):
    """A device array's value as a Python scalar (for the functions of one number)."""
    return x.item() if isinstance(x, cuprum.ndarray) else x


# ---------------------------------------------------------------------------- base-n


def binary_repr(num, width=None):
    """The binary string of the integer ``num`` (NumPy's ``binary_repr``): a leading
    ``-`` for a negative number, or its two's complement in ``width`` bits when ``width``
    is given."""
    return numpy.binary_repr(_scalar(num), width)


def base_repr(number, base=2, padding=0):
    """The string of the integer ``number`` in ``base`` (2 to 36), with ``padding`` zeros
    in front (NumPy's ``base_repr``)."""
    return numpy.base_repr(_scalar(number), base, padding)


# ---------------------------------------------------------------------------- printing


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """The string representation of an array, ``array(...)`` as NumPy writes it (the data
    is downloaded to format it)."""
    return numpy.array_repr(_host(arr), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """The string of an array's data, as NumPy's ``array_str`` writes it."""
    return numpy.array_str(_host(a), max_line_width, precision, suppress_small)


def array2string(a, max_line_width=None, precision=None, suppress_small=None, separator=" ",
                 prefix="", *, formatter=None, threshold=None, edgeitems=None, sign=None,
                 floatmode=None, suffix="", legacy=None):  # fmt: skip
    """An array's data as a string, with NumPy's ``array2string`` options."""
    return numpy.array2string(
        _host(a),
        max_line_width,
        precision,
        suppress_small,
        separator,
        prefix,
        formatter=formatter,
        threshold=threshold,
        edgeitems=edgeitems,
        sign=sign,
        floatmode=floatmode,
        suffix=suffix,
        legacy=legacy,
    )


def format_float_positional(x, precision=None, unique=True, fractional=True, trim="k",
                            sign=False, pad_left=None, pad_right=None, min_digits=None):  # fmt: skip
    """A floating-point scalar (or 0-d array) in positional notation, as NumPy's
    ``format_float_positional`` writes it."""
    if isinstance(x, cuprum.ndarray):
        x = x.get()[()]
    return numpy.format_float_positional(
        x, precision, unique, fractional, trim, sign, pad_left, pad_right, min_digits
    )


def format_float_scientific(x, precision=None, unique=True, trim="k", sign=False,
                            pad_left=None, exp_digits=None, min_digits=None):  # fmt: skip
    """A floating-point scalar (or 0-d array) in scientific notation, as NumPy's
    ``format_float_scientific`` writes it."""
    if isinstance(x, cuprum.ndarray):
        x = x.get()[()]
    return numpy.format_float_scientific(
        x, precision, unique, trim, sign, pad_left, exp_digits, min_digits
    )


# ---------------------------------------------------------------------------- files


def save(file, arr, allow_pickle=True):
    """Writes an array to a ``.npy`` file (NumPy's format; the data is downloaded)."""
    numpy.save(file, _host(arr), allow_pickle=allow_pickle)


def savez(file, *args, **kwds):
    """Writes several arrays to an uncompressed ``.npz`` file (NumPy's ``savez``)."""
    numpy.savez(file, *[_host(a) for a in args], **{k: _host(v) for k, v in kwds.items()})


def savez_compressed(file, *args, **kwds):
    """Writes several arrays to a compressed ``.npz`` file (NumPy's
    ``savez_compressed``)."""
    numpy.savez_compressed(
        file, *[_host(a) for a in args], **{k: _host(v) for k, v in kwds.items()}
    )


def savetxt(fname, X, fmt="%.18e", delimiter=" ", newline="\n", header="", footer="",
            comments="# ", encoding=None):  # fmt: skip
    """Writes a 1-D or 2-D array to a text file (NumPy's ``savetxt``)."""
    numpy.savetxt(fname, _host(X), fmt, delimiter, newline, header, footer, comments, encoding)


class NpzFile:
    """The arrays of an ``.npz`` file (what ``load`` gives for one): each read by name is
    uploaded to the current device. A context manager, as NumPy's ``NpzFile``."""

    def __init__(self, npz_file):
        self.npz_file = npz_file

    def __enter__(self):
        self.npz_file.__enter__()
        return self

    def __exit__(self, typ, val, traceback):
        self.npz_file.__exit__(typ, val, traceback)

    def __getitem__(self, key):
        return cuprum.array(self.npz_file[key])

    def __contains__(self, key):
        return key in self.npz_file

    def __iter__(self):
        return iter(self.npz_file)

    def __len__(self):
        return len(self.npz_file)

    @property
    def files(self):
        """The names of the arrays."""
        return self.npz_file.files

    def keys(self):
        """The names of the arrays."""
        return self.npz_file.keys()

    def close(self):
        """Closes the file."""
        self.npz_file.close()


def load(file, mmap_mode=None, allow_pickle=False):
    """Reads a ``.npy`` file (an array, uploaded to the current device), an ``.npz`` file
    (an ``NpzFile`` whose arrays are uploaded as they are read) or a pickle (the object;
    only with ``allow_pickle``), as NumPy's ``load``."""
    obj = numpy.load(file, mmap_mode, allow_pickle)
    if isinstance(obj, numpy.ndarray):
        return cuprum.array(obj)
    if isinstance(obj, numpy.lib.npyio.NpzFile):
        return NpzFile(obj)
    return obj


def _rebuild(host, fortran):
    """An array unpickled: the host data uploaded, in the layout it was pickled in."""
    return cuprum.array(host, order="F" if fortran else "C")


def _reduce(a):
    """How a device array is pickled: its data on the host and its layout."""
    fortran = bool(a.flags.f_contiguous and not a.flags.c_contiguous)
    return _rebuild, (a.get(), fortran)


copyreg.pickle(cuprum.ndarray, _reduce)


# ---------------------------------------------------------------------------- memory


def byte_bounds(a):
    """The first and one-past-the-last byte addresses an array's elements may occupy,
    ``(low, high)`` (NumPy's ``byte_bounds``; a device array's are device addresses)."""
    if not isinstance(a, cuprum.ndarray):
        return numpy.lib.array_utils.byte_bounds(a)
    low = high = a.data.ptr
    if a.size == 0:
        return low, high
    for n, s in zip(a.shape, a.strides):
        if s < 0:
            low += (n - 1) * s
        else:
            high += (n - 1) * s
    return low, high + a.itemsize


class _Layout:
    """An array's address, shape, strides and dtype as NumPy's array interface: NumPy
    makes a view of it that is never read, only compared by ``shares_memory``."""

    def __init__(self, a):
        self.__array_interface__ = {
            "data": (a.data.ptr, False),
            "shape": a.shape,
            "strides": a.strides,
            "typestr": a.dtype.str,
            "descr": a.dtype.descr if a.dtype.fields else [("", a.dtype.str)],
            "version": 3,
        }


def _overlap(a, b, max_work, exact):
    check = numpy.shares_memory if exact else numpy.may_share_memory
    a_dev, b_dev = isinstance(a, cuprum.ndarray), isinstance(b, cuprum.ndarray)
    if a_dev != b_dev:
        return False  # device memory and host memory never overlap
    if not a_dev:
        return check(a, b, max_work=max_work)
    if a.size == 0 or b.size == 0:
        return False
    return bool(check(numpy.asarray(_Layout(a)), numpy.asarray(_Layout(b)), max_work=max_work))


def may_share_memory(a, b, max_work=None):
    """Whether two arrays might share memory: their byte ranges overlap (with
    ``max_work=None``, as NumPy's default), or the exact answer for ``max_work=-1``."""
    return _overlap(a, b, max_work, False)


def shares_memory(a, b, max_work=None):
    """Whether two arrays share memory: some element of one is an element of the other
    (NumPy's exact answer; ``max_work`` bounds the search as NumPy's)."""
    return _overlap(a, b, max_work, True)


# ---------------------------------------------------------------------------- who


def who(vardict=None):
    """Prints the device arrays of ``vardict`` (by default the caller's globals): name,
    shape, bytes and dtype of each, and the bytes they take together (an array under two
    names counts once)."""
    if vardict is None:
        vardict = sys._getframe(1).f_globals
    rows, seen, total = [], {}, 0
    for name, var in vardict.items():
        if not isinstance(var, cuprum.ndarray):
            continue
        if id(var) in seen:
            label = f"{name} ({seen[id(var)]})"
        else:
            seen[id(var)] = label = name
            total += var.nbytes
        rows.append((label, " x ".join(str(n) for n in var.shape), str(var.nbytes), var.dtype.name))
    if rows:
        w1 = max(10, *(len(r[0]) for r in rows))
        w2 = max(10, *(len(r[1]) for r in rows))
        w3 = max(10, *(len(r[2]) for r in rows))
        head = f"Name {' ' * w1} Shape {' ' * w2} Bytes {' ' * w3} Type"
        print(head + "\n" + "=" * (len(head) + 5) + "\n")
        for name, shape, nbytes, dt in rows:
            pad1, pad2, pad3 = w1 - len(name) + 4, w2 - len(shape) + 5, w3 - len(nbytes) + 5
            print(f"{name} {' ' * pad1} {shape} {' ' * pad2} {nbytes} {' ' * pad3} {dt}")
    print(f"\nUpper bound on total bytes  =       {total}")
