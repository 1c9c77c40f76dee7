"""``import cupy`` → cuprum, for CuPy's own tests.

``install()`` puts cuprum in ``sys.modules`` as ``cupy`` (and each cuprum submodule under
its CuPy name: ``cupy.testing`` is ``cuprum.testing``, ``cupy.cuda`` is ``cuprum.cuda``),
adds the stand-ins of ``shims`` for what CuPy's tests reach for and cuprum does not have
(CuPy's internals, its CUDA runtime queries), and puts a finder first on
``sys.meta_path`` that answers every other ``cupy.*``, ``cupyx.*`` and
``cupy_backends.*`` import: a cuprum module of that name when there is one, else a
stand-in module. The installed CuPy is never imported.

A stand-in (``Stand``) lets a test file import and define its classes; used inside a test
it raises ``NotApplicable`` for a private CuPy name (``cupy._core.…``: a test of CuPy's
internals) or ``MissingInCuprum`` for a public one (``cupy.cuda.cufft.…``: a feature
cuprum lacks). Names are only ever added to cuprum's modules, never replaced.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import pkgutil
import sys
import types

ROOTS = ("cupy", "cupyx", "cupy_backends")

# Whether a test is running (set by the plugin): outside tests (imports, class bodies,
# skipif conditions) stand-ins are lenient, inside they raise.
state = {"in_test": False}
# Every name the alias added or made up, for the summary: name -> what it is.
added: dict[str, str] = {}


class NotApplicable(Exception):
    """The test reached a CuPy internal: it tests CuPy's implementation, not the API
    cuprum mirrors."""


class MissingInCuprum(Exception):
    """The test reached a public CuPy name that cuprum does not have."""


def _private(name):
    return any(part.startswith("_") for part in name.split(".")[1:])


def _verdict(name):
    if _private(name):
        return NotApplicable(f"CuPy internal `{name}`")
    return MissingInCuprum(f"cuprum has no `{name}`")


class Stand:
    """A stand-in for the CuPy name ``name``: attributes are more stand-ins; calling it,
    or asking its truth, raises (during a test) or gives another stand-in (``False``)
    outside one. Attributes can be set (``mock.patch`` on it works)."""

    def __init__(self, name):
        object.__setattr__(self, "_stand_name", name)
        added.setdefault(name, "stand-in")

    def _stand_fail(self):
        raise _verdict(self._stand_name)

    def __getattr__(self, attr):
        if attr in ("__name__", "__qualname__", "__module__") and state["in_test"]:
            self._stand_fail()  # a test naming a CuPy object (to mock it, say)
        if attr.startswith("__"):
            raise AttributeError(attr)
        if state["in_test"] and not _private(self._stand_name):
            self._stand_fail()
        return Stand(f"{self._stand_name}.{attr}")

    def __call__(self, *args, **kwargs):
        if state["in_test"]:
            self._stand_fail()
        return Stand(f"{self._stand_name}()")

    def __bool__(self):
        if state["in_test"]:
            self._stand_fail()
        return False

    def _compare(self, other):
        if state["in_test"]:
            self._stand_fail()
        return False

    __lt__ = __le__ = __gt__ = __ge__ = _compare

    def __int__(self):
        self._stand_fail()

    __index__ = __float__ = __iter__ = __len__ = __int__

    def __repr__(self):
        return f"<stand-in for {self._stand_name}>"


class StandModule(types.ModuleType):
    """A module whose missing attributes are stand-ins."""

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return Stand(f"{self.__name__}.{attr}")


def stand_module(name, doc, **names):
    """A ``StandModule`` ``name`` holding ``names``."""
    m = StandModule(name, doc)
    m.__path__ = []  # a package: its submodules are imported through the finder
    m.__dict__.update(names)
    added[name] = doc
    return m


class _Existing(importlib.abc.Loader):
    """Loads a module object that already exists (the alias or a stand-in)."""

    def __init__(self, module):
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # importlib has just set the alias spec on the module: a cuprum module keeps its own.
        if self.spec is not None:
            module.__spec__ = self.spec


class _Finder(importlib.abc.MetaPathFinder):
    """Answers every import under CuPy's roots, before any other finder."""

    def find_spec(self, fullname, path=None, target=None):
        root = fullname.partition(".")[0]
        if root not in ROOTS:
            return None
        module = sys.modules.get(fullname)
        if module is None:
            module = _resolve(fullname)
        is_package = hasattr(module, "__path__") or isinstance(module, StandModule)
        return importlib.machinery.ModuleSpec(fullname, _Existing(module), is_package=is_package)


def _resolve(fullname):
    """The module for an import nobody registered: cuprum's of that name, else a
    stand-in module."""
    root, _, rest = fullname.partition(".")
    if root == "cupy" and rest:
        try:
            module = importlib.import_module(f"cuprum.{rest}")
        except ImportError:
            module = None
        if module is not None:
            sys.modules[fullname] = module
            return module
    module = stand_module(fullname, "stand-in module (nothing of cuprum's has this name)")
    sys.modules[fullname] = module
    return module


def _cuprum_modules():
    """cuprum and every submodule of it, imported."""
    import cuprum

    found = {"cuprum": cuprum}
    for info in pkgutil.walk_packages(cuprum.__path__, "cuprum.", onerror=lambda name: None):
        if info.name.startswith("cuprum._cuprum"):
            continue
        try:
            found[info.name] = importlib.import_module(info.name)
        except Exception as e:  # noqa: BLE001  (one broken submodule leaves the others)
            added[f"cupy{info.name[len('cuprum') :]}"] = f"not aliased: {type(e).__name__}: {e}"
    return found


def add(module, name, value):
    """``module.name = value`` unless ``module`` has ``name`` (recorded in ``added``)."""
    if not hasattr(module, name):
        setattr(module, name, value)
        added[f"{module.__name__}.{name}"] = getattr(value, "__doc__", "") or repr(value)


_installed = False


def install():
    """Puts the alias in place (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    for name in list(sys.modules):
        if name.partition(".")[0] in ROOTS and not _ours(sys.modules[name]):
            raise RuntimeError(
                f"{name} was imported before the cuprum alias: CuPy itself is loaded "
                f"({getattr(sys.modules[name], '__file__', '?')})"
            )
    from cupy_core_tests import shims

    modules = _cuprum_modules()
    for name, module in modules.items():
        sys.modules["cupy" + name[len("cuprum") :]] = module
    sys.meta_path.insert(0, _Finder())
    shims.install(modules)


def _ours(module):
    """Whether a module under CuPy's names is the alias's (cuprum's, a stand-in, or one of
    the ``alias_site`` packages being imported)."""
    if isinstance(module, StandModule):
        return True
    name = getattr(module, "__name__", "")
    if name.startswith("cuprum"):
        return True
    return "alias_site" in (getattr(module, "__file__", None) or "")


def real_cupy_modules():
    """Modules under CuPy's names that are not the alias's: should be empty."""
    return sorted(
        name
        for name, module in sys.modules.items()
        if name.partition(".")[0] in ROOTS and module is not None and not _ours(module)
    )
