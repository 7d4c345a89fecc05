"""Run drawn calls in an ember worker and a PyTorch worker and judge the pair of outcomes.

Each library lives in its own long-lived subprocess (fuzz_worker.py), so a segfault or a hang
in either is an outcome to count, not the end of the run: a worker that dies is a crash, one
that does not answer within the time limit a hang; either is restarted for the next call.

The verdicts (`judge`):
    same        both raised and ember's class is PyTorch's (or a subclass of it), or both
                returned equal results (shape, dtype, values within a tolerance)
    mismatch    different classes, one raised and the other did not, or different results
    crash/hang  the ember worker died or stopped answering
    foreign     ember raised a class PyTorch never raises for bad input (AttributeError,
                KeyError, NumPy's errors ...) where PyTorch raised something else
"""
from __future__ import annotations

import os
import pathlib
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
from fuzz_values import FOREIGN_NAMES

HERE = pathlib.Path(__file__).resolve().parent
# The ember under test: this tree's, or another checkout's (EMBER_FUZZ_SRC=/path/to/src) to
# count an older version's mismatches with the same draw.
SRC = os.environ.get("EMBER_FUZZ_SRC") or HERE.parents[1] / "src"


class Worker:
    """One library's worker process; `call` returns (status, payload)."""

    def __init__(self, library: str, timeout: float, script=None):
        self.library = library
        self.script = script or HERE / "fuzz_worker.py"
        self.timeout = timeout
        self.process = None
        self.log = None
        self.restarts = 0

    def start(self):
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                   MKL_NUM_THREADS="1", PYTHONFAULTHANDLER="1")
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(SRC), env.get("PYTHONPATH")) if p)
        self.log = tempfile.TemporaryFile()  # noqa: SIM115  (kept open while it runs)
        self.process = subprocess.Popen(
            [sys.executable, str(self.script), self.library],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env)
        line = self._read(60.0, line=True)
        if line != b"ready\n":
            raise RuntimeError(f"the {self.library} fuzz worker did not start: "
                               f"{self.stderr_tail()}")

    def stderr_tail(self) -> str:
        if self.log is None:
            return ""
        self.log.seek(0)
        return self.log.read()[-2000:].decode(errors="replace")

    def _read(self, timeout, line=False, count=None):
        stream = self.process.stdout
        deadline = time.monotonic() + timeout
        data = b""
        fd = stream.fileno()
        while True:
            if line and data.endswith(b"\n") or count is not None and len(data) == count:
                return data
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None                                     # no answer in time
            chunk = os.read(fd, 1 if line else count - len(data))
            if not chunk:
                return b""                                      # the process is gone
            data += chunk

    def send(self, call):
        if self.process is None or self.process.poll() is not None:
            self.start()
        data = pickle.dumps(call)
        self.process.stdin.write(struct.pack("<I", len(data)) + data)
        self.process.stdin.flush()

    def receive(self):
        data = self._read(self.timeout, count=4)
        if data:
            data = self._read(self.timeout, count=struct.unpack("<I", data)[0])
            if data:
                return pickle.loads(data)
        if data is None:
            self.stop()
            return ("hang", f"no answer within {self.timeout} s")
        code = self.process.wait()
        name = signal.Signals(-code).name if code < 0 else f"exit {code}"
        tail = self.stderr_tail()
        self.stop()
        return ("crash", f"{name}: {tail[-600:]}")

    def stop(self):
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                stream.close()
            self.restarts += 1
        if self.log is not None:
            self.log.close()
        self.process, self.log = None, None


class Pair:
    """An ember worker and a PyTorch worker fed the same calls."""

    def __init__(self, timeout: float = 10.0, script=None):
        self.ember = Worker("ember", timeout, script)
        self.torch = Worker("torch", timeout, script)

    def start(self):
        for worker in (self.torch, self.ember):
            worker.start()

    def run(self, call):
        for worker in (self.torch, self.ember):
            worker.send(call)
        want = self.torch.receive()
        got = self.ember.receive()
        return got, want

    def close(self):
        self.ember.stop()
        self.torch.stop()


def _class_matches(got, want) -> bool:
    """Ember's class is PyTorch's: the same name, or PyTorch's among ember's bases (by name:
    torch's own classes, like torch.linalg.LinAlgError, have an ember namesake)."""
    want_name = want[0].lstrip("_")
    return any(base.lstrip("_") == want_name for base in got[2])


def _results_equal(got, want, loose: bool) -> bool:
    if got[0] != want[0]:
        return False
    kind = got[0]
    if kind == "tensor":
        if got[1] != want[1] or got[2] != want[2]:
            return False
        if loose or got[3] is None or want[3] is None:
            return True
        a, b = got[3], want[3]
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            tolerance = 1e-2 if got[2] in ("float16", "bfloat16") else 1e-4
            return bool(np.allclose(a, b, rtol=tolerance, atol=tolerance, equal_nan=True))
        return bool(np.array_equal(a, b))
    if kind == "sequence":
        return len(got[1]) == len(want[1]) and all(
            _results_equal(g, w, loose) for g, w in zip(got[1], want[1]))
    if kind == "plain":
        if isinstance(got[1], float) and isinstance(want[1], float):
            return loose or got[1] == want[1] or abs(got[1] - want[1]) <= 1e-4 * (
                1 + abs(want[1])) or (got[1] != got[1] and want[1] != want[1])
        return loose or got[1] == want[1]
    return got[1] == want[1]


def judge(got, want, loose: bool = False):
    """(verdict, detail) for ember's outcome `got` against PyTorch's `want`."""
    if got[0] in ("crash", "hang"):
        return got[0], got[1]
    if want[0] in ("crash", "hang", "setup"):
        return "skipped", f"torch {want[0]}: {want[1]}"
    if got[0] == "setup":
        return "foreign", f"setting up the call failed: {got[1]}"
    if got[0] == "raised":
        if want[0] == "raised" and _class_matches(got[1], want[1]):
            return "same", None
        name = got[1][0]
        foreign = name in FOREIGN_NAMES or name == "SummaryFailed" or \
            got[1][1].split(".")[0] in ("numpy", "scipy", "ml_dtypes")
        if foreign and not (want[0] == "raised" and want[1][0] == name):
            return "foreign", f"ember {name}: {got[1][3]}"
        if want[0] == "raised":
            return "mismatch", f"ember {name} / torch {want[1][0]}: {got[1][3]} | {want[1][3]}"
        return "mismatch", f"ember {name}, torch returned: {got[1][3]}"
    if want[0] == "raised":
        return "mismatch", f"ember returned, torch {want[1][0]}: {want[1][3]}"
    if _results_equal(got[1], want[1], loose):
        return "same", None
    return "mismatch", f"results differ: {_short(got[1])} | {_short(want[1])}"


def _short(summary) -> str:
    if summary[0] == "tensor":
        return f"tensor{summary[1]} {summary[2]}"
    return repr(summary)[:120]


def draw(strategy, examples, stop_at, derandomize, seed_value, each):
    """Call `each(call)` for up to `examples` calls drawn from `strategy` (a hypothesis
    strategy), none after the monotonic time `stop_at`: the fixed draw when `derandomize`, else
    the one `seed_value` picks (shared by the bad-input and the value-differential fuzzers)."""
    from hypothesis import HealthCheck, given, seed, settings

    @settings(max_examples=examples, deadline=None, derandomize=derandomize, database=None,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(strategy)
    def draw_one(call):
        if time.monotonic() <= stop_at:
            each(call)

    if seed_value is not None and not derandomize:
        draw_one = seed(seed_value)(draw_one)
    draw_one()
