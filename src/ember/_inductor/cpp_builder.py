"""Compiling generated C into a shared object, cached on disk, loaded with ctypes.

NOTE [the kernel cache]: a shared object is named by the SHA-256 of its source, the compiler
command and the CPU it was built for (its model and feature flags, since `-march=native`
code may not run elsewhere), under `$EMBER_CACHE_DIR/inductor` (default
`~/.cache/ember/inductor`). It is compiled to a temporary name in that folder and renamed into
place, so a process never loads a half-written file and two processes building the same
kernel both end with a whole one; a later process finds the file and compiles nothing.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile

from ember._inductor import metrics

# -fno-math-errno: the kernels never read errno, and with it sqrt is one instruction.
FLAGS = ("-O3", "-march=native", "-fno-math-errno", "-fopenmp", "-shared", "-fPIC")
_loaded: dict = {}


def compiler():
    """The C compiler's path (`$CC`, else `cc`), or None when there is none."""
    return shutil.which(os.environ.get("CC") or "cc")


@functools.cache
def vector_math() -> bool:
    """Whether glibc's libmvec has the SIMD math functions (NOTE [vector math])."""
    name, version = platform.libc_ver()
    if name != "glibc" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    return tuple(int(p) for p in version.split(".")[:2]) >= (2, 35)


def cache_dir() -> str:
    root = os.environ.get("EMBER_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "ember")
    return os.path.join(root, "inductor")


@functools.cache
def _cpu_id() -> str:
    parts = [platform.machine()]
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "flags", "Features")):
                    parts.append(line.strip())
                if len(parts) >= 3:
                    break
    except OSError:
        parts.append(platform.processor())
    return "\n".join(parts)


@functools.cache
def _compiler_id(cc: str) -> str:
    done = subprocess.run([cc, "--version"], capture_output=True, text=True, check=False)
    return cc + "\n" + done.stdout.splitlines()[0] if done.stdout else cc


def cache_key(source: str, cc: str) -> str:
    text = "\0".join((source, " ".join(FLAGS), str(vector_math()), _compiler_id(cc), _cpu_id()))
    return hashlib.sha256(text.encode()).hexdigest()


def load(source: str, kernel_params: dict):
    """The compiled module of `source` (compiled or found in the cache); `kernel_params`
    maps each kernel's name to its numbers of pointer and of size (int64) arguments."""
    cc = compiler()
    key = cache_key(source, cc)
    lib = _loaded.get(key)
    if lib is None:
        path = _build(source, cc, key)
        lib = _loaded[key] = ctypes.CDLL(path)
    functions = {}
    for name, (count, sizes) in kernel_params.items():
        fn = getattr(lib, name)
        fn.argtypes = [ctypes.c_void_p] * count + [ctypes.c_int64] * sizes
        fn.restype = None
        functions[name] = fn
    return functions


def _build(source: str, cc: str, key: str) -> str:
    folder = cache_dir()
    path = os.path.join(folder, key + ".so")
    if os.path.exists(path):
        metrics.disk_cache_hits += 1
        return path
    os.makedirs(folder, exist_ok=True)
    fd, c_path = tempfile.mkstemp(suffix=".c", prefix=key[:16] + "-", dir=folder)
    with os.fdopen(fd, "w") as f:
        f.write(source)
    fd, tmp_so = tempfile.mkstemp(suffix=".so.tmp", prefix=key[:16] + "-", dir=folder)
    os.close(fd)
    command = [cc, *FLAGS, c_path, "-o", tmp_so] + (["-lmvec"] if vector_math() else []) + \
        ["-lm"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        os.unlink(tmp_so)
        os.unlink(c_path)
        raise RuntimeError(f"inductor: the C compiler failed ({' '.join(command)}):\n"
                           f"{done.stderr}")
    metrics.cpp_compiles += 1
    os.replace(c_path, os.path.join(folder, key + ".c"))   # kept beside it, for reading
    os.replace(tmp_so, path)
    return path
