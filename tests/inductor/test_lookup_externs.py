"""NOTE [aranges and embeddings without the dispatcher] (ember/_inductor/wrapper.py): a
constant arange made once, an embedding as NumPy's take; values against PyTorch eager, bad
indices raising PyTorch's error class, and an arange the caller receives never shared."""
import numpy as np
import pytest
import torch

import ember
from ember._decomp import core_aten_decompositions
from ember._inductor import compile_fx, cpp_builder, metrics
from ember.fx.experimental.proxy_tensor import make_fx

pytestmark = pytest.mark.skipif(cpp_builder.compiler() is None, reason="no C compiler")


def positions(lib):
    def f(tok, pos, idx):
        t = idx.shape[1]
        return lib.nn.functional.embedding(idx, tok) + \
            lib.nn.functional.embedding(lib.arange(t), pos) * 2
    return f


def _args(lib, idx):
    rng = np.random.default_rng(0)
    tok = rng.standard_normal((11, 6)).astype(np.float32)
    pos = rng.standard_normal((5, 6)).astype(np.float32)
    return [lib.tensor(tok), lib.tensor(pos), lib.tensor(np.array(idx, dtype=np.int64))]


def _compiled(f, args):
    metrics.reset()
    return compile_fx(make_fx(f, core_aten_decompositions())(*args), args)


def test_embedding_and_arange_match_pytorch_without_the_dispatcher():
    idx = [[1, 4, 10, 0, 3], [2, 2, 9, 7, 5]]
    args = _args(ember, idx)
    fn = _compiled(positions(ember), args)
    assert "_embedding(" in fn.source and "_arange" in fn.source
    expected = positions(torch)(*_args(torch, idx))
    for _ in range(2):
        np.testing.assert_allclose(fn(*args).numpy(), expected.numpy(), rtol=1e-6)
    assert metrics.compile_failures == 0 and metrics.eager_fallbacks == 0


@pytest.mark.parametrize("bad", [11, -1], ids=["past_the_end", "negative"])
def test_indices_out_of_range_raise_pytorch_error_class(bad):
    good = [[1, 4, 10, 0, 3], [2, 2, 9, 7, 5]]
    fn = _compiled(positions(ember), _args(ember, good))
    wrong = [[1, 4, bad, 0, 3], [2, 2, 9, 7, 5]]
    with pytest.raises(Exception) as theirs:
        positions(torch)(*_args(torch, wrong))
    with pytest.raises(Exception) as ours:
        fn(*_args(ember, wrong))
    assert type(ours.value) is type(theirs.value)


def test_an_arange_returned_to_the_caller_is_fresh_at_every_call():
    f = lambda x: (ember.arange(4) * 1.0 + x, ember.arange(4))    # noqa: E731
    x = ember.zeros(4)
    fn = _compiled(f, [x])
    first = fn(x)[1]
    first.add_(100)
    second = fn(x)[1]
    np.testing.assert_array_equal(second.numpy(), torch.arange(4).numpy())
    np.testing.assert_array_equal(fn(x)[0].numpy(), torch.arange(4).numpy().astype(np.float32))
