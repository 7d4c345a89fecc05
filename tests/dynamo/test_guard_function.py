"""NOTE [guards as one function] (ember/_dynamo/guards.py): an entry's generated check answers
what its guards answer one by one (`first_failure`) for calls that pass and calls that fail
each kind of guard; recompiles on those calls counted against torch.compile; constant math
folded in capture (`math.sqrt` of a size), as PyTorch folds it, without a graph break."""
import math

import torch
from tests.dynamo.common import same_values

import ember
from ember._dynamo import convert_frame
from ember._dynamo.guards import first_failure


def model(lib):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))

    def f(x, y, scale):
        return net(x) * scale + y.sum()
    return net, f


def counting(lib, fn):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward
    lib._dynamo.reset()
    return lib.compile(fn, backend=backend, dynamic=False), graphs


def _calls(lib, net):
    x, y = lib.ones(3, 4), lib.ones(5)
    yield "same", (x, y, 2.0)
    yield "shape", (lib.ones(6, 4), y, 2.0)
    yield "dtype", (x, lib.ones(5, dtype=lib.float64), 2.0)
    yield "constant", (x, y, 3.0)
    yield "aliased", (x, x[:1].reshape(-1)[:1].expand(5).contiguous(), 2.0)
    yield "same again", (x, y, 2.0)


def test_the_generated_check_agrees_with_each_guard():
    net, f = model(ember)
    compiled = ember.compile(f, backend="eager", dynamic=False)
    ember._dynamo.reset()
    compiled(ember.ones(3, 4), ember.ones(5), 2.0)
    entries = convert_frame._CACHE[id(f.__code__)][1]
    entry = entries[0]
    kinds = {g.kind for g in entry.guards}
    assert {"TENSOR_MATCH", "ID_MATCH", "GRAD_MODE"} <= kinds
    for _, args in _calls(ember, net):
        frame = (dict(zip(("x", "y", "scale"), args)), None)
        assert entry.check(frame) == (first_failure(entry.guards, frame) is None)
    with ember.no_grad():
        frame = (dict(zip(("x", "y", "scale"), (ember.ones(3, 4), ember.ones(5), 2.0))), None)
        assert entry.check(frame) is False and first_failure(entry.guards, frame) is not None
    net[0] = ember.nn.Linear(4, 8)          # another module object: ID_MATCH fails
    frame = (dict(zip(("x", "y", "scale"), (ember.ones(3, 4), ember.ones(5), 2.0))), None)
    assert entry.check(frame) is False and first_failure(entry.guards, frame) is not None


def test_recompiles_like_pytorch():
    counts, results = {}, {}
    for lib in (torch, ember):
        net, f = model(lib)
        fn, graphs = counting(lib, f)
        results[lib] = [fn(*args) for _, args in _calls(lib, net)]
        counts[lib] = len(graphs)
    assert counts[ember] == counts[torch]
    same_values(results[ember], results[torch])


def scaled_attention(lib):
    def f(q, k):
        return (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    return f


def test_math_on_constants_is_folded_without_a_break():
    torch._dynamo.reset()
    ember._dynamo.reset()
    theirs = torch._dynamo.explain(scaled_attention(torch))(torch.ones(2, 3, 4),
                                                          torch.ones(2, 3, 4))
    ours = ember._dynamo.explain(scaled_attention(ember))(ember.ones(2, 3, 4),
                                                         ember.ones(2, 3, 4))
    assert ours.graph_break_count == theirs.graph_break_count == 0
    assert ours.graph_count == theirs.graph_count == 1
    ember._dynamo.reset()
    q, k = ember.randn(2, 3, 4), ember.randn(2, 3, 4)
    out = ember.compile(scaled_attention(ember))(q, k)
    same_values(out, scaled_attention(torch)(torch.tensor(q.numpy()), torch.tensor(k.numpy())))


OFFSET = 1.0


def test_every_common_guard_is_inline_and_agrees_with_each_guard():
    """EQUALS_MATCH (a LayerNorm's eps), a repeated-object ALIASING pattern, globals,
    closures and numbered submodules are read and compared in the generated code (no
    `source.get` walk), and it still answers as the guards do one by one."""
    global OFFSET
    net = ember.nn.Sequential(ember.nn.LayerNorm(4), ember.nn.Linear(4, 4))
    scale = [2.0]

    def f(x, y):
        return net(x) * scale[0] + y + OFFSET
    compiled = ember.compile(f, backend="eager", dynamic=False)
    ember._dynamo.reset()
    x = ember.ones(3, 4)
    compiled(x, x)                          # the same tensor twice: a repeat in ALIASING
    entry = convert_frame._CACHE[id(f.__code__)][1][0]
    kinds = {g.kind for g in entry.guards}
    assert {"EQUALS_MATCH", "ALIASING", "ID_MATCH"} <= kinds
    assert ".get(frame)" not in entry.check.source
    assert all(g.inline is not None for g in entry.guards if g.kind != "LIST_LENGTH")

    def agrees(*args):
        frame = (dict(zip(("x", "y"), args)), None)
        answer = entry.check(frame)
        assert answer == (first_failure(entry.guards, frame) is None)
        return answer
    assert agrees(x, x)
    assert not agrees(x, ember.ones(3, 4))            # distinct now
    net[0].eps = 1e-3
    assert not agrees(x, x)
    net[0].eps = 1e-5
    OFFSET = 2.0
    try:
        assert not agrees(x, x)
    finally:
        OFFSET = 1.0
    assert agrees(x, x)
    net[1] = ember.nn.Linear(4, 4)
    assert not agrees(x, x)
