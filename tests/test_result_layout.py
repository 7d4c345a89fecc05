"""Layouts of results against PyTorch: non-pointwise ops give row-major results whatever their
inputs' layout (NOTE [row-major results]); writing in place into an expanded tensor raises."""
import pytest

import ember

torch = pytest.importorskip("torch")

CASES = [
    lambda lib, a, b: lib.cat([a.t(), b.t()]),
    lambda lib, a, b: lib.stack([a.t(), b.t()]),
    lambda lib, a, b: a.t().cumsum(0),
    lambda lib, a, b: a.t().sum(0),
    lambda lib, a, b: a.t().amax(1),
    lambda lib, a, b: a.t().gather(0, lib.tensor([[0, 1], [1, 0]])),
    lambda lib, a, b: a.t().masked_fill(a.t() > 2, 0.0),
    lambda lib, a, b: a.t().tril(),
    lambda lib, a, b: lib.einsum("ij,jk->ik", a, b.t()),
    lambda lib, a, b: a.t().clone(),
    lambda lib, a, b: a.t().to(lib.float64),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_result_strides_match_pytorch(case):
    def run(lib):
        a = lib.arange(6.0).reshape(2, 3)
        b = lib.arange(6.0, 12.0).reshape(2, 3)
        out = CASES[case](lib, a, b)
        return tuple(out.shape), out.is_contiguous(), out.view(-1).tolist() if \
            out.is_contiguous() else None
    assert run(ember) == run(torch)


def test_in_place_write_into_an_expanded_tensor_raises():
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="more than one element of the written-to"):
            lib.ones(2).expand(3, 2).add_(1)
        single = lib.ones(1).expand(1, 1)
        single.mul_(3)
        assert single.tolist() == [[3.0]]


def test_block_diag_of_nothing():
    ours, theirs = ember.block_diag(), torch.block_diag()
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype)[6:] == str(theirs.dtype)[6:]


VIEWS = [
    lambda m: m.transpose(0, 2), lambda m: m.permute(2, 0, 1), lambda m: m[1], lambda m: m[:, 1],
    lambda m: m.narrow(2, 1, 2), lambda m: m.diagonal(0, 0, 2), lambda m: m.expand(5, 3, 2, 4),
    lambda m: m.unsqueeze(1), lambda m: m.unfold(2, 2, 1), lambda m: m[..., None, 1:3],
    lambda m: m[None], lambda m: m[:, None], lambda m: m[1, :, ::2], lambda m: m.t() if
    m.dim() == 2 else m.movedim(0, -1), lambda m: m.reshape(6, 4),
    lambda m: m.transpose(0, 1).reshape(-1), lambda m: m.transpose(0, 2).reshape(4, 6),
    lambda m: m.permute(0, 2, 1).flatten(1), lambda m: m[:, :, ::2].reshape(3, 4),
    lambda m: m.transpose(1, 2).reshape(3, 2, 4), lambda m: m.unflatten(2, (2, 2)),
]


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("case", range(len(VIEWS)))
def test_view_strides_match_pytorch(case, device):
    def run(lib):
        out = VIEWS[case](lib.zeros(3, 2, 4, device=device))
        return tuple(out.shape), tuple(out.stride())
    assert run(ember) == run(torch)


def test_argument_kinds_refused_as_in_pytorch():
    import numpy as np
    calls = [lambda lib, x: lib.flip(x, 0), lambda lib, x: lib.permute(x, 0),
             lambda lib, x: lib.reshape(x, 6), lambda lib, x: lib.tile(x, 2),
             lambda lib, x: lib.rot90(x, 1, 1), lambda lib, x: x.copy_(np.ones(3)),
             lambda lib, x: x.copy_([1.0, 2.0, 3.0])]
    accepted = [lambda lib, x: lib.roll(x, 1), lambda lib, x: x.flip(0),
                lambda lib, x: x.copy_(3.0), lambda lib, x: x.reshape(6)]
    for lib in (ember, torch):
        for call in calls:
            with pytest.raises(TypeError):
                call(lib, lib.zeros(2, 3))
        for call in accepted:
            call(lib, lib.zeros(2, 3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_large_full_sum_matches_pytorch(dtype):
    import numpy as np
    values = np.random.default_rng(4).standard_normal((3, 1 << 20)).astype(dtype)
    ours, theirs = ember.tensor(values), torch.tensor(values)
    got, expected = ours.sum(), theirs.sum()
    assert tuple(got.shape) == tuple(expected.shape) and str(got.dtype)[6:] == \
        str(expected.dtype)[6:]
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5)


def test_return_types_print_and_pickle_as_torch():
    import pickle

    import torch

    for T in (torch, ember):
        x = T.tensor([[3.0, 1.0], [2.0, 5.0]])
        results = [T.max(x, 0), T.sort(x), T.topk(x, 1), T.cummax(x, 1), T.frexp(x),
                   T.linalg.eigh(x @ x.T)]
        texts = [repr(r).replace("ember.", "torch.") for r in results]
        if T is torch:
            expected = texts
        else:
            assert texts == expected
        for r in results:
            again = pickle.loads(pickle.dumps(r))
            assert type(again) is type(r) and repr(again) == repr(r)
    assert ember.return_types.sort is type(ember.sort(ember.ones(2)))
