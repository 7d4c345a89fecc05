"""`profile`: records every op a thread runs (and `record_function` ranges) with wall-clock
times, optionally input shapes, output memory and Python stacks; `schedule` for step-windowed
profiling; `export_chrome_trace` for chrome://tracing and Perfetto.

NOTE [profiling through a dispatch mode]: the profiler is a `TorchDispatchMode` (so it costs
nothing when no profiler is open: the dispatcher's fast paths stay on), entered for the
recording window in the thread that opened it. Each op entry run below autograd becomes an event
named `aten::<op>`; ops that composites and backward formulas call appear as events of their
own, nested under any open `record_function` range.
"""
from __future__ import annotations

import enum
import json
import os
import threading
import time
import traceback

from ember._core.dispatch.inplace_out import InplaceOp
from ember._core.dispatch.process_state import state as _dispatch_state
from ember._core.dispatch.out_forms import OutOp
from ember.profiler.events import EventList, FunctionEvent
from ember.utils._python_dispatch import TorchDispatchMode

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 2
    XPU = 3
    MTIA = 4
    PrivateUse1 = 5


def supported_activities() -> set:
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """The action of each step: `skip_first` idle steps, then cycles of `wait` idle, `warmup`
    and `active` recorded steps (the last one saves), `repeat` times (0: forever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        import warnings
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else \
            ProfilerAction.RECORD_AND_SAVE
    return action


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


_active = threading.local()


def _shapes(args) -> list:
    import ember
    shapes = []
    for arg in args:
        if isinstance(arg, ember.Tensor):
            shapes.append(list(arg.shape))
        elif isinstance(arg, (list, tuple)) and arg and isinstance(arg[0], ember.Tensor):
            shapes.append([list(t.shape) for t in arg])
        else:
            shapes.append([])
    return shapes


def _output_bytes(out) -> int:
    import ember
    if isinstance(out, ember.Tensor):
        return out.numel() * out.element_size()
    if isinstance(out, (list, tuple)):
        return sum(_output_bytes(o) for o in out)
    return 0


def _user_stack() -> list:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = [f for f in traceback.extract_stack()[:-3] if not f.filename.startswith(here)]
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(frames)]


class _Session:
    """The events of one recording window in one thread."""

    def __init__(self, record_shapes, profile_memory, with_stack) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.events: list = []
        self.open: list = []
        self.thread = threading.get_ident()

    def begin(self, name, args=(), user=False) -> FunctionEvent:
        event = FunctionEvent(len(self.events), name, self.thread, time.perf_counter_ns() / 1e3,
                              input_shapes=_shapes(args) if self.record_shapes else [],
                              stack=_user_stack() if self.with_stack else [],
                              is_user_annotation=user)
        if self.open:
            event.cpu_parent = self.open[-1]
            self.open[-1].cpu_children.append(event)
        self.open.append(event)
        self.events.append(event)
        return event

    def end(self, event, out=None) -> None:
        event.end_us = time.perf_counter_ns() / 1e3
        if self.profile_memory:
            event.cpu_memory_usage = _output_bytes(out) + sum(
                c.cpu_memory_usage for c in event.cpu_children)
        while self.open and self.open[-1] is not event:
            self.open.pop()
        if self.open:
            self.open.pop()


class _Recorder(TorchDispatchMode):
    # PyTorch's profiler records a composite (aten::matmul) as its own event: NOTE
    # [composites decompose under modes].
    _sees_composites = True

    def __init__(self, session: _Session) -> None:
        super().__init__()
        self.session = session

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if getattr(func, "namespace", None) == "profiler":   # a range itself, not an op
            return func(*args, **(kwargs or {}))
        # An in-place call arrives as its InplaceOp (aten::add_), the others as the entry.
        # (an out= call as its OutOp, NOTE [out forms]: aten::add)
        name = func.op.schema.name + "_" if type(func) is InplaceOp else (
            func.op.schema.name if type(func) is OutOp else func.schema.name)
        event = self.session.begin("aten::" + name, args)
        out = None
        try:
            out = func(*args, **(kwargs or {}))
            return out
        finally:
            self.session.end(event, out)


class record_function:
    """A named range in the profile (a context manager or a decorator); free when no
    profiler is recording in this thread."""

    def __init__(self, name: str, args=None) -> None:
        self.name = name
        self.args = args
        self.event = None
        self.handle = None

    def __enter__(self):
        if _dispatch_state.slow:         # a mode is open: NOTE [record_function is an op]
            from ember.profiler import record_ops
            self.handle = record_ops.enter(self.name, self.args)
            return self
        self.handle = None
        session = getattr(_active, "session", None)
        if session is not None:
            self.event = session.begin(self.name, user=True)
            self.session = session
        return self

    def __exit__(self, *exc) -> None:
        if self.handle is not None:
            from ember.profiler import record_ops
            handle, self.handle = self.handle, None
            record_ops.exit_(handle)
            return
        if self.event is not None:
            self.session.end(self.event)
            self.event = None

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)
        return wrapped


class profile:
    """Profile the ops run in this thread inside `with profile(...) as prof:` (or between
    `start()` and `stop()`), stepping a `schedule` with `prof.step()`."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False, with_modules: bool = False,
                 experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda=None, custom_trace_id_callback=None) -> None:
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule or _always_record
        self.has_schedule = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._session = None
        self._recorder = None
        self._finished: list = []

    def _recording(self, action) -> bool:
        return action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)

    def _start_window(self) -> None:
        self._session = _Session(self.record_shapes, self.profile_memory, self.with_stack)
        _active.session = self._session
        self._recorder = _Recorder(self._session)
        self._recorder.__enter__()

    def _stop_window(self) -> None:
        if self._recorder is not None:
            self._recorder.__exit__(None, None, None)
            self._recorder = None
            _active.session = None
            events = self._session.events
            self._finished = (self._finished + events) if self.acc_events else events

    def start(self) -> None:
        if self._recording(self.current_action):
            self._start_window()

    def stop(self) -> None:
        if self._recorder is not None:
            self._stop_window()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def step(self) -> None:
        """Advance the schedule by one step."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if previous == ProfilerAction.RECORD_AND_SAVE:
            self._stop_window()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        if self._recording(self.current_action) and self._recorder is None:
            self._start_window()
        elif not self._recording(self.current_action) and self._recorder is not None:
            self._stop_window()

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def events(self) -> EventList:
        return EventList(self._finished, profile_memory=self.profile_memory,
                         with_stack=self.with_stack, record_shapes=self.record_shapes)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0):
        """The events summed by name (and input shapes / stack when asked)."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        """A Chrome trace (JSON) of the recorded events, for chrome://tracing or Perfetto."""
        pid = os.getpid()
        events = self._finished
        base = min((e.start_us for e in events), default=0.0)
        trace = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                  "args": {"name": "python"}}]
        for e in events:
            entry = {"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                     "name": e.name, "pid": pid, "tid": e.thread, "ts": e.start_us,
                     "dur": e.cpu_time_total, "args": {"External id": e.id}}
            if e.input_shapes:
                entry["args"]["Input Dims"] = e.input_shapes
            trace.append(entry)
        document = {"schemaVersion": 1, "displayTimeUnit": "ms",
                    "baseTimeNanoseconds": int(base * 1e3), "traceEvents": trace,
                    "traceName": path}
        temporary = f"{path}.tmp{os.getpid()}"
        with open(temporary, "w") as stream:
            json.dump(document, stream)
        os.replace(temporary, path)


def tensorboard_trace_handler(dir_name: str, worker_name=None, use_gzip: bool = False):
    """An on_trace_ready handler writing `<worker>.<time>.pt.trace.json` into dir_name."""
    import socket

    def handler(prof) -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns() // 1_000_000}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            import gzip
            import shutil
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)
    return handler
