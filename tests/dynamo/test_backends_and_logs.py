"""The backend registry, the logging switches read from the environment, random ops inside
graphs, and frames that run eagerly whole (a break in a loop, a `with` block)."""
import os
import pathlib
import subprocess
import sys

import pytest
import torch
from tests.dynamo.common import arrays, explain_both, same_values, tensors

import ember

ROOT = pathlib.Path(__file__).resolve().parents[2]
VALUES = arrays(2, (3, 4), (3, 4))


def test_registered_backend_by_name_and_decorator():
    for lib in (torch, ember):
        lib._dynamo.reset()
        name = f"recording_{lib.__name__}"
        if name not in lib._dynamo.list_backends(exclude_tags=()):
            @lib._dynamo.register_backend(name=name, tags=("debug",))
            def recording(gm, example_inputs):
                return gm.forward
        backend = lib._dynamo.lookup_backend(name)
        assert callable(backend) and name in lib._dynamo.list_backends(exclude_tags=())
        assert name not in lib._dynamo.list_backends()
        out = lib.compile(lambda x: x.relu() * 3, backend=name)(lib.ones(2))
        assert out.tolist() == [3.0, 3.0]
        assert lib._dynamo.lookup_backend(backend) is backend
    assert ember._dynamo.list_backends() == torch._dynamo.list_backends()
    with pytest.raises(ember._dynamo.exc.InvalidBackend):
        ember._dynamo.lookup_backend("not_a_backend")


@pytest.mark.parametrize("variable", ["EMBER_LOGS", "TORCH_LOGS"])
def test_log_switches_from_the_environment(variable):
    program = (
        "import ember\n"
        "def f(x):\n"
        "    y = x + 1\n"
        "    print('side')\n"
        "    return y\n"
        "g = ember.compile(f, backend='eager')\n"
        "g(ember.ones(2)); g(ember.ones(3))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("EMBER_LOGS", "TORCH_LOGS")}
    env.update({variable: "graph_breaks,recompiles", "PYTHONPATH": str(ROOT / "src")})
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "[ember._dynamo.graph_breaks] Graph break in user code at <string>:4" in done.stderr
    assert "[ember._dynamo.recompiles] Recompiling function f" in done.stderr
    assert "graph_code" not in done.stderr
    assert done.stdout.count("side") == 2


def test_random_ops_in_graphs_draw_as_eager():
    def build(lib):
        def f(x):
            return x + lib.randn(3) + lib.nn.functional.dropout(x, 0.5)
        return f
    draws = {}
    for lib in (torch, ember):
        for compiled in (False, True):
            lib._dynamo.reset()
            fn = lib.compile(build(lib), backend="eager") if compiled else build(lib)
            lib.manual_seed(0)
            draws[lib, compiled] = [fn(lib.ones(3)) for _ in range(2)]
    for values in draws.values():
        same_values(values, draws[torch, False])


def loop_with_print(lib):
    def f(x, y):
        for i in range(2):
            x = x + i
            print("step", i)
        return x * y
    return f


def test_break_in_a_loop_runs_the_frame_eagerly(capsys):
    theirs, ours = explain_both(loop_with_print, lambda lib: tensors(lib, VALUES))
    assert ours.graph_count == theirs.graph_count == 0
    capsys.readouterr()
    ember._dynamo.reset()
    got = [ember.compile(loop_with_print(ember), backend="eager")(*tensors(ember, VALUES))
           for _ in range(2)]
    text = capsys.readouterr().out
    expected = [loop_with_print(torch)(*tensors(torch, VALUES)) for _ in range(2)]
    assert capsys.readouterr().out == text == "step 0\nstep 1\n" * 2
    same_values(got, expected)


def test_with_block_runs_the_frame_eagerly_with_a_reason():
    def build(lib):
        def f(x, y):
            with lib.no_grad():
                z = x * 2
            return z + y
        return f
    ember._dynamo.reset()
    explained = ember._dynamo.explain(build(ember))(*tensors(ember, VALUES))
    assert explained.graph_count == 0 and explained.graph_break_count == 1
    assert "no_grad" in explained.break_reasons[0].reason
    x, y = tensors(ember, VALUES)
    y.requires_grad_()
    out = ember.compile(build(ember), backend="eager")(x, y)
    tx, ty = tensors(torch, VALUES)
    ty.requires_grad_()
    same_values(out, build(torch)(tx, ty))
    assert out.requires_grad
