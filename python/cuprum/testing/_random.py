"""CuPy's ``testing.fix_random``: a test run with NumPy's and cuprum's global random
generators seeded with fixed values, NumPy's state restored afterwards; and
``generate_seed``, a seed drawn from NumPy's global generator (fixed under
``fix_random``)."""

from __future__ import annotations

import functools
import inspect


def _wrap(impl):
    @functools.wraps(impl)
    def test_func(*args, **kwargs):
        import numpy

        import cuprum

        state = numpy.random.get_state()
        numpy.random.seed(0)
        cuprum.random.seed(0)
        try:
            return impl(*args, **kwargs)
        finally:
            numpy.random.set_state(state)
            cuprum.random.seed()

    return test_func


def fix_random():
    """A decorator of a test function, or of each ``test*`` method of a class: the
    random generators of NumPy and cuprum are seeded with 0 for the test."""

    def decorator(impl):
        if inspect.isclass(impl):
            for name, member in list(vars(impl).items()):
                if name.startswith("test") and callable(member):
                    setattr(impl, name, _wrap(member))
            return impl
        return _wrap(impl)

    return decorator


def generate_seed():
    """A seed for a test's own generator, drawn from NumPy's global one (so the same
    seed each run under ``fix_random``)."""
    import numpy

    return numpy.random.randint(0x7FFFFFFF)
