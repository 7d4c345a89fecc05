"""Mode state and threads, against PyTorch: grad and inference mode are per thread; a forward-AD
level is open for every thread. One thread holds a mode open while another computes."""
import importlib
import threading

import torch

import ember


def _while_held(lib, enter, work):
    """Run `work()` in this thread while another thread holds `enter()` open."""
    opened, done = threading.Event(), threading.Event()

    def holder():
        with enter():
            opened.set()
            done.wait(10)
    thread = threading.Thread(target=holder)
    thread.start()
    opened.wait(10)
    try:
        return work()
    finally:
        done.set()
        thread.join()


def _grad_mode_case(lib, mode):
    x = lib.ones(3, requires_grad=True)
    y = _while_held(lib, getattr(lib, mode), lambda: x * x)
    return y.requires_grad, y.grad_fn is not None


def test_no_grad_in_another_thread_leaves_this_one_recording():
    assert _grad_mode_case(ember, "no_grad") == _grad_mode_case(torch, "no_grad") == \
        (True, True)


def test_inference_mode_in_another_thread_does_not_mark_this_ones_tensors():
    def case(lib):
        x = lib.ones(3, requires_grad=True)

        def work():
            y = x * 2
            z = lib.zeros(2)
            return y.is_inference(), z.is_inference(), y.grad_fn is not None
        return _while_held(lib, lib.inference_mode, work)
    assert case(ember) == case(torch) == (False, False, True)


def test_inference_mode_in_this_thread_still_marks():
    def case(lib):
        def work():
            with lib.inference_mode():
                return (lib.ones(2) * 2).is_inference()
        return _while_held(lib, lib.no_grad, work)
    assert case(ember) == case(torch) is True


def test_forward_ad_level_is_shared_by_threads_as_in_torch():
    def case(lib):
        fwad = importlib.import_module(lib.__name__ + ".autograd.forward_ad")

        def work():
            dual = fwad.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]))
            return fwad.unpack_dual((dual * dual).sum()).tangent.item()
        return _while_held(lib, fwad.dual_level, work)
    assert case(ember) == case(torch)


def test_threads_outside_a_level_compute_no_tangents_after_it_closes():
    for lib in (ember, torch):
        fwad = importlib.import_module(lib.__name__ + ".autograd.forward_ad")
        with fwad.dual_level():
            dual = fwad.make_dual(lib.ones(2), lib.ones(2))
        assert fwad.unpack_dual(dual * 2).tangent is None


def test_function_mode_in_another_thread_sees_nothing_here():
    from ember.overrides import TorchFunctionMode

    class Log(TorchFunctionMode):
        seen = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.seen.append(func)
            return func(*args, **(kwargs or {}))
    a = ember.ones(2)
    _while_held(ember, Log, lambda: a + a)
    assert Log.seen == []
    with Log():
        a + a
    assert len(Log.seen) == 1
