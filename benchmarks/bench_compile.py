"""ember.compile's capture, measured (NOTE [how capture runs]):

1. fidelity: on the second call of three small programs (a global list appended, a print,
   a branch on a tensor's sign that flips), does the compiled function do what eager does?
   Bytecode capture (ember.compile) against a tracing-only capture (record the ops of one
   run under a dispatch mode, replay them afterwards — what make_fx-style tracing gives);
2. cost: the first call (capture + guards) and a cached call of a small function, against
   the eager call.

    PYTHONPATH=src python benchmarks/bench_compile.py
"""
from __future__ import annotations

import contextlib
import io
import time

import ember
from ember.utils._python_dispatch import TorchDispatchMode

LOG = []


def appends(x):
    y = x * 2
    LOG.append(y)
    return y + 1


def prints(x):
    y = x * 2
    print("y computed")
    return y + 1


def branches(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


class _Recorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.ops.append((func, args, kwargs or {}, out))
        return out


def trace_only(fn):
    """Run `fn` once recording its ops; later calls replay the ops on the new input."""
    state = {}

    def run(x):
        if "ops" not in state:
            recorder = _Recorder()
            with recorder:
                result = fn(x)
            state.update(ops=recorder.ops, input=x, result=result)
            return result
        values = {id(state["input"]): x}

        def swap(a):
            return values.get(id(a), a) if isinstance(a, ember.Tensor) else a
        for func, args, kwargs, out in state["ops"]:
            new = func(*[swap(a) for a in args], **{k: swap(v) for k, v in kwargs.items()})
            values[id(out)] = new
        return values[id(state["result"])]
    return run


def observe(fn, inputs):
    """What a program does over its calls: results, printed text, the global list's length."""
    LOG.clear()
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        results = [fn(x).tolist() for x in inputs]
    return results, text.getvalue().count("y computed"), len(LOG)


def fidelity():
    inputs = [ember.tensor([1.0, 2.0]), ember.tensor([-3.0, -4.0])]
    print(f"{'program':10} {'capture':10} {'same as eager on the second call'}")
    for program in (appends, prints, branches):
        expected = observe(program, inputs)
        for name, make in (("bytecode", lambda f: ember.compile(f, backend="eager")),
                           ("trace-only", trace_only)):
            ember._dynamo.reset()
            print(f"{program.__name__:10} {name:10} {observe(make(program), inputs) == expected}")


def cost():
    def small(x, y):
        return (x * y + 1).relu().sum(dim=0)
    x, y = ember.randn(8, 8), ember.randn(8, 8)
    compiled = ember.compile(small, backend="eager")
    ember._dynamo.reset()
    start = time.perf_counter()
    compiled(x, y)
    first = (time.perf_counter() - start) * 1e3
    number = 2000
    for label, fn in (("eager", small), ("compiled, cached", compiled)):
        fn(x, y)
        start = time.perf_counter()
        for _ in range(number):
            fn(x, y)
        print(f"{label:18} {(time.perf_counter() - start) / number * 1e6:8.1f} us per call")
    print(f"{'first call':18} {first:8.1f} ms (capture, fake tensors, guards)")


if __name__ == "__main__":
    fidelity()
    cost()
