"""einsum, tensordot, inner, multi_dot and the checking linalg functions under a logging
TorchDispatchMode: the ATen ops (overload included) in PyTorch's order, the values and the
gradients as PyTorch's. einsum and the products are composites that decompose under modes
(ember/_decomp/contractions.py); linalg.inv, cholesky, solve, lu_factor and ldl_factor are the
`_ex` op and `_linalg_check_errors` (NOTE [error checks are an op], _ops/linalg_checks.py)."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch

import ember


def _logged(T, fn):
    base = importlib.import_module(f"{T.__name__}.utils._python_dispatch").TorchDispatchMode

    class Log(base):
        def __init__(self):
            super().__init__()
            self.names = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.append(str(func))
            return func(*args, **(kwargs or {}))
    mode = Log()
    with mode:
        out = fn(T)
    return mode.names, out


def _data(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape)


def _compare(fn, *arrays, grad=True):
    """fn(T, *tensors) under a logging mode in both libraries: the op lists, the values, and
    (float64 leaves) the gradients of the result's sum."""
    found = {}
    for T in (torch, ember):
        leaves = [T.tensor(a, requires_grad=grad) for a in arrays]
        names, out = _logged(T, lambda T: fn(T, *leaves))
        if grad:
            out.sum().backward()
        found[T] = names, out.detach().numpy(), [t.grad.numpy() for t in leaves] if grad else []
    (t_names, t_out, t_grads), (e_names, e_out, e_grads) = found[torch], found[ember]
    assert e_names == t_names
    np.testing.assert_allclose(e_out, t_out, rtol=1e-10, atol=1e-12)
    for e, t in zip(e_grads, t_grads):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)


EINSUMS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("i,i->", [(3,), (3,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
    ("bij,bjk->bk", [(5, 2, 3), (5, 3, 4)]),
    ("ii->i", [(3, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("ii", [(3, 3)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,ij->", [(2, 3), (2, 3)]),
    ("ij,ij->i", [(2, 3), (2, 3)]),
    ("ij,k->k", [(2, 3), (4,)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("...ij,...jk", [(5, 2, 3), (5, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ijk,kl,jkm->im", [(2, 3, 4), (4, 5), (3, 4, 2)]),
    ("abc,abd->cd", [(2, 3, 1), (2, 3, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
def test_einsum_reaches_a_mode_as_pytorchs_ops(equation, shapes):
    arrays = [_data(i, *s) for i, s in enumerate(shapes)]
    _compare(lambda T, *ts: T.einsum(equation, *ts), *arrays)


PRODUCTS = {
    "tensordot 2": (lambda T, a, b: T.tensordot(a, b), [(2, 3, 4), (3, 4, 5)]),
    "tensordot lists": (lambda T, a, b: T.tensordot(a, b, dims=([1, 2], [0, 1])),
                        [(2, 3, 4), (3, 4, 5)]),
    "tensordot strided": (lambda T, a, b: T.tensordot(a.transpose(0, 2), b, dims=([1], [0])),
                          [(2, 3, 4), (3, 5)]),
    "tensordot outer": (lambda T, a, b: T.tensordot(a, b, dims=0), [(3,), (4,)]),
    "tensordot all": (lambda T, a, b: T.tensordot(a, b, 2), [(4, 4), (4, 4)]),
    "tensordot size one": (lambda T, a, b: T.tensordot(a, b, dims=([1], [0])),
                           [(2, 1), (3, 2)]),
    "inner vectors": (lambda T, a, b: T.inner(a, b), [(4,), (4,)]),
    "inner batch": (lambda T, a, b: T.inner(a, b), [(2, 3, 4), (5, 4)]),
    "multi_dot": (lambda T, a, b, c, d: T.linalg.multi_dot([a, b, c, d]),
                  [(2, 4), (4, 4), (4, 6), (6, 3)]),
    "multi_dot vectors": (lambda T, a, b, c: T.linalg.multi_dot([a, b, c]), [(4,), (4, 4), (4,)]),
    "chain_matmul": (lambda T, a, b, c: T.chain_matmul(a, b, c), [(2, 4), (4, 5), (5, 3)]),
}


@pytest.mark.filterwarnings("ignore:torch.chain_matmul is deprecated")
@pytest.mark.parametrize("name", list(PRODUCTS))
def test_products_reach_a_mode_as_pytorchs_ops(name):
    fn, shapes = PRODUCTS[name]
    _compare(fn, *[_data(i, *s) for i, s in enumerate(shapes)])


def _spd(n, batch=()):
    a = _data(7, *batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


CHECKED = {
    "linalg.inv": (lambda T, a: T.linalg.inv(a), [_spd(3)]),
    "inverse": (lambda T, a: T.inverse(a), [_spd(3, (2,))]),
    "linalg.cholesky": (lambda T, a: T.linalg.cholesky(a), [_spd(3)]),
    "linalg.lu_factor": (lambda T, a: T.linalg.lu_factor(a)[0], [_data(2, 3, 3)]),
    "linalg.tensorinv": (lambda T, a: T.linalg.tensorinv(a.reshape(3, 1, 3), ind=2), [_spd(3)]),
    "matrix_power -2": (lambda T, a: T.linalg.matrix_power(a, -2), [_spd(3)]),
    "svdvals": (lambda T, a: T.linalg.svdvals(a), [_data(3, 4, 3)]),
    "eigvalsh": (lambda T, a: T.linalg.eigvalsh(a), [_spd(3)]),
}


@pytest.mark.parametrize("name", list(CHECKED))
def test_linalg_reaches_a_mode_as_pytorchs_ops(name):
    fn, arrays = CHECKED[name]
    _compare(fn, *arrays)


@pytest.mark.parametrize("name", ["linalg.inv", "linalg.cholesky", "linalg.lu_factor",
                                  "linalg.solve", "inverse"])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_a_failed_check_under_a_mode_raises_pytorchs_error(name, batch):
    singular = np.zeros(batch + (3, 3))
    raised = {}
    for T in (torch, ember):
        fn = {"linalg.solve": lambda A: T.linalg.solve(A, A)}.get(
            name, eval(f"T.{name}", {"T": T}))
        with pytest.raises(Exception) as info:
            _logged(T, lambda T: fn(T.tensor(singular)))
        raised[T] = type(info.value).__name__, str(info.value)
    assert raised[ember] == raised[torch]
