"""`spawn(fn, args, nprocs)`: run `fn(i, *args)` in `nprocs` processes, wait for them, and
raise in the parent what went wrong in a child: its exception with the child's traceback
(ProcessRaisedException) or its exit code or signal (ProcessExitedException). When one child
fails the others are terminated. `join=False` returns the ProcessContext to join later.

NOTE [spawn writes no files]: a child's traceback travels to the parent through a one-way pipe
per child, not through an error file, so no call leaves anything on disk, whether the children
succeed, raise, are killed or are still running when the parent gives up. The parent waits on
the pipes together with the process sentinels: a traceback bigger than the pipe's buffer is
read while the child is still writing it, so the child never blocks in its last act.
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
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


def _run(fn, index, args, error_pipe):
    """A child's body: `fn(index, *args)`; a failure's traceback goes to `error_pipe`."""
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass                        # the parent is going down too
    except Exception:   # noqa: BLE001 (reported to the parent, which raises it)
        error_pipe.send(traceback.format_exc())
        raise SystemExit(1) from None
    finally:
        error_pipe.close()


class ProcessContext:
    """The processes `start_processes` started, and the read ends of their error pipes
    (NOTE [spawn writes no files])."""

    def __init__(self, processes, error_pipes):
        self.processes = processes
        self.error_pipes = error_pipes
        self.errors = [None] * len(processes)
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}
        self._pipes_open = {pipe: i for i, pipe in enumerate(error_pipes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None, grace_period=None) -> bool:
        """Wait for the processes (up to `timeout` seconds); True when all have ended well,
        False when some still run, and raise when one failed (after ending the others)."""
        if not self.sentinels:
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = multiprocessing.connection.wait(
                list(self.sentinels) + list(self._pipes_open), timeout=left)
            exited = [r for r in ready if r in self.sentinels]
            for pipe in ready:
                if pipe in self._pipes_open:
                    self._read_error(pipe)
            if exited or not ready or (deadline is not None and time.monotonic() >= deadline):
                break
        failed = None
        for sentinel in exited:
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

    def _read_error(self, pipe):
        """Take the traceback a child sent, or the end of its pipe (a child that did not
        raise)."""
        index = self._pipes_open.pop(pipe)
        try:
            self.errors[index] = pipe.recv()
        except EOFError:
            pass
        pipe.close()

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
        pipe = self.error_pipes[index]
        if pipe in self._pipes_open:
            self._read_error(pipe)          # the child has ended: this cannot block
        original = self.errors[index]
        if original:
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
    processes, error_pipes = [], []
    for index in range(nprocs):
        reader, writer = context.Pipe(duplex=False)
        process = context.Process(target=_run, args=(fn, index, args, writer),
                                  daemon=daemon)
        process.start()
        writer.close()      # the child holds its own copy: its exit ends the pipe
        processes.append(process)
        error_pipes.append(reader)
    process_context = ProcessContext(processes, error_pipes)
    if not join:
        return process_context
    while not process_context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """`start_processes` with the 'spawn' start method by default."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
