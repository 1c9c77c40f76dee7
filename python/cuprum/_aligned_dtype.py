"""``make_aligned_dtype``: a structured dtype laid out as a CUDA C++ struct of its fields
(CuPy's): each field at the next offset its device type's alignment allows, the item size
rounded up to the largest alignment. NumPy's ``align=True`` is not enough: a complex
field is aligned to its whole size on the device (``thrust::complex``), to its part's size
on the host.

The dtype carries a requested larger alignment as metadata (``__cuda_alignment__``), which
a field of that dtype then honours when nested in another."""

from __future__ import annotations

from cuprum._lazy import numpy

# A scalar's alignment in device code, by NumPy scalar type: its size, for every dtype
# cuprum's kernels take.
_DEVICE_ALIGNMENT = {
    "bool": 1,
    "int8": 1,
    "uint8": 1,
    "int16": 2,
    "uint16": 2,
    "int32": 4,
    "uint32": 4,
    "int64": 8,
    "uint64": 8,
    "float16": 2,
    "float32": 4,
    "float64": 8,
    "complex64": 8,
    "complex128": 16,
}


def _scalar_alignment(dt):
    """The device alignment of an unstructured dtype (a subarray's is its element's, a
    raw ``V<n>`` blob's is 1)."""
    if dt.subdtype is not None:
        base = dt.subdtype[0]
        if base.fields is not None:
            raise ValueError("CuPy does not yet support subarray dtypes.")
        return _scalar_alignment(base)
    if dt.kind == "V" and dt.itemsize > 0:
        return 1
    if dt.kind in "biufc":
        a = _DEVICE_ALIGNMENT.get(numpy.dtype(dt.type).name)
        if a is not None:
            return a
    raise ValueError(f"Unsupported dtype {dt}")


def _layout(dtype, alignment, recurse):
    """The aligned dtype of ``dtype`` and its alignment."""
    descr = numpy.dtype(dtype, align=True)
    if alignment != -1 and (alignment <= 0 or alignment & (alignment - 1)):
        raise ValueError("Reasonable alignments must be >0 and a power of 2.")
    structured = descr.fields is not None
    if not structured:
        final = _scalar_alignment(descr)
        end = descr.itemsize
    else:
        final, end, lowest = 1, 0, 0
        names, offsets, formats = [], [], []
        # every entry of `fields` (a title is one more entry, at its field's offset: such
        # a dtype is refused as out of order, as CuPy refuses it)
        for name, (sub, offset, *_) in descr.fields.items():
            if offset < lowest:
                raise ValueError(
                    "make_aligned_dtype() only supports well behaved in-order fields as it "
                    "ignores field offsets."
                )
            lowest = offset + sub.itemsize
            a = (sub.metadata or {}).get("__cuda_alignment__")
            if a is None:
                if sub.fields is None:
                    a = _scalar_alignment(sub)
                elif not recurse:
                    a = sub.alignment  # (taken to be aligned already)
                else:
                    sub, a = _layout(sub, -1, recurse)
            end = -(-end // a) * a
            final = max(final, a)
            names.append(name)
            formats.append(sub)
            offsets.append(end)
            end += sub.itemsize
    extra = {}
    if alignment != -1:
        if alignment < final:
            raise ValueError(
                f"make_aligned_dtype(): given alignment={alignment} smaller than minimum "
                f"alignment {final}"
            )
        final = alignment
        extra = {"metadata": {"__cuda_alignment__": alignment}}
    itemsize = -(-end // final) * final
    if not structured:
        if descr.itemsize != itemsize:
            raise ValueError("Alignment larger than itemsize for non-structured dtype.")
        return numpy.dtype(descr, align=True, **extra), final
    if descr.itemsize > itemsize:
        raise ValueError("Input descriptor had larger itemsize than inferred.")
    spec = {"names": names, "offsets": offsets, "formats": formats, "itemsize": itemsize}
    return numpy.dtype(spec, align=True, **extra), final


def make_aligned_dtype(dtype, *, alignment=-1, recurse=True):
    """A structured dtype with ``dtype``'s fields at offsets aligned as on the device
    (padded where needed), its size a multiple of its alignment; ``alignment`` asks for a
    larger one (kept as the dtype's ``__cuda_alignment__`` metadata); with ``recurse=False``
    nested structs are taken as aligned already."""
    descr = numpy.dtype(dtype, align=True)
    if descr.fields is None:
        raise ValueError("make_aligned_dtype() only supports structured dtypes.")
    return _layout(dtype, int(alignment), bool(recurse))[0]
