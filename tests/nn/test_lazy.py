"""LazyModuleMixin against torch's: placeholders before the first call, initialisation and the
class swap on the first call, hooks removed afterwards, state dicts of lazy modules (saving
placeholders, loading real tensors into them), conversions before initialisation, errors."""
from __future__ import annotations

import copy

from tests.nn.test_module import assert_same


def lazy_classes(lib):
    nn = lib.nn
    lazy = lib.nn.modules.lazy

    class Scale(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.n = n
            self.weight = nn.Parameter(lib.empty(n))
            self.register_buffer("running", lib.zeros(n))
            self.reset_parameters()

        def reset_parameters(self):
            with lib.no_grad():
                self.weight.copy_(lib.arange(float(self.n)) + 1)

        def forward(self, x):
            return x * self.weight + self.running

        def extra_repr(self):
            return f"n={self.n}"

    class LazyScale(lazy.LazyModuleMixin, Scale):
        cls_to_become = Scale

        def __init__(self, dtype=None):
            super().__init__(0)
            self.weight = nn.UninitializedParameter(dtype=dtype)
            self.running = nn.UninitializedBuffer(dtype=dtype)

        def reset_parameters(self):
            if not self.has_uninitialized_params() and self.n != 0:
                super().reset_parameters()

        def initialize_parameters(self, x, *, offset=0):
            if self.has_uninitialized_params():
                with lib.no_grad():
                    self.n = x.shape[-1] + offset
                    self.weight.materialize((self.n,))
                    self.running.materialize((self.n,))
                    self.running.zero_()
                    self.reset_parameters()

    class Forgetful(lazy.LazyModuleMixin, Scale):
        def __init__(self):
            super().__init__(0)
            self.weight = nn.UninitializedParameter()

        def initialize_parameters(self, x):
            pass

    class NoInitializer(lazy.LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.UninitializedParameter()

    return {"Scale": Scale, "LazyScale": LazyScale, "Forgetful": Forgetful,
            "NoInitializer": NoInitializer}


def test_before_first_call_matches_torch():
    def run(lib):
        module = lazy_classes(lib)["LazyScale"]()
        state = module.state_dict()
        return (type(module).__name__, module.has_uninitialized_params(), repr(module),
                [(k, type(v).__name__) for k, v in state.items()],
                [(n, type(p).__name__) for n, p in module.named_parameters()],
                len(module._forward_pre_hooks), len(module._load_state_dict_pre_hooks))
    assert_same(run)


def test_first_call_initialises_and_swaps_class():
    def run(lib):
        module = lazy_classes(lib)["LazyScale"]()
        out = module(lib.ones(2, 3))
        return (out, type(module).__name__, module.has_uninitialized_params()
                if hasattr(module, "has_uninitialized_params") else None,
                module.weight, module.running, repr(module), hasattr(module, "_load_hook"),
                hasattr(module, "_initialize_hook"), len(module._forward_pre_hooks),
                len(module._load_state_dict_pre_hooks), list(module.state_dict()))
    assert_same(run)


def test_keyword_arguments_reach_initialize_parameters():
    def run(lib):
        # The initialising hook runs first and sees the keyword arguments; a later pre-hook
        # removes them before forward (which takes none).
        module = lazy_classes(lib)["LazyScale"]()
        module.register_forward_pre_hook(lambda m, args, kwargs: (args, {}), with_kwargs=True)
        module(lib.ones(1, 2), offset=1)
        fresh = lazy_classes(lib)["LazyScale"]()
        fresh.initialize_parameters(lib.ones(1, 2), offset=2)
        return tuple(module.weight.shape), tuple(fresh.weight.shape)
    assert_same(run)


def test_loading_a_state_dict_materialises_placeholders():
    def run(lib):
        classes = lazy_classes(lib)
        trained = classes["Scale"](4)
        with lib.no_grad():
            trained.running.fill_(0.5)
        module = classes["LazyScale"]()
        result = module.load_state_dict(trained.state_dict())
        return (repr(result), type(module).__name__, module.weight, module.running,
                module.has_uninitialized_params(), module(lib.ones(4)),
                type(module).__name__)
    assert_same(run)


def test_conversion_before_initialisation_sets_the_materialised_dtype():
    def run(lib):
        module = lazy_classes(lib)["LazyScale"]().double()
        dtype_before = module.weight.dtype
        module(lib.ones(2, dtype=lib.float64))
        return dtype_before, module.weight.dtype, module.running.dtype, type(module).__name__
    assert_same(run)


def test_deepcopy_of_a_lazy_module_stays_lazy():
    # With parameter placeholders only: PyTorch cannot deepcopy an UninitializedBuffer.
    def run(lib):
        module = lazy_classes(lib)["LazyScale"]()
        module.running = None
        clone = copy.deepcopy(module)
        return (type(clone).__name__, type(clone.weight).__name__,
                clone.weight is not module.weight)
    assert_same(run)


def test_lazy_errors_match_torch():
    assert_same(lambda lib: lazy_classes(lib)["Forgetful"]()(lib.ones(2)))
    assert_same(lambda lib: lazy_classes(lib)["NoInitializer"]()(lib.ones(2)))
    assert_same(lambda lib: lazy_classes(lib)["LazyScale"]()._replicate_for_data_parallel())
    assert_same(lambda lib: lazy_classes(lib)["LazyScale"]().weight.shape)


def test_loading_into_an_initialised_module_from_a_lazy_one_fails_like_torch():
    def run(lib):
        classes = lazy_classes(lib)
        classes["Scale"](2).load_state_dict(classes["LazyScale"]().state_dict())
    assert_same(run)
