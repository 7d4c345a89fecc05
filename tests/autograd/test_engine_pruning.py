"""autograd.grad runs only the nodes between the outputs and the inputs (NOTE [only what the
inputs need]), as PyTorch does; backward(inputs=...) runs the whole graph, as PyTorch's does.
Compared with the oracle."""
import pytest
import torch

import ember


def _scenario(lib, use_backward_inputs):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a = x.exp()
    b = (a * 2).sum()
    if use_backward_inputs:
        b.backward(inputs=[a])
        first = a.grad
    else:
        (first,) = lib.autograd.grad(b, a)
    # exp's node was not needed for the gradient at `a`: its saved result is still there.
    (a * 3).sum().backward()
    return first, x.grad


def test_nodes_before_the_inputs_keep_their_saved_tensors():
    want = _scenario(torch, use_backward_inputs=False)
    got = _scenario(ember, use_backward_inputs=False)
    for g, w in zip(got, want):
        assert g.tolist() == pytest.approx(w.tolist())


def test_backward_with_inputs_runs_the_whole_graph():
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _scenario(torch, use_backward_inputs=True)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _scenario(ember, use_backward_inputs=True)


def test_hooks_of_unneeded_nodes_do_not_run():
    def run(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        a.grad_fn.register_hook(lambda *args: calls.append("mul"))
        b = a.sin()
        lib.autograd.grad(b.sum(), a)
        return calls
    assert run(ember) == run(torch) == []


def test_second_output_not_depending_on_inputs():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0], requires_grad=True)
        return lib.autograd.grad([(x * x).sum(), (y * y).sum()], x)[0].tolist()
    assert run(ember) == run(torch)
