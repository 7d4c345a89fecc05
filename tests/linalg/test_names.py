"""ember.linalg has every public name of torch.linalg, and the top-level linear-algebra forms
and Tensor methods PyTorch has."""
import pytest

import ember

torch = pytest.importorskip("torch")

TOP_LEVEL = ("det", "logdet", "slogdet", "inverse", "cholesky", "cholesky_solve",
             "cholesky_inverse", "triangular_solve", "lu_unpack", "qr", "svd", "pinverse",
             "matrix_exp", "matrix_power", "lu", "lu_solve", "geqrf", "orgqr", "ormqr")


def test_every_public_torch_linalg_name_exists():
    wanted = {n for n in dir(torch.linalg) if not n.startswith("_") and n != "common_notes"}
    missing = sorted(n for n in wanted if not hasattr(ember.linalg, n))
    assert not missing, missing


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_top_level_forms_and_methods_exist_where_torchs_do(name):
    assert hasattr(ember, name) == hasattr(torch, name)
    assert hasattr(ember.Tensor, name) == hasattr(torch.Tensor, name), name
