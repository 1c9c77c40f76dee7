"""Class parameterisation: ``parameterize`` (each parameter set becomes attributes of the
test instance) and the helpers that build parameter sets (``product``,
``product_dict``)."""

from __future__ import annotations

import itertools
import sys
import types
import unittest


def product(parameter):
    """Every combination of a dict of lists, as dicts (keys sorted):
    ``product({'a': [1, 2], 'b': [3]})`` → ``[{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]``."""
    if not isinstance(parameter, dict):
        raise TypeError("product takes a dict of lists")
    keys = sorted(parameter)
    return [dict(zip(keys, values)) for values in itertools.product(*(parameter[k] for k in keys))]


def product_dict(*parameters):
    """Every combination of one dict from each list, merged:
    ``product_dict([{'a': 1}, {'a': 2}], [{'b': 3}])`` → ``[{'a': 1, 'b': 3}, {'a': 2,
    'b': 3}]``."""
    return [{k: v for d in dicts for k, v in d.items()} for dicts in itertools.product(*parameters)]


def _short(text, limit):
    if len(text) <= limit:
        return text
    head = (limit - 3) // 2
    return text[:head] + "..." + text[len(text) - (limit - 3 - head) :]


def _value_text(v):
    name = getattr(v, "__name__", None)
    return name if isinstance(name, str) else repr(v)


def _param_id(i, param):
    body = ", ".join(f"{k}={_short(_value_text(v), 100)}" for k, v in sorted(param.items()))
    return f"_param_{i}_{{{_short(body, 5000)}}}"


def _attributes(param):
    # A function value stays a plain function on the instance (not a bound method).
    return {
        k: staticmethod(v) if isinstance(v, types.FunctionType) else v for k, v in param.items()
    }


def parameterize(*params, **kwargs):
    """Runs every test of the decorated class once per parameter dict, with the dict's
    items as attributes of the test instance (``self.shape`` …).

    A ``unittest.TestCase`` class is replaced by one subclass per dict, named
    ``<Class>_param_<i>_{k=v, …}``, added to its module (the decorator returns
    ``None``). Any other class is parametrised with pytest: its tests get the ids
    ``_param_<i>_{k=v, …}``.
    """

    def decorate(cls):
        if issubclass(cls, unittest.TestCase):
            if kwargs:
                raise TypeError("parameterize of a unittest.TestCase takes no keywords")
            module = sys.modules[cls.__module__]
            for i, param in enumerate(params):
                name = f"{cls.__name__}{_param_id(i, param)}"
                sub = type(name, (cls,), _attributes(param))
                sub.__module__ = cls.__module__
                setattr(module, name, sub)
            return None
        return _pytest_parameterize(cls, params)

    return decorate


def _pytest_parameterize(cls, params):
    import pytest

    if getattr(cls, "_cuprum_testing_parameterized", False):
        raise RuntimeError("do not `@testing.parameterize` twice")

    @pytest.fixture(autouse=True)
    def _cuprum_testing_apply(self, _cuprum_testing_param):
        for k, v in _attributes(_cuprum_testing_param).items():
            setattr(self, k, v.__func__ if isinstance(v, staticmethod) else v)

    sub = type(
        cls.__name__,
        (cls,),
        {"_cuprum_testing_parameterized": True, "_cuprum_testing_apply": _cuprum_testing_apply},
    )
    sub.__module__ = cls.__module__
    sub.__qualname__ = cls.__qualname__
    values = [pytest.param(p, id=_param_id(i, p)) for i, p in enumerate(params)]
    return pytest.mark.parametrize("_cuprum_testing_param", values)(sub)
