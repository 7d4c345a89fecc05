"""`ember.library` against `torch.library`: the same user program declares a custom op with a
fake rule and autograd, calls it, differentiates it, shows it to a TorchDispatchMode and a
FakeTensorMode, declares a second through `Library.define/impl`, and infers schemas; every
printed line must agree (NOTE [users' ops are registry ops])."""
from typing import Optional

import pytest
import torch

import ember


def _program(T, TorchDispatchMode, FakeTensorMode, ns):
    printed = []

    def say(*values):
        printed.append(" ".join(str(v) for v in values).replace("ember.", "torch."))

    @T.library.custom_op(f"{ns}::scale_add", mutates_args=())
    def scale_add(x: T.Tensor, y: T.Tensor, k: float = 2.0) -> T.Tensor:
        return x * k + y.sin()

    @scale_add.register_fake
    def _(x, y, k=2.0):
        return T.empty_like(x)

    def setup_context(ctx, inputs, output):
        x, y, k = inputs
        ctx.k = k
        ctx.save_for_backward(y)

    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * ctx.k, grad * y.cos(), None

    scale_add.register_autograd(backward, setup_context=setup_context)
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = T.tensor([0.5, -1.0, 2.0], requires_grad=True)
    out = scale_add(x, y, 3.0)
    out.sum().backward()
    say([round(v, 5) for v in out.tolist()], x.grad.tolist(), [round(v, 5) for v in y.grad.tolist()])
    say(getattr(T.ops, ns).scale_add.default(x.detach(), y.detach()).tolist() == scale_add(x.detach(), y.detach()).tolist())

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            say("saw", str(func).replace(ns, "NS"))
            return func(*args, **(kwargs or {}))
    with Log():
        scale_add(x.detach(), y.detach())
    with FakeTensorMode() as m:
        fx = m.from_tensor(T.ones(4, 2)) if hasattr(m, "from_tensor") else T.ones(4, 2)
        r = scale_add(fx, fx)
        say("fake", tuple(r.shape), r.dtype)

    L = T.library.Library(ns + "2", "DEF")
    L.define("twice(Tensor x) -> Tensor")
    L.impl("twice", lambda x: x * 2, "CompositeExplicitAutograd")
    say(getattr(T.ops, ns + "2").twice(T.ones(2)).tolist())
    say(T.library.infer_schema(scale_add._init_fn, mutates_args=()))
    def f(x: T.Tensor, n: int, s: list[int], w: Optional[T.Tensor] = None, flag: bool = True) -> tuple[T.Tensor, T.Tensor]:
        pass
    say(T.library.infer_schema(f, mutates_args=()))

    return printed


def test_custom_op_program_agrees_with_torch():
    from torch._subclasses.fake_tensor import FakeTensorMode as TheirFake
    from torch.utils._python_dispatch import TorchDispatchMode as TheirMode

    from ember._subclasses.fake_tensor import FakeTensorMode as OurFake
    from ember.utils._python_dispatch import TorchDispatchMode as OurMode
    theirs = _program(torch, TheirMode, TheirFake, "embertest")
    ours = _program(ember, OurMode, OurFake, "embertest")
    assert ours == theirs
    assert len(ours) == 9


def test_errors():
    with pytest.raises(ValueError):
        ember.library.custom_op("no_namespace", mutates_args=())(lambda x: x)
    with pytest.raises(ValueError):
        torch.library.custom_op("no_namespace", mutates_args=())(lambda x: x)

    def untyped(x):
        return x
    with pytest.raises(ValueError):
        ember.library.infer_schema(untyped, mutates_args=())
    with pytest.raises(ValueError):
        torch.library.infer_schema(untyped, mutates_args=())
    lib = ember.library.Library("embertest_err", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError):
        lib.define("f(Tensor x) -> Tensor")


def test_user_ops_stay_out_of_aten():
    def cosine(x: ember.Tensor) -> ember.Tensor:
        return x.cos()
    op = ember.library.custom_op("embertest_aten::sin", mutates_args=())(cosine)
    assert op(ember.zeros(1)).tolist() == [1.0]
    packet = ember.ops.aten.sin
    assert set(packet.overloads()) <= set(torch.ops.aten.sin.overloads())
    assert all(str(getattr(packet, name)).startswith("aten.") for name in packet.overloads())
    assert ember.ops.embertest_aten.sin.default is op._opdef
    assert str(op._opdef) == "embertest_aten.sin.default"
