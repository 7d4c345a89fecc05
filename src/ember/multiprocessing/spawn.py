"""`spawn(fn, args, nprocs)`: run `fn(i, *args)` in `nprocs` processes, wait for them, and
raise in the parent what went wrong in a child: its exception with the child's traceback
(ProcessRaisedException) or its exit code or signal (ProcessExitedException). When one child
fails the others are terminated. `join=False` returns the ProcessContext to join later."""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import tempfile
import time
import traceback

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "spawn", "start_processes"]


class ProcessException(Exception):
    """A child process of `spawn` failed."""

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A child raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A child exited with a nonzero code or was killed by a signal."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code,
                            self.signal_name)


def _run(fn, index, args, error_file):
    """A child's body: `fn(index, *args)`; a failure's traceback goes to `error_file`."""
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass                        # the parent is going down too
    except Exception:   # noqa: BLE001 (reported to the parent, which raises it)
        with open(error_file, "w") as f:
            f.write(traceback.format_exc())
        raise SystemExit(1) from None


class ProcessContext:
    """The processes `start_processes` started, and their error files."""

    def __init__(self, processes, error_files):
        self.processes = processes
        self.error_files = error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None, grace_period=None) -> bool:
        """Wait for the processes (up to `timeout` seconds); True when all have ended well,
        False when some still run, and raise when one failed (after ending the others)."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._end_others(grace_period)
        self._raise(failed)
        return False

    def _end_others(self, grace_period):
        alive = [p for p in self.processes if p.is_alive()]
        for process in alive:
            process.terminate()
        deadline = time.monotonic() + (grace_period or 30)
        for process in alive:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()

    def _raise(self, index):
        process = self.processes[index]
        pid, code = process.pid, process.exitcode
        error_file = self.error_files[index]
        if os.path.exists(error_file) and os.path.getsize(error_file) > 0:
            with open(error_file) as f:
                original = f.read()
            raise ProcessRaisedException(
                f"\n\n-- Process {index} terminated with the following error:\n{original}",
                index, pid)
        if code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException(f"process {index} terminated with signal {name}",
                                         index, pid, code, name)
        raise ProcessExitedException(f"process {index} terminated with exit code {code}",
                                     index, pid, code)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start `nprocs` processes running `fn(i, *args)` with `start_method`; join them (and
    return None) or return their ProcessContext."""
    context = multiprocessing.get_context(start_method)
    error_dir = tempfile.mkdtemp(prefix="ember-spawn-")
    processes, error_files = [], []
    for index in range(nprocs):
        error_file = os.path.join(error_dir, f"{index}.err")
        process = context.Process(target=_run, args=(fn, index, args, error_file),
                                  daemon=daemon)
        process.start()
        processes.append(process)
        error_files.append(error_file)
    process_context = ProcessContext(processes, error_files)
    if not join:
        return process_context
    while not process_context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """`start_processes` with the 'spawn' start method by default."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
