"""Selective activation checkpointing (a policy saving some ops' outputs, recomputing the
rest), GraphExecGroup and the helpers of ember.utils.checkpoint, against torch: recompute
counts are counted by a dispatch mode around backward, on both libraries."""
import contextlib
import functools
import importlib
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def lib_parts(lib):
    checkpoint = importlib.import_module(lib.__name__ + ".utils.checkpoint")
    dispatch = importlib.import_module(lib.__name__ + ".utils._python_dispatch")
    return checkpoint, dispatch.TorchDispatchMode


def counting_mode(lib):
    _, TorchDispatchMode = lib_parts(lib)

    class Count(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.counts = {}

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = str(func).split(".")[1]
            self.counts[name] = self.counts.get(name, 0) + 1
            return func(*args, **(kwargs or {}))

    return Count()


def region(lib):
    def f(x, w):
        y = lib.mm(x, w).sin()
        z = lib.mm(y, w).exp()
        return (z * y).sigmoid()
    return f


def policies(lib, cp):
    mm = lib.ops.aten.mm.default
    return {
        "none": None,
        "recompute_all": lambda ctx, op, *a, **k: cp.CheckpointPolicy.PREFER_RECOMPUTE,
        "save_mm": lambda ctx, op, *a, **k: (cp.CheckpointPolicy.MUST_SAVE if op is mm
                                             else cp.CheckpointPolicy.PREFER_RECOMPUTE),
        "save_mm_list": [mm],
        "save_sin_bool": lambda ctx, op, *a, **k: op is lib.ops.aten.sin.default,
        "save_all": lambda ctx, op, *a, **k: cp.CheckpointPolicy.PREFER_SAVE,
    }


def recompute_counts(lib, policy_name, early_stop):
    """(ops run in backward beyond those of the plain backward, the gradients)."""
    cp, _ = lib_parts(lib)
    lib.manual_seed(0)
    data = np.random.default_rng(0).standard_normal((2, 3, 3)).astype(np.float32)
    x, w = (lib.tensor(d, requires_grad=True) for d in data)
    f = region(lib)
    watched = ("mm", "sin", "exp", "mul", "sigmoid")

    def backward_counts(out):
        with counting_mode(lib) as counter:
            out.sum().backward()
        return {k: counter.counts.get(k, 0) for k in watched}

    plain = backward_counts(f(x, w))
    x.grad = w.grad = None
    policy = policies(lib, cp)[policy_name]
    context_fn = cp.noop_context_fn if policy is None else \
        functools.partial(cp.create_selective_checkpoint_contexts, policy)
    with cp.set_checkpoint_early_stop(early_stop):
        out = cp.checkpoint(f, x, w, use_reentrant=False, context_fn=context_fn)
    counted = backward_counts(out)
    return ({k: counted[k] - plain[k] for k in watched}, (x.grad.numpy(), w.grad.numpy()))


@pytest.mark.parametrize("early_stop", [False, True])
@pytest.mark.parametrize("policy_name", ["none", "recompute_all", "save_mm", "save_mm_list",
                                         "save_sin_bool", "save_all"])
def test_recompute_counts_match_torch(policy_name, early_stop):
    # the region ends in an op whose output backward needs, so PyTorch's early stop also
    # recomputes it whole (NOTE [checkpoint recomputes the whole region])
    ours, our_grads = recompute_counts(ember, policy_name, early_stop)
    theirs, their_grads = recompute_counts(torch, policy_name, early_stop)
    assert ours == theirs
    for a, b in zip(our_grads, their_grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_saving_policy_cuts_recomputation():
    counts, _ = recompute_counts(ember, "save_mm", False)
    assert counts["mm"] == 0 and counts["sin"] == 1
    counts, _ = recompute_counts(ember, "none", False)
    assert counts["mm"] == 2


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_policy_sees_each_forward_op_once_with_its_output(lib):
    cp, _ = lib_parts(lib)
    seen = []

    def policy(ctx, op, *args, **kwargs):
        assert not ctx.is_recompute
        seen.append((str(op).split(".")[1], tuple(ctx.op_output.shape)))
        return cp.CheckpointPolicy.PREFER_RECOMPUTE

    x = lib.ones(2, 3, requires_grad=True)
    out = cp.checkpoint(lambda a: a.sin().sum(0).exp(), x, use_reentrant=False,
                        context_fn=functools.partial(cp.create_selective_checkpoint_contexts,
                                                     policy))
    out.sum().backward()
    assert seen == [("sin", (2, 3)), ("sum", (3,)), ("exp", (3,))]


def test_saved_entry_serves_one_backward():
    for lib in (torch, ember):
        cp, _ = lib_parts(lib)
        x = lib.ones(3, requires_grad=True)
        context_fn = functools.partial(cp.create_selective_checkpoint_contexts,
                                       [lib.ops.aten.sin.default])
        out = cp.checkpoint(lambda a: a.sin().exp(), x, use_reentrant=False,
                            context_fn=context_fn)
        out.sum().backward(retain_graph=True)
        with pytest.raises(RuntimeError, match="Trying to backward an extra time"):
            out.sum().backward()


def test_policy_argument_checks():
    for lib in (torch, ember):
        cp, _ = lib_parts(lib)
        with pytest.raises(TypeError, match="policy_fn_or_list must be either a function"):
            cp.create_selective_checkpoint_contexts(3)
        with pytest.raises(ValueError, match="Please update the OpOverloadPacket"):
            cp.create_selective_checkpoint_contexts([lib.ops.aten.mm])
    assert ember.ops.aten.detach.default in ember.utils.checkpoint.SAC_IGNORED_OPS


# --------------------------------------------------------------------------- GraphExecGroup

def two_chains(lib, grouped):
    """Backward from two outputs of one region, in two calls."""
    cp, _ = lib_parts(lib)
    data = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    x, y = (lib.tensor(d, requires_grad=True) for d in data)
    a, b = cp.checkpoint(lambda p, q: (p.sin().exp(), q.cos().sigmoid()), x, y,
                         use_reentrant=False)
    with counting_mode(lib) as counter, \
            (cp.GraphExecGroup() if grouped else contextlib.nullcontext()):
        gx, = lib.autograd.grad(a.sum(), x)
        gy, = lib.autograd.grad(b.sum(), y)
    counts = {k: counter.counts.get(k, 0) for k in ("sin", "cos", "exp", "sigmoid")}
    return counts, gx.numpy(), gy.numpy()


@pytest.mark.parametrize("grouped", [False, True])
def test_graph_exec_group_recomputes_once(grouped):
    ours, theirs = two_chains(ember, grouped), two_chains(torch, grouped)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_graph_exec_groups_do_not_nest():
    for lib in (torch, ember):
        cp, _ = lib_parts(lib)
        with cp.GraphExecGroup(), \
                pytest.raises(RuntimeError, match="GraphExecGroup contexts cannot be nested"):
            cp.GraphExecGroup().__enter__()


def test_backward_again_from_a_used_output_is_refused():
    for lib in (torch, ember):
        cp, _ = lib_parts(lib)
        x = lib.ones(3, requires_grad=True)
        a, _ = cp.checkpoint(lambda p: (p.sin().exp(), p.cos()), x, use_reentrant=False)
        a.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            a.sum().backward()


# --------------------------------------------------------------------------- errors, helpers

def mismatching_recompute(lib, debug):
    cp, _ = lib_parts(lib)
    length = {"n": 3}
    x = lib.ones(4, requires_grad=True)
    with cp.set_checkpoint_debug_enabled(debug):
        out = cp.checkpoint(lambda a: a[:length["n"]].sin(), x, use_reentrant=False)
    length["n"] = 2
    with pytest.raises(cp.CheckpointError) as caught:
        out.sum().backward()
    return str(caught.value)


def test_recompute_mismatch_is_a_checkpoint_error():
    assert issubclass(ember.utils.checkpoint.CheckpointError, RuntimeError)
    for lib in (torch, ember):
        message = mismatching_recompute(lib, False)
        assert "Recomputed values for the following tensors have different metadata" in message
        assert "set_checkpoint_debug_enabled(True)" in message
    # debug mode lists the operators of the forward pass and of the recompute
    assert "sin" in mismatching_recompute(ember, True).split("recomputation")[-1]


def test_checkpoint_debug_with_a_context_fn_is_refused():
    for lib in (torch, ember):
        cp, _ = lib_parts(lib)
        with cp.set_checkpoint_debug_enabled(True), \
                pytest.raises(ValueError, match="debug=True is incompatible"):
            cp.checkpoint(lambda a: a.sin(), lib.ones(2, requires_grad=True),
                          use_reentrant=False,
                          context_fn=functools.partial(cp.create_selective_checkpoint_contexts,
                                                       []))


def test_detach_variable_and_check_backward_validity():
    for lib in (torch, ember):
        cp, _ = lib_parts(lib)
        x = lib.ones(2, requires_grad=True) * 2
        y = lib.ones(2)
        dx, dy, other = cp.detach_variable((x, y, 3))
        assert dx.requires_grad and dx.is_leaf and not dy.requires_grad and other == 3
        with pytest.raises(RuntimeError, match="Only tuple of tensors is supported. Got "
                                               "Unsupported input type: list"):
            cp.detach_variable([x])
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            cp.check_backward_validity([y, 1])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            cp.check_backward_validity([x])


def test_device_state_helpers_on_cpu():
    for lib in (torch, ember):
        cp, _ = lib_parts(lib)
        assert cp.get_device_states(lib.ones(2), (lib.zeros(1), 3)) == ([], [])
        cp.set_device_states([], [], device_type="cpu")
        previous = cp.DefaultDeviceType._default_device_type
        try:
            cp.DefaultDeviceType.set_device_type("meta")
            assert cp.DefaultDeviceType.get_device_type() == "meta"
            cp.set_device_states([0], [None])        # meta: nothing to set
        finally:
            cp.DefaultDeviceType._default_device_type = previous
