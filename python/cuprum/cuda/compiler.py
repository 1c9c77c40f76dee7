"""``cuprum.cuda.compiler``: CuPy's ``cupy.cuda.compiler`` as far as programs use it —
``CompileException`` (a failed compile: ``get_message()``, ``dump(f)``) and
``compile_using_nvrtc``, a compile to a loadable image without loading it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cuprum import _cuprum
from cuprum._cuprum import CompileException  # noqa: F401

_NOT_GIVEN = object()


def compile_using_nvrtc(
    source: str | bytes,
    options: Sequence[str] = (),
    arch: str | int | None = None,
    filename: str = "kern.cu",
    name_expressions: Sequence[str] | None = None,
    log_stream: Any = None,
    cache_in_memory: bool = False,
    jitify: Any = _NOT_GIVEN,
) -> tuple[bytes, dict[str, str] | None]:
    """Compiles CUDA C++ ``source`` with NVRTC for compute capability ``arch`` (``'90'``;
    default: the current GPU's) and returns ``(image, mapping)``: a cubin (``bytes``) where
    NVRTC knows the architecture, else PTX, and ``{name expression: lowered name}`` for the
    ``name_expressions`` given (else ``None``). NVRTC's log goes to ``log_stream`` (an
    object with ``write``). The image comes from cuprum's kernel cache when it holds it
    (``cache_in_memory`` is accepted for CuPy's signature). A failed compile raises
    ``CompileException``."""
    del cache_in_memory
    if isinstance(source, bytes):
        source = source.decode("utf-8")
    image, mapping, log = _cuprum._compile_using_nvrtc(
        source,
        [str(o) for o in options],
        None if arch is None else str(arch),
        str(filename),
        None if name_expressions is None else [str(e) for e in name_expressions],
        None if jitify is _NOT_GIVEN else jitify,
    )
    if log_stream is not None and log:
        log_stream.write(log)
    return image, mapping
