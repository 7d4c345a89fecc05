"""ember._decomp's tables and functions against torch._decomp: the keys are ember's op entries
named as PyTorch's overloads, the core set is a subset of PyTorch's core table, and the ops
marked CompositeImplicit are exactly those PyTorch implements so."""
from __future__ import annotations

import pytest

import ember
from ember._core.registry import OPS
from ember._decomp import (
    composite,
    core_aten_decompositions,
    decomposition_table,
    get_decompositions,
    global_decomposition_table,
    register_decomposition,
    remove_decompositions,
)
from ember.ops import aten

torch = pytest.importorskip("torch")
torch_decomp = pytest.importorskip("torch._decomp")


def _name(op) -> str:
    return f"{op.schema.name}.{op.schema.overload or 'default'}"


def _torch_names(table) -> set:
    return {f"{k._opname}.{k._overloadname}" for k in table}


def test_composite_implicit_list_is_pytorchs():
    theirs = set()
    for name in OPS:
        qualified = name if "::" in name else "aten::" + name      # (profiler::... ops)
        if torch._C._dispatch_has_kernel(qualified) and \
                torch._C._dispatch_has_kernel_for_dispatch_key(qualified,
                                                               "CompositeImplicitAutograd"):
            theirs.add(name)
    assert set(composite.COMPOSITE_IMPLICIT) == theirs


def test_only_composites_decompose_under_modes():
    decomposing = {name for name, op in OPS.items() if op.decomposition is not None}
    assert decomposing <= set(composite.COMPOSITE_IMPLICIT)
    assert {"linear", "matmul", "softmax.int", "log_softmax.int", "cross_entropy_loss",
            "nll_loss_nd", "flatten.using_ints", "reshape"} <= decomposing


def test_every_key_is_a_pytorch_overload():
    for op in decomposition_table:
        packet = getattr(torch.ops.aten, op.schema.name)
        assert hasattr(packet, op.schema.overload or "default"), _name(op)


def test_core_table_is_a_subset_of_pytorchs():
    ours = {_name(op) for op in core_aten_decompositions()}
    assert len(ours) >= 90
    missing = ours - _torch_names(torch_decomp.core_aten_decompositions())
    assert not missing, f"not in PyTorch's core table: {sorted(missing)}"


def test_core_table_is_a_fresh_dict_of_the_registered_functions():
    first = core_aten_decompositions()
    first.clear()
    second = core_aten_decompositions()
    assert second and all(decomposition_table[op] is fn for op, fn in second.items())


def test_tables_by_type_as_pytorch():
    assert set(global_decomposition_table) == set(torch_decomp.global_decomposition_table)
    assert global_decomposition_table["post_autograd"] is decomposition_table


def test_get_decompositions_takes_packets_and_overloads():
    found = get_decompositions([aten.squeeze, aten.linear.default, aten.relu])
    # A packet brings each of its overloads that has a decomposition; keys are overloads.
    assert set(found) == {aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims,
                          aten.linear.default}
    assert found[aten.linear.default] is decomposition_table[aten.linear.default]
    theirs = torch_decomp.get_decompositions([torch.ops.aten.squeeze])
    assert {_name(op) for op in found if op.schema.name == "squeeze"} <= _torch_names(theirs)


def test_unknown_types_and_ops_are_refused_as_pytorch_does():
    with pytest.raises(AssertionError):
        torch_decomp.get_decompositions([torch.ops.aten.relu], type="sideways")
    with pytest.raises(AssertionError):
        get_decompositions([aten.relu], type="sideways")
    with pytest.raises(AssertionError):
        torch_decomp.register_decomposition(torch.ops.aten.relu, type="sideways")
    with pytest.raises(AssertionError):
        register_decomposition(aten.relu, type="sideways")
    with pytest.raises(AssertionError):
        torch_decomp.register_decomposition("relu", registry={})(lambda x: x)
    with pytest.raises(AssertionError):
        register_decomposition("relu", registry={})(lambda x: x)


def test_register_decomposition_into_a_registry():
    registry: dict = {}

    @register_decomposition(aten.squeeze, registry=registry)
    def my_squeeze(*args):
        return None

    assert set(registry) == {aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims}
    assert aten.squeeze.default not in get_decompositions([]) and my_squeeze
    with pytest.raises(RuntimeError, match="duplicate"):
        register_decomposition(aten.squeeze.dim, registry=registry)(my_squeeze)
    remove_decompositions(registry, [aten.squeeze.dim])
    assert set(registry) == {aten.squeeze.default, aten.squeeze.dims}
    remove_decompositions(registry, [aten.squeeze])
    assert registry == {}


def test_register_decomposition_takes_a_list():
    registry: dict = {}
    register_decomposition([aten.relu.default, aten.t], registry=registry)(lambda x: x)
    assert set(registry) == {aten.relu.default, aten.t.default}


def test_decomposed_op_keeps_its_own_kernel_without_modes():
    # Without a mode linear runs as one op, whose node is named as PyTorch's composite's last.
    for shape, bias in (((3, 4), False), ((3, 5, 4), True)):
        x = ember.randn(*shape, requires_grad=True)
        out = ember.nn.functional.linear(x, ember.randn(2, 4), ember.randn(2) if bias else None)
        xt = torch.randn(*shape, requires_grad=True)
        expected = torch.nn.functional.linear(xt, torch.randn(2, 4),
                                              torch.randn(2) if bias else None)
        assert type(out.grad_fn).__name__ == type(expected.grad_fn).__name__
