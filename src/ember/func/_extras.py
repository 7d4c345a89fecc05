"""The smaller torch.func entry points: linearize, functionalize, stack_module_state,
replace_all_batch_norm_modules_ and debug_unwrap (rearrange lives in _rearrange.py)."""
from __future__ import annotations

import functools

from ember.autograd import grad_mode
from ember.autograd.functional import _grad, _stack
from ember.func._transforms import (
    _detach_tree,
    _fresh,
    _keeps_graph,
    _transform_level,
    _zeros_where_none,
)
from ember.utils._pytree import _flatten, _is_tensor, _spec_str, _unflatten

# --------------------------------------------------------------------------- linearize

def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is J tangents at primals.

    NOTE [linearize keeps one linear graph]: func runs once. Its reverse graph is
    differentiated once more against zero cotangents that require grad (the double-backward
    trick of ember.autograd.functional), which leaves a graph that is linear in those
    cotangents; every jvp_fn call is one backward pass through it with the tangents as the
    incoming gradient. So the intermediate values are kept (as PyTorch's linearize keeps
    them) and func is not evaluated again per tangent.
    """
    from ember._ops.creation import zeros_like
    flat_primals, primals_spec = _flatten(primals)
    keep = _keeps_graph(primals)
    with grad_mode.enable_grad(), _transform_level():
        fresh = [_fresh(p, keep) for p in flat_primals]
        output = func(*_unflatten(fresh, primals_spec))
        flat_out, out_spec = _flatten(output)
        live_out = [out for out in flat_out if _is_tensor(out) and out.requires_grad]
        cotangents = [zeros_like(out, requires_grad=True) for out in live_out]
        back = _grad(tuple(live_out), tuple(fresh), tuple(cotangents), create_graph=True) \
            if live_out else (None,) * len(fresh)
        live_back = [(g, i) for i, g in enumerate(back) if g is not None and g.requires_grad]
    shapes = [tuple(p.shape) for p in flat_primals]
    devices = [p.device for p in flat_primals]
    dtypes = [p.dtype for p in flat_primals]

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = _flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {_spec_str(tangents_spec)} to have the "
                               f"same argspec as the primals {_spec_str(primals_spec)}")
        for idx, t in enumerate(flat_tangents):
            for what, have, want in (("shape", tuple(t.shape), shapes[idx]),
                                     ("device", t.device, devices[idx]),
                                     ("dtype", t.dtype, dtypes[idx])):
                if have != want:
                    shown = (lambda s: f"torch.Size({list(s)})") if what == "shape" else str
                    raise RuntimeError(f"tangent:{idx} with {what} {shown(have)} in flattened "
                                       f"pytree doesn't match the {what} {shown(want)} of the "
                                       "corresponding primal.")
        nested = keep or _keeps_graph(tangents)
        with grad_mode.enable_grad(), _transform_level():
            if live_back:
                found = _grad(tuple(g for g, _ in live_back), tuple(cotangents),
                              tuple(flat_tangents[i] for _, i in live_back),
                              retain_graph=True, create_graph=nested)
            else:
                found = (None,) * len(cotangents)
            products = iter(_zeros_where_none(found, live_out))
            flat_result = [next(products) if _is_tensor(out) and out.requires_grad
                           else zeros_like(out) for out in flat_out]
        return _detach_tree(_unflatten(flat_result, out_spec), nested)

    return _detach_tree(output, keep), jvp_fn


# --------------------------------------------------------------------------- functionalize

def functionalize(func, *, remove="mutations"):
    """func with its mutations (and, for remove="mutations_and_views", its aliasing) removed,
    same results.

    func runs under a FunctionalTensorMode on FunctionalTensor wrappers of its tensor
    arguments (NOTE [functionalization] in ember/_subclasses/functional_tensor.py): the ops it
    runs reach the dispatch modes below as functional ops only, its in-place writes replace
    values instead of writing memory, and an input it mutated gets its final value with one
    `copy_` at the end, as PyTorch's functionalize does. Its outputs are the wrappers' values:
    an unmutated input comes back as itself, a view of an unmutated input as a view of it
    ("mutations"), anything written to as a fresh tensor; with "mutations_and_views" views are
    `*_copy` ops, so no output aliases an input or another output.
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for "
            f"remove={remove}. Valid options are:\n"
            "     remove='mutations': all inplace and out= operators will be removed from the "
            "program, and replaced with their out-of-place equivalents.\n"
            "     remove='mutations_and_views': In addition to the above, all aliasing "
            "operators {view} will be replaced with their non-aliasing counterparts, "
            "{view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        from ember._subclasses.functional_tensor import FunctionalTensorMode
        flat, spec = _flatten((args, kwargs))
        mode = FunctionalTensorMode(remove=remove)
        with mode:
            inner = [mode.wrap(t) if _is_tensor(t) else t for t in flat]
            inner_args, inner_kwargs = _unflatten(inner, spec)
            outputs = func(*inner_args, **inner_kwargs)
            flat_out, out_spec = _flatten(outputs)
            flat_out = [_from_functional(t) for t in flat_out]
        for original, wrapper in zip(flat, inner):
            if _is_tensor(original) and wrapper._fn_storage.mutated:
                original.copy_(wrapper._fn_storage.value)
        return _unflatten(flat_out, out_spec)

    return wrapped


def _from_functional(value):
    from ember._subclasses.functional_tensor import FunctionalTensor
    return value.elem if type(value) is FunctionalTensor else value


# --------------------------------------------------------------------------- model ensembles

def _stacked_leaf(tensors, name):
    needing = [t.requires_grad for t in tensors]
    if any(needing) and not all(needing):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = _stack(tensors, 0)
    if all(needing):
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models):
    """(params, buffers): each model's parameters and buffers stacked along a new leading
    dim, by state-dict name; the stacked parameters are new leaves (for vmap ensembles)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    first_type = type(models[0])
    if not all(type(m) is first_type for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {name: _stacked_leaf(tuple(p[name] for p in all_params), name)
              for name in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {name: _stacked_leaf(tuple(b[name] for b in all_buffers), name)
               for name in all_buffers[0]}
    return params, buffers


def _drop_running_stats(module):
    from ember.nn.modules.batchnorm import _BatchNorm
    if isinstance(module, _BatchNorm) and module.track_running_stats:
        module.running_mean = None
        module.running_var = None
        module.num_batches_tracked = None
        module.track_running_stats = False


def replace_all_batch_norm_modules_(root):
    """Make every BatchNorm module under root (root included) stop tracking running stats,
    in place (so it can run under vmap); returns root."""
    _drop_running_stats(root)
    for module in root.modules():
        _drop_running_stats(module)
    return root


def debug_unwrap(tensor, *, recurse=True):
    """The tensor under a transform's wrapper; ember's transforms wrap nothing (NOTE
    [transforms on one tape]), so this is the tensor itself."""
    return tensor
