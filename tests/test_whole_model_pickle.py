"""Whole pickled modules cross between PyTorch and ember both ways (NOTE [PyTorch's module
paths]): a model PyTorch saved with `torch.save(model)` loads in ember with weights_only=False,
and one ember saved loads in PyTorch, as the same class with the same state and the same output.
Every class of `torch.nn` is built here (or listed as missing from ember)."""
import inspect
import io
import warnings

import numpy as np
import pytest
import torch

import ember

# PyTorch's nn classes ember does not have yet.
MISSING: set = set()
# Abstract or wrapping classes: built by their subclasses' cases.
NOT_BUILT = {"Module", "Container", "RNNBase", "RNNCellBase", "DataParallel", "SyncBatchNorm"}


def r(*shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))


def _conv_cases():
    cases = {}
    for d in (1, 2, 3):
        x = (2, 2) + (5,) * d
        for kind in ("Conv", "ConvTranspose"):
            cases[f"{kind}{d}d"] = (f"nn.{kind}{d}d(2, 3, 3)", lambda x=x: (r(*x),))
            cases[f"Lazy{kind}{d}d"] = (f"nn.Lazy{kind}{d}d(3, 3)", lambda x=x: (r(*x),))
        for kind in ("AvgPool", "MaxPool", "LPPool"):
            ctor = f"nn.{kind}{d}d(2, 2)" if kind == "LPPool" else f"nn.{kind}{d}d(2)"
            cases[f"{kind}{d}d"] = (ctor, lambda x=x: (r(*x).abs(),))
        for kind in ("AdaptiveAvgPool", "AdaptiveMaxPool"):
            cases[f"{kind}{d}d"] = (f"nn.{kind}{d}d(2)", lambda x=x: (r(*x),))
        for kind in ("ReflectionPad", "ReplicationPad", "CircularPad", "ZeroPad"):
            cases[f"{kind}{d}d"] = (f"nn.{kind}{d}d(1)", lambda x=x: (r(*x),))
        cases[f"ConstantPad{d}d"] = (f"nn.ConstantPad{d}d(1, 0.5)", lambda x=x: (r(*x),))
        for kind in ("BatchNorm", "InstanceNorm"):
            cases[f"{kind}{d}d"] = (f"nn.{kind}{d}d(2, affine=True)", lambda x=x: (r(*x),))
            cases[f"Lazy{kind}{d}d"] = (f"nn.Lazy{kind}{d}d()", lambda x=x: (r(*x),))
        cases[f"MaxUnpool{d}d"] = (f"nn.MaxUnpool{d}d(2)", None)
        cases[f"Dropout{d}d"] = (f"nn.Dropout{d}d()", lambda x=x: (r(*x),))
    return cases


LOSS_PAIR = lambda: (r(3, 5), r(3, 5))  # noqa: E731
CASES = {
    **_conv_cases(),
    "Linear": ("nn.Linear(4, 3)", lambda: (r(2, 4),)),
    "LazyLinear": ("nn.LazyLinear(3)", lambda: (r(2, 4),)),
    "Bilinear": ("nn.Bilinear(4, 5, 3)", lambda: (r(2, 4), r(2, 5))),
    "Identity": ("nn.Identity()", lambda: (r(2, 4),)),
    "Flatten": ("nn.Flatten()", lambda: (r(2, 3, 4),)),
    "Unflatten": ("nn.Unflatten(1, (2, 2))", lambda: (r(3, 4),)),
    "Embedding": ("nn.Embedding(10, 3)", lambda: (torch.tensor([[1, 2], [9, 0]]),)),
    "EmbeddingBag": ("nn.EmbeddingBag(10, 3)", lambda: (torch.tensor([[1, 2], [9, 0]]),)),
    "LayerNorm": ("nn.LayerNorm(4)", lambda: (r(2, 4),)),
    "RMSNorm": ("nn.RMSNorm(4)", lambda: (r(2, 4),)),
    "GroupNorm": ("nn.GroupNorm(2, 4)", lambda: (r(2, 4, 3),)),
    "LocalResponseNorm": ("nn.LocalResponseNorm(2)", lambda: (r(2, 4, 3),)),
    "CrossMapLRN2d": ("nn.CrossMapLRN2d(3)", lambda: (r(2, 4, 3, 3),)),
    "RNN": ("nn.RNN(3, 4, 2)", lambda: (r(5, 2, 3),)),
    "LSTM": ("nn.LSTM(3, 4, batch_first=True)", lambda: (r(2, 5, 3),)),
    "GRU": ("nn.GRU(3, 4, bidirectional=True)", lambda: (r(5, 2, 3),)),
    "RNNCell": ("nn.RNNCell(3, 4)", lambda: (r(2, 3),)),
    "LSTMCell": ("nn.LSTMCell(3, 4)", lambda: (r(2, 3),)),
    "GRUCell": ("nn.GRUCell(3, 4)", lambda: (r(2, 3),)),
    "MultiheadAttention": ("nn.MultiheadAttention(8, 2)", lambda: (r(3, 2, 8),) * 3),
    "TransformerEncoderLayer": ("nn.TransformerEncoderLayer(8, 2, 16)", lambda: (r(3, 2, 8),)),
    "TransformerDecoderLayer": ("nn.TransformerDecoderLayer(8, 2, 16)",
                                lambda: (r(3, 2, 8), r(4, 2, 8))),
    "TransformerEncoder": ("nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, "
                           "enable_nested_tensor=False)", lambda: (r(3, 2, 8),)),
    "TransformerDecoder": ("nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2)",
                           lambda: (r(3, 2, 8), r(4, 2, 8))),
    "Transformer": ("nn.Transformer(8, 2, 1, 1, 16)", lambda: (r(3, 2, 8), r(4, 2, 8))),
    "PixelShuffle": ("nn.PixelShuffle(2)", lambda: (r(1, 8, 2, 2),)),
    "PixelUnshuffle": ("nn.PixelUnshuffle(2)", lambda: (r(1, 2, 4, 4),)),
    "ChannelShuffle": ("nn.ChannelShuffle(2)", lambda: (r(1, 4, 2, 2),)),
    "Fold": ("nn.Fold((4, 5), 2)", lambda: (r(2, 12, 12),)),
    "Unfold": ("nn.Unfold(2)", lambda: (r(2, 3, 4, 4),)),
    "FractionalMaxPool2d": ("nn.FractionalMaxPool2d(2, output_size=2)", None),
    "FractionalMaxPool3d": ("nn.FractionalMaxPool3d(2, output_size=2)", None),
    "Threshold": ("nn.Threshold(0.1, 20.0)", lambda: (r(2, 4),)),
    "Upsample": ("nn.Upsample(scale_factor=2)", lambda: (r(1, 2, 3),)),
    "UpsamplingNearest2d": ("nn.UpsamplingNearest2d(scale_factor=2)", lambda: (r(1, 2, 3, 3),)),
    "UpsamplingBilinear2d": ("nn.UpsamplingBilinear2d(scale_factor=2)", lambda: (r(1, 2, 3, 3),)),
    "Sequential": ("nn.Sequential(nn.Linear(4, 3), nn.Tanh())", lambda: (r(2, 4),)),
    "ModuleList": ("nn.ModuleList([nn.Linear(4, 3), nn.ReLU()])", None),
    "ModuleDict": ("nn.ModuleDict({'a': nn.Linear(4, 3)})", None),
    "ParameterList": ("nn.ParameterList([nn.Parameter(torch.ones(2))])", None),
    "ParameterDict": ("nn.ParameterDict({'p': nn.Parameter(torch.ones(2))})", None),
    "Softmax2d": ("nn.Softmax2d()", lambda: (r(2, 3, 4, 4),)),
    "GLU": ("nn.GLU()", lambda: (r(2, 4),)),
    "CosineSimilarity": ("nn.CosineSimilarity()", LOSS_PAIR),
    "PairwiseDistance": ("nn.PairwiseDistance()", LOSS_PAIR),
    "RReLU": ("nn.RReLU()", lambda: (r(2, 4),)),
    # Losses whose targets are not a float tensor of the input's shape.
    "CrossEntropyLoss": ("nn.CrossEntropyLoss()", lambda: (r(3, 5), torch.tensor([0, 4, 2]))),
    "NLLLoss": ("nn.NLLLoss()", lambda: (r(3, 5), torch.tensor([0, 4, 2]))),
    "NLLLoss2d": ("nn.NLLLoss2d()", lambda: (r(3, 5), torch.tensor([0, 4, 2]))),
    "MultiMarginLoss": ("nn.MultiMarginLoss()", lambda: (r(3, 5), torch.tensor([0, 4, 2]))),
    "MultiLabelMarginLoss": ("nn.MultiLabelMarginLoss()",
                             lambda: (r(2, 3), torch.tensor([[1, -1, 0], [2, 0, -1]]))),
    "BCELoss": ("nn.BCELoss()", lambda: (r(3, 5).sigmoid(), r(3, 5).sigmoid())),
    "CTCLoss": ("nn.CTCLoss()", lambda: (r(6, 2, 4).log_softmax(2), torch.tensor([[1, 2], [3, 1]]),
                                          torch.tensor([6, 5]), torch.tensor([2, 2]))),
    "GaussianNLLLoss": ("nn.GaussianNLLLoss()", lambda: (r(3, 5), r(3, 5), r(3, 5).abs())),
    "MarginRankingLoss": ("nn.MarginRankingLoss()", lambda: (r(4), r(4), r(4).sign())),
    "CosineEmbeddingLoss": ("nn.CosineEmbeddingLoss()", lambda: (r(3, 5), r(3, 5), r(3).sign())),
    "TripletMarginLoss": ("nn.TripletMarginLoss()", lambda: (r(3, 5), r(3, 5), r(3, 5))),
    "TripletMarginWithDistanceLoss": ("nn.TripletMarginWithDistanceLoss()",
                                      lambda: (r(3, 5), r(3, 5), r(3, 5))),
    "AdaptiveLogSoftmaxWithLoss": ("nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6])",
                                   lambda: (r(4, 8), torch.tensor([0, 9, 4, 7]))),
    "LinearCrossEntropyLoss": ("nn.LinearCrossEntropyLoss(4, 5, bias=True)",
                               lambda: (r(3, 4), torch.tensor([0, 4, 2]))),
}


def _nn_classes():
    return sorted(name for name, value in vars(torch.nn).items()
                  if inspect.isclass(value) and issubclass(value, torch.nn.Module))


def _case(name):
    if name in CASES:
        return CASES[name]
    # A class built without arguments; its input is one tensor, or a pair for a loss.
    return f"nn.{name}()", (LOSS_PAIR if name.endswith("Loss") else lambda: (r(2, 3, 4),))


def _to_ember(value):
    return ember.from_numpy(value.numpy().copy()) if isinstance(value, torch.Tensor) else value


def _numpy(out):
    if isinstance(out, (tuple, list)):
        return [_numpy(o) for o in out]
    if out is None:
        return None
    return out.detach().numpy()


def _close(ours, theirs):
    if isinstance(theirs, list):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _close(o, t)
    elif theirs is None:
        assert ours is None
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


def _state(module, to_numpy):
    return {k: to_numpy(v) for k, v in module.state_dict().items()}


def _build(name):
    ctor, inputs = _case(name)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = eval(ctor, {"nn": torch.nn, "torch": torch})  # noqa: S307
    if inputs is not None:
        model(*inputs())          # lazy modules take their shapes here
    return model.eval(), inputs


@pytest.mark.parametrize("name", [n for n in _nn_classes() if n not in MISSING | NOT_BUILT])
def test_whole_module_crosses_both_ways(name):
    theirs, inputs = _build(name)
    saved = io.BytesIO()
    torch.save(theirs, saved)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = ember.load(io.BytesIO(saved.getvalue()), weights_only=False)
    assert type(ours) is getattr(ember.nn, type(theirs).__name__)
    assert repr(ours).replace("ember.", "torch.") == repr(theirs)
    expected = _state(theirs, lambda t: t.numpy())
    got = _state(ours, lambda t: t.numpy())
    assert got.keys() == expected.keys()
    for key in expected:
        np.testing.assert_array_equal(got[key], expected[key])
    if inputs is not None:
        args = inputs()
        with torch.no_grad():
            want = _numpy(theirs(*args))
        with ember.no_grad():
            _close(_numpy(ours(*map(_to_ember, args))), want)
    # ... and back: ember's save of it loads in PyTorch.
    again = io.BytesIO()
    ember.save(ours, again)
    back = torch.load(io.BytesIO(again.getvalue()), weights_only=False)
    assert type(back) is type(theirs)
    assert repr(back) == repr(theirs)
    got = _state(back, lambda t: t.numpy())
    for key in expected:
        np.testing.assert_array_equal(got[key], expected[key])
    if inputs is not None:
        with torch.no_grad():
            _close(_numpy(back(*inputs())), want)


def test_missing_classes_are_still_missing():
    assert not [n for n in MISSING if hasattr(ember.nn, n)]


def test_weights_only_still_refuses_a_whole_module():
    saved = io.BytesIO()
    torch.save(torch.nn.Linear(2, 3), saved)
    with pytest.raises(ember.serialization.pickle.UnpicklingError if hasattr(
            ember.serialization, "pickle") else Exception, match="Unsupported global"):
        ember.load(io.BytesIO(saved.getvalue()), weights_only=True)
    with ember.serialization.safe_globals([ember.nn.Linear]):
        loaded = ember.load(io.BytesIO(saved.getvalue()), weights_only=True)
    assert type(loaded) is ember.nn.Linear


def test_generated_path_table_is_current():
    import pathlib
    import subprocess
    import sys
    root = pathlib.Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, str(root / "tools" / "gen_torch_paths.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_functions_and_classes_are_written_under_pytorch_names():
    saved = io.BytesIO()
    ember.save({"f": ember.nn.functional.gelu, "c": ember.nn.MultiheadAttention,
                "t": ember.relu, "o": ember.optim.Adam}, saved)
    loaded = torch.load(io.BytesIO(saved.getvalue()), weights_only=False)
    assert loaded == {"f": torch.nn.functional.gelu, "c": torch.nn.MultiheadAttention,
                      "t": torch.relu, "o": torch.optim.Adam}
    back = ember.load(io.BytesIO(saved.getvalue()), weights_only=False)
    assert back == {"f": ember.nn.functional.gelu, "c": ember.nn.MultiheadAttention,
                    "t": ember.relu, "o": ember.optim.Adam}
