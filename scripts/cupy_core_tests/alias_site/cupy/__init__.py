"""Stand-in found on ``PYTHONPATH`` before any installed CuPy: installs cuprum's alias
(``cupy_core_tests.alias``), which puts cuprum and the stand-ins in ``sys.modules``; this
import then returns that module, never CuPy's."""

from cupy_core_tests import alias

alias.install()
