"""ember.autograd's enforce_grad_layout_policy, set_multithreading_enabled and the legacy
NestedIOFunction, against torch.autograd."""
import threading

import pytest

import ember
from ember.autograd import grad_mode

torch = pytest.importorskip("torch")


def layout_flag(lib):
    if lib is torch:
        return torch._C._is_grad_layout_enforcement_enabled()
    return grad_mode._state.grad_layout_enforced


def threading_flag(lib):
    if lib is torch:
        return torch._C._is_multithreading_enabled()
    return grad_mode._state.multithreading


def first_grad_strides(lib, enforce):
    p = lib.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
    with lib.autograd.enforce_grad_layout_policy(enforce):
        # contiguous's backward hands the (row-major) gradient of the product straight on
        (p.contiguous() * 2).sum().backward()
    return p.stride(), p.grad.stride()


@pytest.mark.parametrize("enforce", [True, False])
def test_grad_layout_policy_decides_the_first_grad_strides(enforce):
    assert first_grad_strides(ember, enforce) == first_grad_strides(torch, enforce)


LIBS = pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])


@LIBS
def test_grad_layout_policy_as_block_call_and_decorator(lib):
    policy = lib.autograd.enforce_grad_layout_policy
    with policy(False):
        assert layout_flag(lib) is False
    assert layout_flag(lib) is True

    @policy(False)
    def inside():
        return layout_flag(lib)

    assert layout_flag(lib) is True       # decorating does not switch it
    assert inside() is False
    assert layout_flag(lib) is True
    switch = policy(False)                # as a call: set until the block is left
    assert layout_flag(lib) is False
    switch.__exit__(None, None, None)
    assert layout_flag(lib) is True


@LIBS
def test_multithreading_switch_is_per_thread_and_restored(lib):
    switch = lib.autograd.set_multithreading_enabled
    with switch(False):
        assert threading_flag(lib) is False
        seen = []
        worker = threading.Thread(target=lambda: seen.append(threading_flag(lib)))
        worker.start()
        worker.join()
        assert seen == [True]
    assert threading_flag(lib) is True
    x = lib.ones(3, requires_grad=True)
    with switch(False):
        (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    switch(False).__exit__(None, None, None)
    assert threading_flag(lib) is True


def test_nested_io_function_bookkeeping():
    for lib in (torch, ember):
        NestedIOFunction = lib.autograd.NestedIOFunction
        assert issubclass(NestedIOFunction, lib.autograd.Function)
        fn = NestedIOFunction()
        a, b = lib.ones(2), lib.zeros(3)
        fn.save_for_backward(a, (b, None))
        assert len(fn.to_save) == 2 and fn.to_save[1] is b
        with pytest.raises(ValueError, match="Auto nesting doesn't know how to process an "
                                             "input object of type int"):
            fn.save_for_backward(a, 3)
        fn.mark_dirty(a, key=b)
        assert [t is u for t, u in zip(fn.dirty_tensors, (a, b))] == [True, True]
        fn.mark_non_differentiable([b])
        assert fn.non_differentiable[0] is b
        with pytest.raises(NotImplementedError):
            fn.forward_extended(a)
        with pytest.raises(NotImplementedError):
            fn.backward_extended(a)
