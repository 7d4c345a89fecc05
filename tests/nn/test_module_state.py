"""state_dict and load_state_dict against torch: keys and order, `_metadata`, keep_vars, prefix,
the deprecated positional form, strict and non-strict loading (PyTorch's error text exactly),
assign, extra state, overriding `_load_from_state_dict`, and the four kinds of hooks."""
from __future__ import annotations

import warnings
from collections import OrderedDict

import torch
from tests.nn.test_module import assert_same, net, zoo

import ember


def _state_of(lib, **kwargs):
    state = net(lib).state_dict(**kwargs)
    return list(state.items()), dict(state._metadata), type(state).__name__


def test_state_dict_keys_values_and_metadata_match_torch():
    assert_same(lambda lib: _state_of(lib))
    assert_same(lambda lib: _state_of(lib, prefix="model."))
    assert_same(lambda lib: _state_of(lib, keep_vars=True))


def test_state_dict_detaches_unless_keep_vars():
    def run(lib):
        model = net(lib)
        detached = model.state_dict()["scale"]
        kept = model.state_dict(keep_vars=True)["scale"]
        return (type(detached).__name__, detached.requires_grad, kept is model.scale,
                detached.data_ptr() == model.scale.data_ptr())
    assert_same(run)


def test_state_dict_positional_form_warns_and_fills_destination():
    def run(lib):
        destination = OrderedDict()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = zoo(lib)["Affine"]().state_dict(destination, "pre.")
        return (result is destination, list(destination), [w.category.__name__ for w in caught])
    assert_same(run)


def _load(lib, edit, strict=True, assign=False, model=None):
    model = model or net(lib)
    state = net(lib).state_dict()
    for key in list(state):
        state[key] = state[key] + 1 if state[key].is_floating_point() else state[key]
    edit(lib, state)
    result = model.load_state_dict(state, strict=strict, assign=assign)
    return (repr(result), result.missing_keys, result.unexpected_keys,
            list(model.state_dict().items()))


LOAD_EDITS = {
    "exact": lambda lib, s: None,
    "missing": lambda lib, s: (s.pop("scale"), s.pop("block.inner.bias")),
    "unexpected": lambda lib, s: s.update({"extra": lib.zeros(1), "block.new.w": lib.zeros(1),
                                           "scale.sub": lib.zeros(1),
                                           "first.weight.x": lib.zeros(1)}),
    "both": lambda lib, s: (s.pop("step"), s.update({"nope": lib.zeros(1)})),
    "size_mismatch": lambda lib, s: s.update({"first.bias": lib.zeros(7)}),
    "not_a_tensor": lambda lib, s: s.update({"scale": [1.0]}),
    "old_scalar": lambda lib, s: s.update({"scale": lib.tensor([5.0])}),
    "dtype_cast": lambda lib, s: s.update({"scale": lib.tensor(3.0, dtype=lib.float64)}),
    "many_errors": lambda lib, s: (s.pop("scale"), s.update({"first.bias": lib.zeros(2),
                                                            "x.y": lib.zeros(1)})),
}


def test_load_state_dict_matches_torch():
    for name, edit in LOAD_EDITS.items():
        for strict in (True, False):
            assert_same(lambda lib, edit=edit, strict=strict: _load(lib, edit, strict)), name


def test_load_state_dict_assign_matches_torch():
    def run(lib):
        model = net(lib)
        state = net(lib).double().state_dict()
        weight = state["first.weight"]
        model.load_state_dict(state, assign=True)
        return (model.first.weight.dtype, type(model.first.weight).__name__,
                model.first.weight.requires_grad, model.step is state["step"],
                model.first.weight.data_ptr() == weight.data_ptr())
    assert_same(run)

    def keeps_requires_grad(lib):
        model = net(lib)
        model.scale.requires_grad_(False)
        state = {k: lib.nn.Parameter(v.clone()) for k, v in net(lib).state_dict().items()
                 if v.is_floating_point()}
        state.update({k: v for k, v in net(lib).state_dict().items()
                      if not v.is_floating_point()})
        model.load_state_dict(state, assign=True)
        return [(n, p.requires_grad) for n, p in model.named_parameters()]
    assert_same(keeps_requires_grad)


def test_load_state_dict_rejects_non_mappings_like_torch():
    assert_same(lambda lib: net(lib).load_state_dict([("scale", lib.zeros(()))]))


def test_incompatible_keys_repr_matches_torch():
    assert_same(lambda lib: repr(net(lib).load_state_dict(net(lib).state_dict())))
    assert_same(lambda lib: str(net(lib).load_state_dict({}, strict=False)))


def _with_extra_state(lib):
    class Counter(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.count = 0
            self.weight = lib.nn.Parameter(lib.ones(2))

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.count = state["count"]
    return Counter()


def test_extra_state_round_trip_and_missing_key():
    def run(lib):
        source = _with_extra_state(lib)
        source.count = 7
        state = source.state_dict()
        target = _with_extra_state(lib)
        target.load_state_dict(state)
        del state["_extra_state"]
        try:
            _with_extra_state(lib).load_state_dict(state)
        except RuntimeError as error:
            message = str(error)
        return list(source.state_dict()), target.count, message
    assert_same(run)

    def unexpected_extra(lib):
        state = _with_extra_state(lib).state_dict()
        return zoo(lib)["Tanh"]().load_state_dict({"_extra_state": state["_extra_state"]},
                                                  strict=False)
    assert_same(unexpected_extra)


def test_load_from_state_dict_override_and_version_metadata():
    def run(lib):
        seen = []

        class Versioned(lib.nn.Module):
            _version = 3

            def __init__(self):
                super().__init__()
                self.weight = lib.nn.Parameter(lib.zeros(2))

            def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs):
                seen.append((prefix, dict(local_metadata)))
                old_key = prefix + "old_weight"
                if old_key in state_dict:
                    state_dict[prefix + "weight"] = state_dict.pop(old_key)
                super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                              missing_keys, unexpected_keys, error_msgs)

        outer = lib.nn.Module()
        outer.inner = Versioned()
        state = outer.state_dict()
        metadata = dict(state._metadata)
        renamed = OrderedDict(("inner.old_weight", lib.ones(2)) for _ in range(1))
        renamed._metadata = state._metadata
        result = outer.load_state_dict(renamed)
        return metadata, seen, repr(result), outer.inner.weight
    assert_same(run)


def test_state_dict_hooks_match_torch():
    def run(lib):
        log = []
        model = net(lib)
        model.block.register_state_dict_pre_hook(
            lambda m, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))

        def post(module, state, prefix, local_metadata):
            log.append(("post", prefix, dict(local_metadata)))
            state[prefix + "added"] = lib.zeros(1)
        model.block.register_state_dict_post_hook(post)

        def private(module, state, prefix, local_metadata):
            return OrderedDict(("only", lib.ones(1)) for _ in range(1))
        model._register_state_dict_hook(private)
        return log, list(model.state_dict()), list(model.block.state_dict(prefix="b."))
    assert_same(run)

    def returning_public(lib):
        model = zoo(lib)["Affine"]()
        model.register_state_dict_post_hook(lambda m, s, p, meta: {})
        return model.state_dict()
    assert_same(returning_public)

    def same_function_twice(lib):
        model = zoo(lib)["Affine"]()

        def hook(m, s, p, meta):
            return None
        model.register_state_dict_post_hook(hook)
        model._register_state_dict_hook(hook)
    assert_same(same_function_twice)


def test_load_state_dict_hooks_match_torch():
    def run(lib):
        log = []
        model = net(lib)

        def pre(module, state_dict, prefix, local_metadata, strict, missing, unexpected,
                errors):
            log.append(("pre", type(module).__name__, prefix, strict))
            state_dict.pop(prefix + "gain", None)

        def private_pre(state_dict, prefix, *rest):
            log.append(("private", prefix))

        def post(module, incompatible):
            log.append(("post", type(module).__name__, list(incompatible.missing_keys)))
            incompatible.missing_keys.clear()
        model.block.register_load_state_dict_pre_hook(pre)
        model.first._register_load_state_dict_pre_hook(private_pre)
        model.block.register_load_state_dict_post_hook(post)
        result = model.load_state_dict(net(lib).state_dict())
        return log, repr(result)
    assert_same(run)

    def post_returning(lib):
        model = zoo(lib)["Affine"]()
        model.register_load_state_dict_post_hook(lambda m, keys: keys)
        model.load_state_dict(model.state_dict())
    assert_same(post_returning)


def test_non_persistent_buffers_stay_out_and_are_not_expected():
    def run(lib):
        model = zoo(lib)["Affine"]()
        state = model.state_dict()
        state["scratch"] = lib.zeros(2)
        try:
            model.load_state_dict(state)
        except RuntimeError as error:
            return str(error)
    assert_same(run)


def test_state_dicts_cross_load_between_libraries():
    torch_model = zoo(torch)["Net"]()
    ember_model = zoo(ember)["Net"]()
    with torch.no_grad():
        for param in torch_model.parameters():
            param.mul_(3)
    state = {k: ember.from_numpy(v.numpy().copy()) for k, v in
             torch_model.state_dict().items()}
    ember_model.load_state_dict(state)
    for key, value in ember_model.state_dict().items():
        assert value.numpy().tolist() == torch_model.state_dict()[key].numpy().tolist(), key
