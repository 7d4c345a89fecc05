"""Parameter, Buffer, UninitializedParameter and UninitializedBuffer against torch: storage
sharing, leaves, requires_grad, result types of ops, repr, deepcopy, pickling, isinstance rules,
and the uninitialised placeholders' errors and materialisation."""
from __future__ import annotations

import copy
import pickle

import pytest
from tests.nn.test_module import assert_same


def test_parameter_shares_storage_and_is_a_leaf():
    def run(lib):
        data = lib.arange(4.0)
        param = lib.nn.Parameter(data)
        frozen = lib.nn.Parameter(data, requires_grad=False)
        from_graph = lib.nn.Parameter(lib.ones(2, requires_grad=True) * 3)
        return (param.data_ptr() == data.data_ptr(), param.is_leaf, param.requires_grad,
                param.grad_fn, frozen.requires_grad, from_graph.is_leaf,
                from_graph.requires_grad, lib.nn.Parameter(), isinstance(param, lib.Tensor))
    assert_same(run)


@pytest.mark.parametrize("op", [
    lambda p: p * 2, lambda p: p + p, lambda p: p.clone(), lambda p: p.detach(),
    lambda p: p.data, lambda p: p[0], lambda p: p.view(4), lambda p: p.t(),
    lambda p: p.sum(), lambda p: p.float(), lambda p: p.double(), lambda p: -p,
])
def test_ops_on_parameters_give_the_types_torch_gives(op):
    assert_same(lambda lib: type(op(lib.nn.Parameter(lib.ones(2, 2)))).__name__)


def test_parameter_repr_matches_torch():
    assert_same(lambda lib: repr(lib.nn.Parameter(lib.tensor([1.5, -2.0]))))
    assert_same(lambda lib: repr(lib.nn.Parameter(lib.ones(2), requires_grad=False)))
    assert_same(lambda lib: str(lib.nn.Parameter(lib.zeros(2, 2, dtype=lib.float64))))


def test_parameter_deepcopy_and_pickle_match_torch():
    def run(lib):
        param = lib.nn.Parameter(lib.arange(3.0), requires_grad=False)
        param.note = "kept"
        memo_copy = copy.deepcopy([param, param])
        pickled = pickle.loads(pickle.dumps(param))
        return (type(memo_copy[0]).__name__, memo_copy[0] is memo_copy[1],
                memo_copy[0].data_ptr() != param.data_ptr(), memo_copy[0].requires_grad,
                memo_copy[0].note, type(pickled).__name__, pickled.requires_grad,
                pickled, pickled.note)
    assert_same(run)


def test_non_tensor_data_raises_like_torch():
    assert_same(lambda lib: lib.nn.Parameter([1.0, 2.0]))


def test_buffer_marks_a_tensor_and_isinstance_follows_the_mark():
    def run(lib):
        data = lib.ones(2)
        buffer = lib.nn.Buffer(data, persistent=False)
        return (type(buffer).__name__, isinstance(buffer, lib.nn.Buffer),
                isinstance(data, lib.nn.Buffer), buffer.persistent,
                buffer.data_ptr() == data.data_ptr(), buffer is data,
                type(buffer * 2).__name__, isinstance(buffer * 2, lib.nn.Buffer),
                lib.nn.Buffer(), isinstance(lib.nn.Parameter(lib.ones(1)), lib.nn.Buffer))
    assert_same(run)


def test_buffer_keeps_requires_grad_of_its_data():
    assert_same(lambda lib: lib.nn.Buffer(lib.ones(2, requires_grad=True)).requires_grad)


def test_uninitialized_parameter_refuses_ops_like_torch():
    def run(lib, op):
        op(lib.nn.UninitializedParameter())
    for op in (lambda u: u + 1, lambda u: u.sum(), lambda u: u.shape, lambda u: u.exp()):
        torch_result, ember_result = [r[:2] for r in _both_raw(lambda lib, op=op: run(lib, op))]
        assert ember_result == torch_result


def _both_raw(fn):
    from tests.nn.test_module import both
    return both(fn)


def test_uninitialized_placeholders_match_torch():
    def run(lib):
        param = lib.nn.UninitializedParameter(requires_grad=False, dtype=lib.float64)
        buffer = lib.nn.UninitializedBuffer(persistent=False)
        facts = [repr(param), repr(buffer), isinstance(param, lib.nn.Parameter),
                 isinstance(buffer, lib.nn.Buffer), buffer.persistent, param.dtype,
                 param.requires_grad, lib.nn.parameter.is_lazy(param),
                 param.is_floating_point(), type(copy.deepcopy(param)).__name__]
        param.materialize((2, 3))
        buffer.materialize(4, dtype=lib.int64)
        facts += [type(param).__name__, tuple(param.shape), param.dtype, param.requires_grad,
                  type(buffer).__name__, tuple(buffer.shape), buffer.dtype,
                  lib.nn.parameter.is_lazy(param)]
        return facts
    assert_same(run)


def test_uninitialized_parameter_pickles_as_a_placeholder():
    def run(lib):
        clone = pickle.loads(pickle.dumps(lib.nn.UninitializedParameter(requires_grad=False)))
        return type(clone).__name__, clone.requires_grad
    assert_same(run)


def test_uninitialized_share_memory_raises_like_torch():
    assert_same(lambda lib: lib.nn.UninitializedParameter().share_memory_())
