"""torch.library's rules for users' ops against PyTorch's: one program per feature, run with
`torch` and with `ember`, printing what it sees; the printed lines must agree (NOTE [rules
attached to users' ops]): register_torch_dispatch, register_vmap, register_autocast,
get_kernel, get_ctx, impl_abstract, fallthrough_kernel, triton_op and wrap_triton."""
import importlib
import itertools
import warnings

import pytest
import torch

import ember

_names = itertools.count()


def _run(program):
    """(PyTorch's lines, ember's lines) of `program(T, say, ns)`, each under a fresh namespace."""
    out = []
    for T in (torch, ember):
        printed = []

        def say(*values):
            printed.append(" ".join(str(v) for v in values).replace("ember", "torch"))
        program(T, say, f"emberrules{next(_names)}")
        out.append(printed)
    return out


def _dispatch_mode(T):
    return importlib.import_module(f"{T.__name__}.utils._python_dispatch").TorchDispatchMode


def _fake_mode(T):
    return (torch._subclasses.fake_tensor if T is torch
            else ember._subclasses.fake_tensor).FakeTensorMode


def test_torch_dispatch_rule_answers_for_its_mode_only():
    def program(T, say, ns):
        @T.library.custom_op(f"{ns}::foo", mutates_args=())
        def foo(x: T.Tensor) -> T.Tensor:
            return x.clone()

        class Mode(_dispatch_mode(T)):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                say("mode saw", str(func).replace(ns, "NS"))
                return func(*args, **(kwargs or {}))

        class Other(_dispatch_mode(T)):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))

        @T.library.register_torch_dispatch(f"{ns}::foo", Mode)
        def _(mode, func, types, args, kwargs):
            say("rule", type(mode).__name__, str(func).replace(ns, "NS"), len(args), kwargs)
            return args[0] + 1

        x = T.tensor([1.0, 2.0])
        say(foo(x).tolist())
        with Mode():
            say(foo(x).tolist())
            say(T.sin(T.zeros(1)).tolist())
        with Other():
            say(foo(x).tolist())
    theirs, ours = _run(program)
    assert ours == theirs
    assert any(line.startswith("rule") for line in ours)


def test_torch_dispatch_rule_on_a_custom_op_def_method():
    def program(T, say, ns):
        @T.library.custom_op(f"{ns}::bar", mutates_args=())
        def bar(x: T.Tensor, k: float) -> T.Tensor:
            return x * k

        class Mode(_dispatch_mode(T)):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))

        @bar.register_torch_dispatch(Mode)
        def _(mode, func, types, args, kwargs):
            return func(args[0], args[1] + 1)
        with Mode():
            say(bar(T.ones(2), 2.0).tolist())
    theirs, ours = _run(program)
    assert ours == theirs == ["[3.0, 3.0]"]


def test_vmap_rule_maps_the_op():
    def program(T, say, ns):
        @T.library.custom_op(f"{ns}::mul", mutates_args=())
        def mul(x: T.Tensor, y: T.Tensor) -> T.Tensor:
            return x * y

        @T.library.register_vmap(f"{ns}::mul")
        def _(info, in_dims, x, y):
            say("rule", info.batch_size, info.randomness, in_dims)
            x = x.movedim(in_dims[0], -1) if in_dims[0] is not None else x.unsqueeze(-1)
            y = y.movedim(in_dims[1], -1) if in_dims[1] is not None else y.unsqueeze(-1)
            return (x * y).movedim(-1, 0), 0

        x = T.arange(6.0).reshape(2, 3)
        y = T.tensor([1.0, 10.0, 100.0])
        say(T.vmap(mul)(x, y[:2].unsqueeze(1).expand(2, 3)).tolist())
        say(T.vmap(mul, in_dims=(1, None))(x, y[:2]).tolist())
        say(T.vmap(mul, in_dims=(0, None), out_dims=1)(x, y).tolist())
    theirs, ours = _run(program)
    assert ours == theirs
    assert sum(line.startswith("rule") for line in ours) == 3


def test_vmap_rule_through_custom_op_def_with_two_outputs():
    def program(T, say, ns):
        @T.library.custom_op(f"{ns}::pair", mutates_args=())
        def pair(x: T.Tensor) -> tuple[T.Tensor, T.Tensor]:
            return x * 2, x.sum(-1)

        @pair.register_vmap
        def _(info, in_dims, x):
            say("rule", in_dims)
            x = x.movedim(in_dims[0], 0)
            return (x * 2, x.sum(-1)), (0, 0)
        a, b = T.vmap(pair, in_dims=1, out_dims=(1, 0))(T.arange(6.0).reshape(3, 2))
        say(a.tolist(), b.tolist())
    theirs, ours = _run(program)
    assert ours == theirs


def test_autocast_rule_casts_the_inputs():
    def program(T, say, ns):
        @T.library.custom_op(f"{ns}::sin", mutates_args=())
        def mysin(x: T.Tensor) -> T.Tensor:
            return x.sin()

        @mysin.register_fake
        def _(x):
            return T.empty_like(x)
        x = T.tensor([0.5, 1.0])
        with T.autocast("cpu", dtype=T.bfloat16):
            say("before", mysin(x).dtype)
        T.library.register_autocast(f"{ns}::sin", "cpu", T.float16)
        with T.autocast("cpu", dtype=T.bfloat16):
            out = mysin(x)
            say("after", out.dtype, out.float().tolist())
            say("double", mysin(x.double()).dtype)
        say("off", mysin(x).dtype)
        try:
            T.library.register_autocast(f"{ns}::sin", "nodevice", T.float16)
        except (ValueError, RuntimeError) as exc:    # (the device list differs)
            say(type(exc).__name__, str(exc).split(" of ")[0])
    theirs, ours = _run(program)
    assert ours == theirs


def test_get_kernel_finds_and_runs_kernels():
    def program(T, say, ns):
        @T.library.custom_op(f"{ns}::f", mutates_args=())
        def f(x: T.Tensor) -> T.Tensor:
            return x * 2
        keys = (T._C.DispatchKeySet("CPU") if T is torch
                else T.DispatchKeySet(T.DispatchKey.CPU))
        kernel = T.library.get_kernel(f"{ns}::f", "CPU")
        say(type(kernel).__name__, kernel.call_boxed(keys, T.ones(2)).tolist())
        add = T.library.get_kernel("aten::add.Tensor", "CPU")
        say(add.call_boxed(keys, T.ones(2), T.ones(2), alpha=3).tolist())
        add = T.library.get_kernel(T.ops.aten.add.Tensor, T.DispatchKey.CPU if T is ember
                                   else T._C.DispatchKey.CPU)
        say(add.call_boxed(keys, T.ones(1), T.ones(1)).tolist())
        for args in ((f"{ns}::nope", "CPU"), ("aten::add", "CPU"), (f"{ns}::f", "Autograd"),
                     (f"{ns}::f", "CompositeExplicitAutograd"), (f"{ns}::f", "Bogus"), (f, "CPU")):
            try:
                T.library.get_kernel(*args)
            except (RuntimeError, ValueError) as exc:
                say(type(exc).__name__, str(exc).replace(ns, "NS").split(":")[0])
    theirs, ours = _run(program)
    assert ours == theirs
    assert len(ours) == 9


def test_get_ctx_inside_a_fake_rule():
    def program(T, say, ns):
        @T.library.custom_op(f"{ns}::nz", mutates_args=())
        def nz(x: T.Tensor) -> T.Tensor:
            return x.nonzero()

        @nz.register_fake
        def _(x):
            ctx = T.library.get_ctx()
            say("ctx", ctx is not None)
            rows = ctx.new_dynamic_size()
            return x.new_empty(rows, x.dim(), dtype=T.int64)
        say("outside", T.library.get_ctx())
        say(nz(T.tensor([0.0, 1.0, 2.0])).tolist())
        exception = (torch._subclasses.fake_tensor if T is torch
                     else ember._subclasses.fake_tensor).DynamicOutputShapeException
        with _fake_mode(T)() as mode:
            try:
                nz(mode.from_tensor(T.ones(3)))
            except exception:
                say("dynamic output shape")
    theirs, ours = _run(program)
    assert ours == theirs
    assert ours[-1] == "dynamic output shape"


def test_impl_abstract_is_register_fake_with_a_warning():
    def program(T, say, ns):
        lib = T.library.Library(ns, "DEF")
        lib.define("g(Tensor x) -> Tensor")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")

            @T.library.impl_abstract(f"{ns}::g", lib=lib)
            def _(x):
                return x.new_empty(x.shape[0], 2)
        say([w.category.__name__ for w in caught])
        with _fake_mode(T)() as mode:
            say(tuple(getattr(T.ops, ns).g(mode.from_tensor(T.ones(3))).shape))
    theirs, ours = _run(program)
    assert ours == theirs
    assert ours[0] == "['FutureWarning']"


def test_fallthrough_kernel():
    def program(T, say, ns):
        try:
            T.library.fallthrough_kernel()
        except NotImplementedError as exc:
            say(exc)
        lib = T.library.Library(ns, "DEF")
        lib.define("h(Tensor x) -> Tensor")
        lib.impl("h", lambda x: x * 3, "CPU")
        lib.impl("h", T.library.fallthrough_kernel, "AutocastCPU")
        lib.impl("h", T.library.fallthrough_kernel, "ADInplaceOrView")
        with T.autocast("cpu"):
            say(getattr(T.ops, ns).h(T.ones(2)).tolist())
    theirs, ours = _run(program)
    assert ours == theirs


def test_triton_op_is_a_custom_op_whose_body_is_its_fake():
    def program(T, say, ns):
        @T.library.triton_op(f"{ns}::tadd", mutates_args=())
        def tadd(x: T.Tensor, y: T.Tensor) -> T.Tensor:
            out = T.empty_like(x)
            out.copy_(x + y)
            return out
        say(type(tadd).__name__, tadd(T.ones(2), T.ones(2)).tolist())
        with _fake_mode(T)() as mode:
            say(tuple(tadd(mode.from_tensor(T.ones(3)), mode.from_tensor(T.ones(3))).shape))

        class Log(_dispatch_mode(T)):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                say("saw", str(func).replace(ns, "NS"))
                return func(*args, **(kwargs or {}))
        x = T.ones(2)
        with Log():
            tadd(x, x)
        try:
            T.library.triton_op(f"{ns}::untyped", lambda x: x, mutates_args=())
        except ValueError as exc:
            say("ValueError", str(exc).split(".")[0])
    theirs, ours = _run(program)
    assert ours == theirs


def test_wrap_triton_without_triton_raises_pytorchs_error():
    pytest.importorskip("torch")
    errors = []
    for T in (torch, ember):
        with pytest.raises(ImportError) as info:
            T.library.wrap_triton(lambda x: x)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]
