"""One rank of `python -m ember.distributed.run`: sets RANK/LOCAL_RANK/WORLD_SIZE from MPI's
launcher, runs the script with `import torch` resolving to ember, and on failure writes the
traceback where the launcher reads it and ends the whole job (NOTE [a failing rank ends the
job] in run.py)."""
from __future__ import annotations

import os
import runpy
import sys
import traceback


def _rank_variables() -> None:
    env = os.environ
    rank = env.get("PMI_RANK", env.get("OMPI_COMM_WORLD_RANK", env.get("RANK", "0")))
    size = env.get("PMI_SIZE", env.get("OMPI_COMM_WORLD_SIZE", env.get("WORLD_SIZE", "1")))
    local_size = int(env.get("LOCAL_WORLD_SIZE", size))
    local = env.get("MPI_LOCALRANKID", env.get("OMPI_COMM_WORLD_LOCAL_RANK",
                                                str(int(rank) % local_size)))
    env["RANK"], env["WORLD_SIZE"], env["LOCAL_RANK"] = rank, size, local
    env.setdefault("GROUP_RANK", env.get("EMBER_NODE_RANK", "0"))


def _script_traceback() -> str:
    """The exception's traceback without this wrapper's and runpy's frames."""
    kind, value, tb = sys.exc_info()
    while tb is not None and (tb.tb_frame.f_code.co_filename in (__file__, runpy.__file__)
                              or tb.tb_frame.f_code.co_filename.startswith("<frozen runpy")):
        tb = tb.tb_next
    return "".join(traceback.format_exception(kind, value, tb))


def _record_failure(code: int) -> None:
    folder = os.environ.get("EMBER_RUN_ERROR_DIR")
    text = _script_traceback()
    if folder:
        with open(os.path.join(folder, f"rank{os.environ['RANK']}.txt"), "w") as f:
            f.write(f"{code}\n{text}")


def _end(code: int) -> None:
    from ember.distributed import _mpi
    _mpi.abort_job(code)
    os._exit(code)


def main(argv) -> None:
    _rank_variables()
    from ember.utils._alias import alias_torch
    alias_torch()
    if argv[0] == "-m":
        sys.argv = argv[1:]
        run = lambda: runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        run = lambda: runpy.run_path(argv[0], run_name="__main__")
    try:
        run()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if code != 0:
            if not isinstance(stop.code, int):
                print(stop.code, file=sys.stderr)
            _record_failure(code)
            _end(code)
        raise
    except BaseException:  # noqa: BLE001 - any failure of the script ends the job
        print(f"[rank {os.environ['RANK']}] failed:\n{_script_traceback()}", file=sys.stderr,
              end="")
        _record_failure(1)
        _end(1)


if __name__ == "__main__":
    main(sys.argv[1:])
