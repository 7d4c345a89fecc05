"""nn.DataParallel without CUDA, against PyTorch's: the wrapped module runs as it is, the
state_dict gains the "module." prefix (checkpoints load into a plain model after stripping it),
and data_parallel refuses as PyTorch's does."""
import numpy as np
import pytest
import torch

import ember


def _model(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4), T.nn.ReLU())


def test_data_parallel_on_cpu_is_the_module():
    x = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
    seen = []
    for T in (torch, ember):
        wrapped = T.nn.DataParallel(_model(T))
        out = wrapped(T.tensor(x))
        seen.append((list(wrapped.state_dict()), repr(wrapped), wrapped.device_ids,
                     out.detach().numpy(), isinstance(wrapped.module, T.nn.Sequential)))
    ours, theirs = seen[1], seen[0]
    assert ours[:3] == theirs[:3] and ours[4] == theirs[4]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-5, atol=1e-6)


def test_data_parallel_checkpoint_round_trip(tmp_path):
    wrapped = ember.nn.DataParallel(_model(ember))
    path = tmp_path / "dp.pt"
    ember.save(wrapped.state_dict(), path)
    state = torch.load(path)
    plain = _model(torch)
    plain.load_state_dict({k.removeprefix("module."): v for k, v in state.items()})
    np.testing.assert_array_equal(plain[0].weight.detach().numpy(),
                                  wrapped.module[0].weight.detach().numpy())


def test_data_parallel_function_needs_a_device():
    if ember.cuda.is_available():
        pytest.skip("the CPU-only answer: this machine has CUDA")
    for T in (torch, ember):
        with pytest.raises(RuntimeError, match="device type could not be determined"):
            T.nn.parallel.data_parallel(T.nn.Linear(2, 3), T.ones(4, 2))
