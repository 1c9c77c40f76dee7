"""CuPy's own kernel-API tests run against cuprum (``scripts/cupy-core-tests``).

``alias`` makes ``import cupy`` (``cupyx``, ``cupy_backends``) give cuprum and stand-ins
for CuPy's internals, so CuPy's test files run unchanged and the real CuPy is never
imported; ``plugin`` is the pytest plugin that installs it before collection, sorts each
test into passed / failed / skipped / not applicable, and writes the summary;
``not_applicable`` lists the tests of CuPy's internals, with the reason each does not
apply. ``alias_site/`` holds ``cupy``, ``cupyx`` and ``cupy_backends`` packages that
install the alias, for subprocesses the tests start.
"""
