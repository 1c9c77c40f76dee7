"""CuPy's ``testing._condition`` decorators for tests of random results: a test body
repeated, passing when enough of the runs pass (``repeat_with_success_at_least``,
``repeat``, ``retry``)."""

from __future__ import annotations

import functools
import unittest


def _rerun(f, args, kwargs):
    """``f(*args, **kwargs)`` once: None when it passed, the failure otherwise (a skip
    is no failure: it ends the test)."""
    try:
        f(*args, **kwargs)
    except unittest.SkipTest:
        raise
    except Exception as e:  # noqa: BLE001  (any exception is a failed run, as CuPy's)
        return e
    return None


def repeat_with_success_at_least(times, min_success):
    """A decorator: the test runs up to ``times`` times and passes when at least
    ``min_success`` runs pass (it stops once that is reached, or out of reach)."""
    if not 0 <= min_success <= times:  # an AssertionError, as CuPy's
        raise AssertionError(f"min_success must be in [0, {times}], got {min_success}")

    def decorator(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            case = args[0] if args and isinstance(args[0], unittest.TestCase) else None
            successes, failures = 0, []
            for i in range(times):
                if successes >= min_success or successes + times - i < min_success:
                    break
                if case is not None and i > 0:
                    case.tearDown()
                    case.setUp()
                err = _rerun(f, args, kwargs)
                if err is None:
                    successes += 1
                else:
                    failures.append(err)
            if successes < min_success:
                said = [f"{type(e).__name__}: {e}" for e in failures[:3]]
                detail = "\n".join(said[:1] + (["then:"] + said[1:] if said[1:] else []))
                raise AssertionError(
                    f"{f.__name__} passed {successes} of the {min_success} times needed "
                    f"(of {times} tries); first error message:\n{detail}"
                )

        return wrapper

    return decorator


def repeat(times, intensive_times=None):
    """A decorator: the test must pass ``times`` runs in a row (``intensive_times`` is
    CuPy's count for its intensive mode, ignored here)."""
    return repeat_with_success_at_least(times, times)


def retry(times):
    """A decorator: the test passes when one of up to ``times`` runs passes."""
    return repeat_with_success_at_least(times, 1)
