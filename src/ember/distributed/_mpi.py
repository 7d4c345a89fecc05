"""mpi4py, loaded on first use: `import ember` and `import ember.distributed` never load MPI.

NOTE [MPI loads on first use]: `mpi()` imports mpi4py (which initialises MPI) the first time a
process group is made. Importing it initialises MPI, so it must not happen at import time: a
process that never calls init_process_group must not become an MPI singleton.
"""
from __future__ import annotations

import importlib.util
import os
import sys

_MPI = None

# Variables MPICH's hydra (and Open MPI's launcher) set in each process it starts.
_LAUNCHER_VARIABLES = ("PMI_RANK", "PMI_SIZE", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_FD",
                       "HYDI_CONTROL_FD", "MPI_LOCALNRANKS")


def available() -> bool:
    """Whether mpi4py is installed (found without importing it)."""
    return _MPI is not None or importlib.util.find_spec("mpi4py") is not None


def launched_by_mpiexec() -> bool:
    return any(name in os.environ for name in _LAUNCHER_VARIABLES)


def mpi():
    """The `mpi4py.MPI` module (MPI initialised on the first call)."""
    global _MPI
    if _MPI is None:
        if not available():
            raise RuntimeError(
                "ember.distributed needs mpi4py and an MPI library: pip install mpi4py mpich")
        import mpi4py
        mpi4py.rc.threads = True
        mpi4py.rc.thread_level = "multiple"
        from mpi4py import MPI
        _MPI = MPI
        _install_abort_on_uncaught_exception()
    return _MPI


# NOTE [an uncaught exception aborts the job]: a rank that ends with an exception would run
# MPI_Finalize at exit, which waits for the other ranks, while they wait in a collective for
# it: the job hangs (mpiexec -n 2 python script.py). Once MPI is loaded, an exception that
# reaches the top of the program prints its traceback and calls MPI_Abort, so mpiexec ends every
# rank at once with a non-zero exit. (A rank that is killed is noticed by mpiexec itself.)
_previous_hook = None


def _abort_hook(kind, value, traceback) -> None:
    (_previous_hook or sys.__excepthook__)(kind, value, traceback)
    abort_job(1)


def abort_job(code: int) -> None:
    """End every rank of the job with exit status `code` (nothing when this process is alone)."""
    sys.stderr.flush()
    sys.stdout.flush()
    if _MPI is not None and _MPI.Is_initialized() and not _MPI.Is_finalized() \
            and _MPI.COMM_WORLD.Get_size() > 1:
        _MPI.COMM_WORLD.Abort(code)


def _install_abort_on_uncaught_exception() -> None:
    global _previous_hook
    if sys.excepthook is not _abort_hook:
        _previous_hook = sys.excepthook
        sys.excepthook = _abort_hook
