"""Where the CUDA toolkit is: ``get_cuda_path`` (the root above the NVRTC cuprum compiles
with) and ``get_nvcc_path``, as CuPy's ``cupy.cuda`` answers them; ``None`` where there is
none. Each is looked up once per process."""

from __future__ import annotations

import functools
import os
import re
import shutil
import site
import sys

from cuprum import _cuprum


def _nvrtc_location():
    """The path and origin of the NVRTC library cuprum found (``config()``'s ``NVRTC``
    row, ``'<path> (<how it was found>)'``), or ``(None, None)``."""
    row = _cuprum.config().get("NVRTC", "")
    path, _, origin = row.partition(" (")
    if not os.path.isabs(path) or not os.path.exists(path):
        return None, None
    return path, origin


@functools.cache
def get_cuda_path():
    """The CUDA root: two folders above the NVRTC library cuprum uses (a pip wheel's
    ``nvidia/cu<NN>`` folder; ``None`` for the older wheels that split CUDA over several
    folders), else ``/usr/local/cuda`` where it exists, else ``None``."""
    path, origin = _nvrtc_location()
    if path is not None:
        root = os.path.dirname(os.path.dirname(os.path.realpath(path)))
        if origin.startswith("pip wheel"):
            return root if re.search(r"site-packages.*nvidia.*cu\d{2}", root) else None
        return root
    if os.path.exists("/usr/local/cuda"):
        return "/usr/local/cuda"
    return None


def _site_dirs():
    dirs = list(getattr(site, "getsitepackages", list)())
    user = getattr(site, "getusersitepackages", lambda: None)()
    if user:
        dirs.append(user)
    dirs += [p for p in sys.path if p.endswith("site-packages")]
    return list(dict.fromkeys(dirs))


@functools.cache
def get_nvcc_path():
    """The ``nvcc`` command: ``$NVCC`` when set (it may hold arguments, ``ccache nvcc``),
    else the first ``nvcc`` of NVIDIA's pip wheels, the conda environment, ``$CUDA_HOME``
    or ``$CUDA_PATH``, or the CUDA root's ``bin``; ``None`` where there is none."""
    nvcc = os.environ.get("NVCC")
    if nvcc is not None:
        return nvcc
    bins = []
    for d in _site_dirs():
        nvidia = os.path.join(d, "nvidia")
        if os.path.isdir(nvidia):
            for sub in sorted(os.listdir(nvidia)):
                bins.append(os.path.join(nvidia, sub, "bin"))
    for var in ("CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            bins.append(os.path.join(os.environ[var], "bin"))
    root = get_cuda_path()
    if root is not None:
        bins.append(os.path.join(root, "bin"))
    for b in bins:
        found = shutil.which("nvcc", path=b)
        if found is not None:
            return found
    return None
