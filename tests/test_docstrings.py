"""Every public callable that comes from the op registry or a frontend carries a docstring."""
from __future__ import annotations

import inspect

import pytest

import ember
from ember._core.registry import FRONTENDS, OPS


def _public_functions():
    names = set()
    for op in OPS.values():
        if op.function:
            names.add(op.python_name)
            names.update(op.aliases)
    names.update(name for name, fe in FRONTENDS.items() if fe.is_function)
    return sorted(name for name in names if not name.startswith("_"))


def _tensor_methods():
    names = set()
    for op in OPS.values():
        if op.method:
            names.add(op.python_name)
            names.update(op.aliases)
        if op.inplace:
            names.add(op.python_name + "_")
            names.update(alias + "_" for alias in op.aliases)
        names.update(op.dunders)
    for name, fe in FRONTENDS.items():
        if fe.method is not None:
            names.add(name)
        if fe.inplace_method is not None:
            names.add(name + "_")
        names.update(fe.dunders)
    return sorted(names)


def _has_doc(fn) -> bool:
    return bool((inspect.getdoc(fn) or "").strip())


def test_the_lists_are_not_empty():
    # The parametrized tests below would pass vacuously on an empty registry.
    assert len(_public_functions()) > 300
    assert len(_tensor_methods()) > 400


@pytest.mark.parametrize("name", _public_functions())
def test_function_has_docstring(name):
    assert _has_doc(getattr(ember, name)), f"ember.{name} has no docstring"


@pytest.mark.parametrize("name", _tensor_methods())
def test_tensor_method_has_docstring(name):
    assert _has_doc(getattr(ember.Tensor, name)), f"ember.Tensor.{name} has no docstring"


def test_inplace_methods_say_so():
    for op in OPS.values():
        if op.inplace and op.doc:
            doc = getattr(ember.Tensor, op.python_name + "_").__doc__
            assert "In-place" in doc, op.name


def test_generated_function_carries_its_kernels_text():
    op = OPS["add.Tensor"]
    assert ember.add.__doc__ == inspect.cleandoc(op.kernel.__doc__)
    assert inspect.cleandoc(op.kernel.__doc__) in ember.Tensor.add.__doc__


def test_every_registry_entry_has_a_docstring():
    missing = sorted(name for name, op in OPS.items() if not (op.doc or "").strip())
    assert not missing, f"ops without a docstring in their kernel: {missing}"


def test_frontend_keeps_its_own_docstring():
    # div has a written docstring and two overloads in the registry: the registry's text
    # must not replace the frontend's own.
    div = FRONTENDS["div"].function
    source_doc = inspect.getsource(div).split('"""')[1]
    assert inspect.cleandoc(div.__doc__) == inspect.cleandoc(source_doc)


def test_dunder_names_its_operator():
    assert "`self + other`" in ember.Tensor.__add__.__doc__
    assert "`other - self`" not in ember.Tensor.__add__.__doc__
    assert "`self @ other`" in ember.Tensor.__matmul__.__doc__


def test_every_public_function_of_ember_has_a_docstring():
    # Beyond the registry: the hand-written helpers of the front door (is_tensor, seed, ...).
    names = [name for name in dir(ember) if not name.startswith("_")]
    functions = [name for name in names
                 if inspect.isfunction(getattr(ember, name, None))]
    assert len(functions) > 300
    missing = [name for name in functions if not _has_doc(getattr(ember, name))]
    assert not missing, f"ember functions without a docstring: {missing}"
