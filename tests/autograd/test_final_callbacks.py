"""Variable._execution_engine.queue_callback (NOTE [final callbacks]) against PyTorch: a
callback queued from a hook runs once the backward pass has run every node, in queue order;
outside a backward pass queuing raises."""
import pytest

import ember

torch = pytest.importorskip("torch")


def _events(lib):
    from_engine = lib.autograd.Variable._execution_engine
    a = lib.ones(3, requires_grad=True)
    b = lib.full((2,), 2.0, requires_grad=True)
    events = []

    def hook_a(grad):
        events.append(("hook a", grad.tolist()))
        from_engine.queue_callback(lambda: events.append(("first", a.grad.tolist(),
                                                          b.grad.tolist())))
        from_engine.queue_callback(lambda: events.append(("second",)))

    a.register_hook(hook_a)
    b.register_hook(lambda grad: events.append(("hook b", grad.tolist())))
    ((a * 3).sum() + (b * b).sum()).backward()
    ((a * 1).sum() + b.sum()).backward()
    return events


def test_callbacks_run_at_the_end_of_backward_in_order():
    ours = _events(ember)
    theirs = _events(torch)
    assert ours == theirs
    assert ("first", [3.0, 3.0, 3.0], [4.0, 4.0]) in ours


def test_queue_callback_outside_backward_raises():
    with pytest.raises(RuntimeError) as ours:
        ember.autograd.Variable._execution_engine.queue_callback(lambda: None)
    with pytest.raises(RuntimeError) as theirs:
        torch.autograd.Variable._execution_engine.queue_callback(lambda: None)
    assert str(ours.value) == str(theirs.value)
