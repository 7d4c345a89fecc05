"""ember.nn.Module against torch.nn.Module: registration, attribute rules, traversal (names,
orders, prefixes), submodule paths, modes, conversions, apply, repr, dir, copying, pickling and
the call path. Each test builds the same module tree in both libraries (`zoo(lib)`) and compares
what they report; `canon` turns results into plain comparable values."""
from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember

LIBS = (torch, ember)


def zoo(lib):
    """The same small module classes written against `lib` (torch or ember)."""
    nn = lib.nn

    class Affine(nn.Module):
        def __init__(self, n_in=3, n_out=2):
            super().__init__()
            self.n_in, self.n_out = n_in, n_out
            values = lib.arange(n_in * n_out, dtype=lib.float32).reshape(n_out, n_in) / 10
            self.weight = nn.Parameter(values)
            self.bias = nn.Parameter(lib.zeros(n_out))
            self.register_buffer("calls", lib.zeros((), dtype=lib.int64))
            self.register_buffer("scratch", lib.ones(2), persistent=False)

        def forward(self, x):
            return x.matmul(self.weight.t()) + self.bias

        def extra_repr(self):
            return f"in={self.n_in}, out={self.n_out}"

    class Tanh(nn.Module):
        def forward(self, x):
            return x.tanh()

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Affine(4, 4)
            self.register_module("missing", None)
            self.register_parameter("gate", None)
            self.register_buffer("nothing", None)
            self.gain = nn.Parameter(lib.ones(4))
            self.act = Tanh()

        def forward(self, x):
            return self.act(self.inner(x)) * self.gain

        def extra_repr(self):
            return "first line\nsecond line"

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.first = Affine(3, 4)
            self.block = Block()
            self.again = self.first
            self.scale = nn.Parameter(lib.tensor(2.0))
            self.register_buffer("step", lib.tensor(0))
            self.tied = self.first.weight

        def forward(self, x):
            return self.block(self.first(x)) * self.scale

    return {"Affine": Affine, "Tanh": Tanh, "Block": Block, "Net": Net}


class _Close:
    """Floating values that compare equal when close (kernels may round differently)."""

    def __init__(self, array):
        self.array = np.asarray(array, dtype=np.complex128 if array.dtype.kind == "c" else
                                np.float64)

    def __eq__(self, other):
        return isinstance(other, _Close) and self.array.shape == other.array.shape and \
            np.allclose(self.array, other.array, rtol=1e-5, atol=1e-6, equal_nan=True)

    def __repr__(self):
        return repr(self.array.tolist())


def canon(value):
    """A plain, library-free form of `value` for comparing torch's and ember's answers."""
    if isinstance(value, (torch.Tensor, ember.Tensor)):
        array = value.detach().numpy()
        kind = "Parameter" if isinstance(value, (torch.nn.Parameter, ember.nn.Parameter)) \
            else "Tensor"
        values = _Close(array) if array.dtype.kind in "fc" else array.tolist()
        return (kind, tuple(value.shape), str(value.dtype).split(".")[-1], values,
                bool(value.requires_grad))
    if isinstance(value, (torch.nn.Module, ember.nn.Module)):
        return ("Module", type(value).__name__)
    if isinstance(value, str):
        return value.replace("ember._tensor.Tensor", "torch.Tensor").replace("ember", "torch")
    if isinstance(value, dict):
        return {canon(k): canon(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, "__next__"):
        return [canon(v) for v in value]
    if type(value).__name__ in ("dtype", "device", "Size"):
        return str(value).replace("ember", "torch")
    if isinstance(value, BaseException):
        return (type(value).__name__, canon(str(value)))
    return value


def both(fn):
    """fn(lib) in torch and in ember, canonicalised; exceptions are results too."""
    results = []
    for lib in LIBS:
        try:
            results.append(canon(fn(lib)))
        except Exception as error:  # noqa: BLE001 (the exception (class and text) is the result)
            results.append(("raised", type(error).__name__, canon(str(error))))
    return results


def assert_same(fn):
    torch_result, ember_result = both(fn)
    assert ember_result == torch_result


def net(lib):
    return zoo(lib)["Net"]()


# -- traversal ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"recurse": False}, {"prefix": "model"},
                                    {"remove_duplicate": False},
                                    {"prefix": "p", "remove_duplicate": False}])
def test_named_parameters_and_buffers_match_torch(kwargs):
    assert_same(lambda lib: list(net(lib).named_parameters(**kwargs)))
    assert_same(lambda lib: list(net(lib).named_buffers(**kwargs)))


def test_parameters_buffers_children_match_torch():
    assert_same(lambda lib: list(net(lib).parameters()))
    assert_same(lambda lib: list(net(lib).parameters(recurse=False)))
    assert_same(lambda lib: list(net(lib).buffers()))
    assert_same(lambda lib: list(net(lib).named_children()))
    assert_same(lambda lib: list(net(lib).children()))


@pytest.mark.parametrize("kwargs", [{}, {"prefix": "root"}, {"remove_duplicate": False}])
def test_named_modules_match_torch(kwargs):
    assert_same(lambda lib: list(net(lib).named_modules(**kwargs)))
    assert_same(lambda lib: list(net(lib).modules()))


def test_modules_remove_duplicate_argument():
    assert_same(lambda lib: list(net(lib).modules(remove_duplicate=False)))


def test_named_modules_with_a_cycle_terminates_like_torch():
    def run(lib):
        model = net(lib)
        model.block.back = model
        return list(model.named_modules())
    assert_same(run)


@pytest.mark.parametrize("target", ["", "first", "block.inner", "block.act", "block.missing",
                                    "nope", "block.nope", "scale", "block.inner.weight.x",
                                    "first.n_in"])
def test_get_submodule_matches_torch(target):
    assert_same(lambda lib: net(lib).get_submodule(target))


@pytest.mark.parametrize("target", ["scale", "block.gain", "first.weight", "first.calls",
                                    "block.nope", "nope", "block.act", "first.n_in", "tied"])
def test_get_parameter_and_get_buffer_match_torch(target):
    assert_same(lambda lib: net(lib).get_parameter(target))
    assert_same(lambda lib: net(lib).get_buffer(target))


@pytest.mark.parametrize("target,strict", [("first", False), ("block.act", True),
                                           ("block.fresh", False), ("block.fresh", True),
                                           ("", False), ("scale", False), ("nope.x", False),
                                           ("first.n_in", True)])
def test_set_submodule_matches_torch(target, strict):
    def run(lib):
        model = net(lib)
        model.set_submodule(target, zoo(lib)["Tanh"](), strict=strict)
        return list(model.named_modules())
    assert_same(run)


def test_set_submodule_rejects_non_modules_like_torch():
    assert_same(lambda lib: net(lib).set_submodule("first", lib.zeros(1)))


# -- registration and attributes ---------------------------------------------------------------

REGISTRATION_CASES = {
    "buffer_name_type": lambda lib, m: m.register_buffer(1, lib.zeros(1)),
    "buffer_dot": lambda lib, m: m.register_buffer("a.b", lib.zeros(1)),
    "buffer_empty": lambda lib, m: m.register_buffer("", lib.zeros(1)),
    "buffer_exists": lambda lib, m: m.register_buffer("n_in", lib.zeros(1)),
    "buffer_not_tensor": lambda lib, m: m.register_buffer("b", [1.0]),
    "buffer_over_parameter": lambda lib, m: m.register_buffer("weight", lib.zeros(1)),
    "parameter_name_type": lambda lib, m: m.register_parameter(None, None),
    "parameter_dot": lambda lib, m: m.register_parameter("a.b", None),
    "parameter_empty": lambda lib, m: m.register_parameter("", None),
    "parameter_exists": lambda lib, m: m.register_parameter("calls", None),
    "parameter_plain_tensor": lambda lib, m: m.register_parameter("p", lib.zeros(2)),
    "parameter_non_leaf": lambda lib, m: m.register_parameter(
        "p", lib.nn.Parameter(lib.zeros(2)) * 2),
    "module_not_module": lambda lib, m: m.add_module("x", 3),
    "module_name_type": lambda lib, m: m.add_module(3, None),
    "module_exists": lambda lib, m: m.add_module("weight", None),
    "module_dot": lambda lib, m: m.add_module("a.b", None),
    "module_empty": lambda lib, m: m.add_module("", None),
    "assign_tensor_to_parameter": lambda lib, m: setattr(m, "weight", lib.zeros(2)),
    "assign_int_to_module": lambda lib, m: (setattr(m, "sub", zoo(lib)["Tanh"]()),
                                            setattr(m, "sub", 3)),
    "assign_list_to_buffer": lambda lib, m: setattr(m, "calls", [1]),
    "assign_buffer_over_plain": lambda lib, m: setattr(m, "n_in", lib.nn.Buffer(lib.zeros(1))),
}


@pytest.mark.parametrize("case", list(REGISTRATION_CASES))
def test_registration_errors_match_torch(case):
    def run(lib):
        model = zoo(lib)["Affine"]()
        REGISTRATION_CASES[case](lib, model)
        return (list(model.named_parameters()), list(model.named_buffers()),
                list(model.named_modules()), sorted(model.__dict__))
    assert_same(run)


def test_assignment_before_init_raises_like_torch():
    def make(lib, value):
        class Early(lib.nn.Module):
            def __init__(self):
                self.x = value(lib)
                super().__init__()
        return Early()
    for value in (lambda lib: lib.nn.Parameter(lib.zeros(1)), lambda lib: lib.nn.Module(),
                  lambda lib: lib.nn.Buffer(lib.zeros(1))):
        assert_same(lambda lib, value=value: make(lib, value))

    def register(lib):
        module = lib.nn.Module.__new__(lib.nn.Module)
        module.register_buffer("b", lib.zeros(1))
    assert_same(register)


def test_reassignment_moves_names_between_tables_like_torch():
    def run(lib):
        model = zoo(lib)["Affine"]()
        model.bias = zoo(lib)["Tanh"]()                  # parameter -> module
        model.calls = lib.nn.Parameter(lib.ones(1))       # buffer -> parameter
        model.scratch = lib.ones(3)                       # stays a non-persistent buffer
        model.weight = None                               # parameter slot kept as None
        model.fresh = lib.nn.Buffer(lib.zeros(2), persistent=False)
        model.plain = lib.zeros(1)                        # a plain attribute
        return (list(model.named_parameters()), list(model.named_buffers()),
                list(model.named_children()), list(model.state_dict()),
                sorted(model._non_persistent_buffers_set), "plain" in model.__dict__,
                model.weight)
    assert_same(run)


def test_delattr_and_getattr_errors_match_torch():
    def run(lib):
        model = zoo(lib)["Affine"]()
        del model.weight
        del model.calls
        del model.n_in
        model.add_module("sub", zoo(lib)["Tanh"]())
        del model.sub
        return (list(model.named_parameters()), list(model.named_buffers()),
                list(model.children()), hasattr(model, "weight"))
    assert_same(run)
    assert_same(lambda lib: zoo(lib)["Affine"]().missing_name)
    assert_same(lambda lib: delattr(zoo(lib)["Affine"](), "missing_name"))


def test_registration_hooks_match_torch():
    def run(lib):
        module_ns = lib.nn.modules.module
        seen = []

        def on_param(module, name, value):
            seen.append(("param", type(module).__name__, name))
            return lib.nn.Parameter(value.detach() + 1)

        def on_buffer(module, name, value):
            seen.append(("buffer", name))

        def on_module(module, name, value):
            seen.append(("module", name, type(value).__name__))

        handles = [module_ns.register_module_parameter_registration_hook(on_param),
                   module_ns.register_module_buffer_registration_hook(on_buffer),
                   module_ns.register_module_module_registration_hook(on_module)]
        try:
            model = zoo(lib)["Block"]()
            model.extra = zoo(lib)["Tanh"]()
        finally:
            for handle in handles:
                handle.remove()
        model.later = lib.nn.Parameter(lib.zeros(1))
        return seen, list(model.named_parameters())
    assert_same(run)


def test_init_arguments_errors_match_torch():
    assert_same(lambda lib: lib.nn.Module(3))
    assert_same(lambda lib: lib.nn.Module(flag=True))

    def super_init(lib):
        class Base:
            def __init__(self, value=None):
                self.value = value

        class WithMixin(lib.nn.Module, Base):
            call_super_init = True

            def __init__(self):
                super().__init__(value=5)
        return WithMixin().value
    assert_same(super_init)


def test_dir_lists_parameters_buffers_and_children():
    def run(lib):
        model = net(lib)
        listed = set(dir(model)) - set(dir(type(model)))
        return sorted(name for name in listed if not name.startswith("_"))
    assert_same(run)


# -- modes and gradients -----------------------------------------------------------------------

def test_train_eval_and_errors_match_torch():
    def run(lib):
        model = net(lib)
        states = [model.eval() is model]
        states.append([m.training for m in model.modules()])
        model.block.train()
        states.append([m.training for m in model.modules()])
        return states
    assert_same(run)
    assert_same(lambda lib: net(lib).train("yes"))


def test_requires_grad_and_zero_grad_match_torch():
    def run(lib, set_to_none):
        model = net(lib)
        model.requires_grad_(False)
        model.block.requires_grad_()
        flags = [p.requires_grad for p in model.parameters()]
        model.requires_grad_(True)
        model(lib.ones(2, 3)).sum().backward()
        model.zero_grad(set_to_none=set_to_none)
        return flags, [p.grad for p in model.parameters()]
    assert_same(lambda lib: run(lib, True))
    assert_same(lambda lib: run(lib, False))


# -- conversion --------------------------------------------------------------------------------

@pytest.mark.parametrize("convert", [
    lambda lib, m: m.double(), lambda lib, m: m.half(), lambda lib, m: m.float(),
    lambda lib, m: m.bfloat16(), lambda lib, m: m.to(lib.float64),
    lambda lib, m: m.to("cpu", lib.float16), lambda lib, m: m.to(lib.zeros(1, dtype=lib.float64)),
    lambda lib, m: m.to(dtype=lib.float64), lambda lib, m: m.cpu(),
    lambda lib, m: m.type(lib.float64), lambda lib, m: m.to(lib.int32),
    lambda lib, m: m.to(device="cpu"), lambda lib, m: m.to_empty(device="cpu"),
])
def test_conversions_match_torch(convert):
    def run(lib):
        model = net(lib)
        model(lib.ones(1, 3)).sum().backward()
        ids = [id(p) for p in model.parameters()]
        result = convert(lib, model)
        same_objects = [id(p) for p in model.parameters()] == ids
        dtypes = [(n, str(t.dtype).split(".")[-1]) for n, t in
                  (*model.named_parameters(), *model.named_buffers())]
        grads = [str(p.grad.dtype).split(".")[-1] for p in model.parameters()]
        return result is model, same_objects, dtypes, grads
    assert_same(run)


def test_conversion_keeps_values_and_tied_parameters():
    def run(lib):
        model = net(lib).double()
        return model.tied is model.first.weight, list(model.state_dict().values())
    assert_same(run)


def test_apply_visits_children_first_like_torch():
    def run(lib):
        seen = []
        model = net(lib)
        assert model.apply(lambda m: seen.append(type(m).__name__)) is model
        return seen
    assert_same(run)


# -- printing ----------------------------------------------------------------------------------

def test_repr_matches_torch():
    assert_same(lambda lib: repr(net(lib)))
    assert_same(lambda lib: repr(lib.nn.Module()))
    assert_same(lambda lib: repr(zoo(lib)["Affine"]()))

    def nested_extra(lib):
        model = zoo(lib)["Block"]()
        model.deeper = zoo(lib)["Block"]()
        return repr(model)
    assert_same(nested_extra)


# -- copying and pickling ----------------------------------------------------------------------

def test_deepcopy_keeps_sharing_and_state():
    def run(lib):
        model = net(lib)
        model(lib.ones(1, 3)).sum().backward()
        clone = copy.deepcopy(model)
        clone.first.weight.data.fill_(7.0)
        return (clone.tied is clone.first.weight, clone.again is clone.first,
                clone.first.weight is not model.first.weight,
                list(model.state_dict().values()), list(clone.state_dict().values()),
                [p.grad for p in clone.parameters()],
                sorted(clone.first._non_persistent_buffers_set), clone.training)
    assert_same(run)


def test_pickle_round_trip_keeps_everything():
    assert_same(_pickle_module)


class _TorchPicklable(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.arange(4.0))
        self.register_buffer("steps", torch.tensor(3))
        self.register_buffer("scratch", torch.ones(1), persistent=False)
        self.child = torch.nn.Module()

    def forward(self, x):
        return x * self.weight


class _EmberPicklable(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = ember.nn.Parameter(ember.arange(4.0))
        self.register_buffer("steps", ember.tensor(3))
        self.register_buffer("scratch", ember.ones(1), persistent=False)
        self.child = ember.nn.Module()

    def forward(self, x):
        return x * self.weight


def _pickleable_hook(module, args, output):
    return None


def _pickle_module(lib):
    model = (_TorchPicklable if lib is torch else _EmberPicklable)()
    model.eval()
    model.register_forward_hook(_pickleable_hook)
    model.tied = model.weight
    clone = pickle.loads(pickle.dumps(model))
    clone_output = clone(lib.ones(4))
    return (repr(clone).replace("_Ember", "_Torch"), list(clone.state_dict().items()),
            clone.training, clone.tied is clone.weight, len(clone._forward_hooks),
            list(clone.named_buffers()), sorted(clone._non_persistent_buffers_set),
            clone_output)


# -- calling -----------------------------------------------------------------------------------

def test_call_runs_forward_and_missing_forward_raises_like_torch():
    assert_same(lambda lib: net(lib)(lib.ones(2, 3)))
    assert_same(lambda lib: lib.nn.Module()(lib.ones(1)))

    def keyword_call(lib):
        class Keywords(lib.nn.Module):
            def forward(self, x, *, scale=1.0):
                return x * scale
        return Keywords()(lib.ones(2), scale=3.0)
    assert_same(keyword_call)


def test_module_grads_match_torch():
    def run(lib):
        model = net(lib)
        x = lib.linspace(-1, 1, 6).reshape(2, 3).requires_grad_()
        model(x).pow(2).sum().backward()
        return [(n, p.grad) for n, p in model.named_parameters()], x.grad
    assert_same(run)


def test_plain_call_skips_the_hook_machinery(monkeypatch):
    from ember.nn.modules import module_hooks
    monkeypatch.setattr(module_hooks, "call_with_hooks", None)   # would fail if reached
    model = zoo(ember)["Affine"]()
    model(ember.ones(1, 3))


def test_extra_methods_exist_like_torch():
    for name in ("_wrapped_call_impl", "_get_backward_hooks", "_get_backward_pre_hooks",
                 "_maybe_warn_non_full_backward_hook", "_slow_forward", "xpu", "ipu", "mtia",
                 "compile", "share_memory", "_replicate_for_data_parallel"):
        assert hasattr(ember.nn.Module, name), name


def test_to_complex_warns_and_memory_format_applies_to_4d_tensors():
    def run(lib):
        model = lib.nn.Module()
        model.kernel = lib.nn.Parameter(lib.ones(2, 3, 2, 2))
        model.bias = lib.nn.Parameter(lib.ones(2))
        model.to(memory_format=lib.channels_last)
        layout = (model.kernel.is_contiguous(memory_format=lib.channels_last),
                  model.kernel.is_contiguous(), model.bias.is_contiguous())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.to(lib.complex64)
        return layout, model.kernel.dtype, [w.category.__name__ for w in caught]
    assert_same(run)


def test_hook_removing_itself_during_the_call_is_safe():
    def run(lib):
        model = zoo(lib)["Tanh"]()
        log = []

        def once(module, args):
            log.append("once")
            handles[0].remove()
        handles = [model.register_forward_pre_hook(once)]
        model.register_forward_pre_hook(lambda m, args: log.append("second"))
        model(lib.ones(1))
        model(lib.ones(1))
        return log
    assert_same(run)


def test_share_memory_returns_the_module_with_its_state():
    def run(lib):
        model = net(lib)
        return (model.share_memory() is model, list(model.state_dict().items()),
                [type(p).__name__ for p in model.parameters()])
    assert_same(run)
