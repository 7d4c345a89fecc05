"""Every float32 OpInfo sample under both FakeTensorModes: the same outcome (a result, or the
same exception class) with the same shapes, dtypes and devices. Strides are compared by the
model tests and test_fake_tensor.py's stride cases; here they are not (see KNOWN's note)."""
import pytest

torch = pytest.importorskip("torch")
from opinfo import collect
from opinfo.core import to_lib
from torch._subclasses import fake_tensor as torch_fake

import ember
from ember._subclasses import fake_tensor as ember_fake

_READS_DATA = "ember's composite reads the data (no meta path)"
# op name -> (why it differs, the samples that do; "/noncontig" variants included). Listed
# samples are not compared (view_as has several samples of one name, not all of them differ).
KNOWN = {
    "_embedding_bag_forward_only": (("with include_last_offset the bag_size output has one "
                                    "entry more than PyTorch's meta"), {"last offset*"}),
    "embedding_bag": (("with include_last_offset the bag_size output has one entry more than "
                      "PyTorch's meta"), {"last offset*"}),
    "amax": ("ember's meta rule does not refuse an empty reduction without identity",
             {"empty, all", "empty, empty dim"}),
    "amin": ("ember's meta rule does not refuse an empty reduction without identity",
             {"empty, all", "empty, empty dim"}),
    "cholesky_inverse": (_READS_DATA, {"lower", "upper"}),
    "geqrf": (_READS_DATA, {"2x2", "square", "tall", "wide batch"}),
    "linalg.lu_factor": (_READS_DATA, {"2x2", "3x3", "batch", "square", "tall", "wide batch"}),
    "linalg.lu_solve": (_READS_DATA, {"2x2", "left=False adjoint=False",
                                      "left=False adjoint=True", "left=True adjoint=False",
                                      "left=True adjoint=True"}),
    "lu_solve": (_READS_DATA, {"batch"}),
    "lu_unpack": (_READS_DATA, {"2x2", "3x3 batch"}),
    "histogram": (_READS_DATA, {"density", "int bins", "one-point range"}),
    "histogramdd": (_READS_DATA, {"3-d batch", "bin counts"}),
    "tensor_split": ("the indices tensor is read as data", {"sections"}),
    "narrow": ("a tensor start is read as data", {"small", "start", "start 0"}),
    "linalg.lstsq": (("PyTorch raises DynamicOutputShapeException, ember's composite reads the "
                     "data (DataDependentOutputException)"),
                     {"3x2", "batch", "tall None", "tall gels", "tall gelsd", "tall gelss"}),
    "combinations": (("PyTorch's decomposition is data-dependent under fake; ember computes the "
                     "shape"), {"", "r > n", "r=3", "with replacement"}),
    "corrcoef": (("PyTorch's decomposition calls equal (data-dependent); ember computes the "
                 "shape"), {"1-d", "default"}),
    "cov": ("PyTorch's decomposition calls equal (data-dependent); ember computes the shape",
            {"1-d", "correction 0", "default", "negative dof"}),
    "nn.functional.ctc_loss": (("PyTorch's fake refuses _ctc_loss as dynamic; ember's meta rule "
                               "computes it"), {"concatenated, repeated label", "padded"}),
    "nanmean": ("ember's meta rule reduces every dim for dim=()", {"dims ()"}),
    "nansum": ("ember's meta rule reduces every dim for dim=()", {"dims ()"}),
    "rand_like": ("PyTorch's meta does not refuse the integer dtype its kernel refuses",
                  {"int32"}),
    "randn_like": (("PyTorch's meta does not refuse the integer dtype its kernel refuses (a "
                   "RuntimeError there, ember's kernel's NotImplementedError here)"), {"int32"}),
    "rsub": ("the layered pointwise path refuses a bool scalar the fast path takes",
             {"bool scalar"}),
    "sub": ("the layered pointwise path refuses a bool scalar the fast path takes",
            {"bool scalar"}),
    "subtract": ("the layered pointwise path refuses a bool scalar the fast path takes",
                 {"bool scalar"}),
    "take_along_dim": ("PyTorch's fake view of a non-contiguous input raises where it copies",
                       {"dim None/noncontig"}),
    "view": ("PyTorch's fake view raises ValueError, its eager RuntimeError (as ember)",
             {"infer/noncontig", "merge/noncontig"}),
    "view_as": ("PyTorch's fake view raises ValueError, its eager RuntimeError (as ember)",
                {"/noncontig"}),
}


def _describe(value):
    if isinstance(value, (tuple, list)):
        return tuple(_describe(v) for v in value)
    if type(value).__name__ == "FakeTensor":
        return (tuple(value.shape), str(value.dtype).split(".")[-1], str(value.device))
    if hasattr(value, "shape") and hasattr(value, "stride"):
        return ("not fake", type(value).__name__)
    return type(value).__name__


def _convert(value, mode, lib):
    if isinstance(value, (list, tuple)):
        return type(value)(_convert(v, mode, lib) for v in value)
    if isinstance(value, dict):
        return {k: _convert(v, mode, lib) for k, v in value.items()}
    if isinstance(value, lib.Tensor):
        return mode.from_tensor(value)
    return value


def _outcome(info, lib, fake, sample):
    mode = fake.FakeTensorMode()
    args = _convert(to_lib(sample.args, lib), mode, lib)
    kwargs = _convert(to_lib(sample.kwargs, lib), mode, lib)
    try:
        with mode:
            return "ok", _describe(info.function(lib)(*args, **kwargs))
    except Exception as exc:    # noqa: BLE001 - the class is what is compared
        return "raised", type(exc).__name__


def _known(name, sample_name):
    """Whether the sample is listed (an entry ending in "*" lists the names it begins)."""
    _, samples = KNOWN.get(name, (None, ()))
    base = sample_name.removesuffix("/noncontig")
    return any(base == s or sample_name == s or s.endswith("*") and base.startswith(s[:-1])
               for s in samples)


INFOS = sorted({case.values[0].name: case.values[0] for case in collect.CASES
                if case.values[1] == "float32"}.items())


@pytest.mark.parametrize("info", [info for _, info in INFOS], ids=[name for name, _ in INFOS])
def test_fake_outcome_matches_torch(info):
    compared = 0
    for sample in collect.samples(info, "float32"):
        where = f"{info.name} {sample.name}"
        theirs = _outcome(info, torch, torch_fake, sample)
        ours = _outcome(info, ember, ember_fake, sample)
        if _known(info.name, sample.name):
            continue
        assert ours == theirs, where
        compared += 1
    if compared == 0:
        assert info.name in KNOWN, f"{info.name}: no float32 sample compared"
