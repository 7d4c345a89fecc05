"""F.linear_cross_entropy against PyTorch: values and gradients over target kinds, K-dim
weights, biases, class weights, reductions, ignore_index and label smoothing; its errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import ember


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((6, 5)).astype(np.float32),
        "x1": rng.standard_normal(5).astype(np.float32),
        "w": rng.standard_normal((7, 5)).astype(np.float32),
        "wk": rng.standard_normal((7, 3, 5)).astype(np.float32),
        "b": rng.standard_normal(7).astype(np.float32),
        "bk": rng.standard_normal((7, 3)).astype(np.float32),
        "t": np.array([0, 3, 6, 2, 2, 1]),
        "tk": rng.integers(0, 7, (6, 3)),
        "p": rng.dirichlet(np.ones(7), 6).astype(np.float32),
        "cw": rng.uniform(0.5, 2, 7).astype(np.float32),
    }


CASES = [
    ("x", "w", "t", {}),
    ("x", "w", "t", {"linear_bias": "b", "reduction": "sum"}),
    ("x", "w", "t", {"weight": "cw", "ignore_index": 2, "reduction": "none"}),
    ("x", "w", "t", {"label_smoothing": 0.2, "weight": "cw"}),
    ("x", "w", "p", {"linear_bias": "b"}),
    ("x1", "w", "t1", {}),
    ("x", "wk", "tk", {"linear_bias": "bk", "reduction": "mean"}),
]


@pytest.mark.parametrize(("x", "w", "t", "kwargs"), CASES)
def test_values_and_gradients_match_torch(x, w, t, kwargs):
    data = _data()
    data["t1"] = np.array(4)
    results = []
    for lib in (ember, torch):
        inputs = {k: lib.tensor(v, requires_grad=k in ("x", "x1", "w", "wk", "b", "bk"))
                  for k, v in data.items()}
        call_kwargs = {k: inputs[v] if isinstance(v, str) and v in inputs else v
                       for k, v in kwargs.items()}
        loss = lib.nn.functional.linear_cross_entropy(inputs[x], inputs[w], inputs[t],
                                                       **call_kwargs)
        loss.sum().backward()
        results.append([loss.detach().numpy(), inputs[x].grad.numpy(), inputs[w].grad.numpy()])
    for got, expected in zip(*results):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", [
    lambda lib, d: lib.nn.functional.linear_cross_entropy(d["w"], d["x"][:, :, None], d["t"]),
    lambda lib, d: lib.nn.functional.linear_cross_entropy(d["x"], d["b"], d["t"]),
    lambda lib, d: lib.nn.functional.linear_cross_entropy(d["x"], d["w"][:, :4], d["t"]),
    lambda lib, d: lib.nn.functional.linear_cross_entropy(d["x"], d["w"], d["t"],
                                                          linear_bias=d["cw"][:3]),
    lambda lib, d: lib.nn.functional.linear_cross_entropy(d["x1"], d["wk"], d["t"]),
    lambda lib, d: lib.nn.functional.linear_cross_entropy(d["x"], d["w"], d["p"],
                                                          ignore_index=1),
])
def test_errors_match_torch(case):
    outcomes = []
    for lib in (ember, torch):
        data = {k: lib.tensor(v) for k, v in _data().items()}
        with pytest.raises(RuntimeError) as caught:
            case(lib, data)
        outcomes.append(str(caught.value).replace("torch.", "").replace("ember.", ""))
    assert outcomes[0] == outcomes[1]


def test_options_with_an_unsupported_setting_warn_as_torch():
    from torch.nn.modules.linear_cross_entropy_options import LinearCrossEntropyOptions
    messages = []
    for lib in (ember, torch):
        data = {k: lib.tensor(v) for k, v in _data().items()}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.linear_cross_entropy(data["x"], data["w"], data["t"],
                                                   label_smoothing=0.1,
                                                   options=LinearCrossEntropyOptions())
        messages.append([str(w.message).replace("torch.", "").replace("ember.", "")
                         for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1
