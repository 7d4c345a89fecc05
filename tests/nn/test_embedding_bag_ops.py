"""F.embedding_bag and nn.EmbeddingBag go through the registry ops `_embedding_bag` /
`_embedding_bag_forward_only`, as PyTorch's do: the ops a TorchDispatchMode sees and the
grad_fn's name, compared with PyTorch. (Values, the four outputs and gradients: the op table,
tests/opinfo/infos_nn_embedding_bag.py.)"""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _ops_seen(lib, mode_module, fn):
    seen = []

    class Record(mode_module.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func.__name__).split(".")[0])
            return func(*args, **(kwargs or {}))

    with Record():
        fn(lib)
    return [name for name in seen if "embedding_bag" in name]


@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_functional_runs_the_registry_op(mode, requires_grad):
    weight = np.random.default_rng(0).standard_normal((10, 3))

    def call(lib):
        w = lib.tensor(weight, requires_grad=requires_grad)
        return lib.nn.functional.embedding_bag(lib.tensor([1, 2, 4, 5]), w,
                                               lib.tensor([0, 2]), mode=mode)
    from torch.utils import _python_dispatch as torch_modes

    from ember.utils import _python_dispatch as ember_modes
    expected = _ops_seen(torch, torch_modes, call)
    assert expected, "PyTorch ran no embedding_bag op"
    assert _ops_seen(ember, ember_modes, call) == expected
    if requires_grad:
        assert call(ember).grad_fn.name() == call(torch).grad_fn.name()


def test_module_matches_torch():
    torch.manual_seed(0)
    theirs = torch.nn.EmbeddingBag(10, 3, mode="max", padding_idx=2)
    ours = ember.nn.EmbeddingBag(10, 3, mode="max", padding_idx=2)
    ours.weight.data = ember.tensor(theirs.weight.detach().numpy())
    idx, off = [1, 2, 4, 5, 2, 9], [0, 3]
    out_t = theirs(torch.tensor(idx), torch.tensor(off))
    out_e = ours(ember.tensor(idx), ember.tensor(off))
    np.testing.assert_allclose(out_e.detach().numpy(), out_t.detach().numpy(), rtol=1e-6)
    out_t.pow(2).sum().backward()
    out_e.pow(2).sum().backward()
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-6)
