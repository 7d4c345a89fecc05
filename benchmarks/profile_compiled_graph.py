"""Where a compiled training step's time goes: every statement of each generated inductor
wrapper (kernel calls, matmuls, extern calls) timed over a number of steps, the biggest
printed per graph, externs (ops still run through ember's eager kernels) marked.

    PYTHONPATH=src python benchmarks/profile_compiled_graph.py [--model gpt|mlp] [--steps 20]
        [--top 25] [--source]

One thread (set before ember loads); CPU time per statement, so run it on a quiet machine
or read it as shares.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import sys
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from shared_models import char_gpt_class, sgd_step  # noqa: E402

import ember  # noqa: E402
from ember._inductor import wrapper  # noqa: E402

GRAPHS = []          # (timings list per line, source lines, namespace)
SOURCES = []         # per graph, its C kernels


def _instrumented(call):
    """`call` regenerated with a clock around each top-level statement of its body."""
    lines = call.source.splitlines()
    body = lines[1:]
    out = [lines[0], "    _pc = _perf"]
    spent = [0.0] * len(body)
    for k, line in enumerate(body):
        stripped = line.strip()
        top = line.startswith("    ") and not line.startswith("     ")
        if top and not stripped.endswith(":") and not stripped.startswith(("return", "else")):
            out += ["    _t0 = _pc()", line, f"    _spent[{k}] += _pc() - _t0"]
        else:
            out.append(line)
    namespace = dict(call.__globals__)
    namespace.update(_perf=time.process_time, _spent=spent)
    exec(compile("\n".join(out) + "\n", "<profiled wrapper>", "exec"), namespace)  # noqa: S102
    fn = namespace["call"]
    fn.source = call.source
    fn.kernel_source = getattr(call, "kernel_source", "")
    GRAPHS.append((spent, body, call.__globals__))
    return fn


def _patch():
    build = wrapper.build

    def profiled_build(*args, **kwargs):
        return _instrumented(build(*args, **kwargs))
    wrapper.build = profiled_build
    compile_fx = sys.modules["ember._inductor.compile_fx"]
    compiled = compile_fx._compiled

    def kept_source(*args, **kwargs):      # the C text, for --source
        call = compiled(*args, **kwargs)
        SOURCES.append(call.kernel_source)
        return call
    compile_fx._compiled = kept_source


def _label(line, namespace):
    """The statement with `_fN` constants named (the extern op's name)."""
    def name(m):
        value = namespace.get(m.group(0))
        return f"<{getattr(value, '__name__', m.group(0))}>" if value is not None else m.group(0)
    return re.sub(r"\b_[fk]\d+\b", name, line.strip())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="gpt", choices=("gpt", "mlp"))
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--source", action="store_true")
    args = parser.parse_args()
    ember.set_num_threads(1)
    _patch()
    ember.manual_seed(0)
    F = ember.nn.functional
    if args.model == "gpt":
        model = char_gpt_class(ember)()
        x, y = ember.randint(0, 65, (16, 64)), ember.randint(0, 65, (16 * 64,))
    else:
        nn = ember.nn
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10))
        x, y = ember.randn(256, 784), ember.randint(0, 10, (256,))

    def loss_fn(x, y):
        out = model(x)
        return F.cross_entropy(out.reshape(-1, out.shape[-1]), y)
    step = sgd_step(ember, ember.compile(loss_fn), list(model.parameters()), x, y)
    for _ in range(3):
        step()
    for spent, _, _ in GRAPHS:
        spent[:] = [0.0] * len(spent)
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(args.steps):
        step()
    total = (time.perf_counter() - start) / args.steps * 1e3
    cpu = (time.process_time() - cpu) / args.steps * 1e3
    print(f"step: {total:.2f} ms wall, {cpu:.2f} ms CPU ({args.steps} steps, clocks included)")
    for g, (spent, body, namespace) in enumerate(GRAPHS):
        in_graph = sum(spent) / args.steps * 1e3
        print(f"\n== graph {g}: {in_graph:.2f} ms in its statements, {len(body)} lines")
        if args.source:
            print("\n".join(body))
            print(SOURCES[g])
        kinds = {"kernel": 0.0, "matmul": 0.0, "extern": 0.0, "other": 0.0}
        for t, line in zip(spent, body):
            kinds["kernel" if re.search(r"\b_k\d+\(", line) else "matmul" if "_matmul(" in line
                  else "extern" if re.search(r"\b_f\d+\(", line) else "other"] += t
        print("   " + ", ".join(f"{k} {v / args.steps * 1e3:.2f} ms" for k, v in kinds.items()))
        ranked = sorted(range(len(body)), key=lambda k: -spent[k])[:args.top]
        for k in ranked:
            if spent[k] > 0:
                print(f"   {spent[k] / args.steps * 1e3:7.3f} ms  {_label(body[k], namespace)[:110]}")


if __name__ == "__main__":
    main()
