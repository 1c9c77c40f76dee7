"""CuPy's bit generators (``cupy.random._bit_generator``): ``XORWOW``, ``MRG32k3a`` and
``Philox4x3210`` by name, each a stream of cuprum's counter-based Philox generator keyed by
the seed and the generator's kind (``cuprum.random._generator_api`` says why).
"""

from __future__ import annotations

from cuprum import _cuprum
from cuprum._lazy import numpy as _numpy
from cuprum.random._composed import _shape_of


def _seed64(seed):
    """A 64-bit seed from NumPy's seeds (``None``, an int, a sequence of ints, a
    ``SeedSequence``), through a ``SeedSequence`` as NumPy's bit generators take them."""
    if isinstance(seed, _numpy.random.SeedSequence):
        seq = seed
    else:
        seq = _numpy.random.SeedSequence(seed)
    return int(seq.generate_state(1, _numpy.uint64)[0])


class BitGenerator:
    """A stream of random bits on the device (cuprum's Philox stream, keyed by the seed and
    the generator's kind)."""

    _KIND = 0

    def __init__(self, seed=None):
        self._seed = _seed64(seed)
        key = (self._seed ^ (self._KIND * 0x9E3779B97F4A7C15)) & 0xFFFFFFFFFFFFFFFF
        self._generator = _cuprum.Generator(key, False)

    def random_raw(self, size=None, output=True):
        """Raw 32-bit draws (``uint32``), or ``None`` with ``output=False``."""
        shape = _shape_of(size) if size is not None else ()
        r = self._generator.randint(0, 2**32, shape, _numpy.dtype(_numpy.uint32))
        return r if output else None


class XORWOW(BitGenerator):
    """CuPy's default bit generator's name (cuprum's Philox stream underneath)."""

    _KIND = 1


class MRG32k3a(BitGenerator):
    """CuPy's MRG32k3a bit generator's name (cuprum's Philox stream underneath)."""

    _KIND = 2


class Philox4x3210(BitGenerator):
    """CuPy's Philox4x32-10 bit generator's name (cuprum's Philox stream)."""

    _KIND = 3
