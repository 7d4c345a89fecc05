"""einsum without '->': the output keeps the labels written exactly once, sorted; a label
repeated inside one operand is summed (its diagonal), as in PyTorch."""
import numpy as np
import pytest
import torch

import ember

CASES = [
    ("ii", [(3, 3)]),
    ("iij", [(2, 2, 4)]),
    ("iji", [(3, 2, 3)]),
    ("ij,ji", [(2, 3), (3, 2)]),
    ("ii,j", [(3, 3), (4,)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ba", [(2, 3)]),
    ("...ii", [(2, 3, 3)]),
    ("i,i", [(5,), (5,)]),
    ("jii,k", [(2, 3, 3), (2,)]),
]


@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_implicit_output_matches_pytorch(equation, shapes):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours = [ember.tensor(a, requires_grad=True) for a in arrays]
    expected = torch.einsum(equation, *theirs)
    got = ember.einsum(equation, *ours)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    expected.sum().backward()
    got.sum().backward()
    for e, t in zip(ours, theirs):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12)
