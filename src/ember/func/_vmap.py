"""ember.func.vmap: run a function once per sample along the mapped dims and stack the
results (see NOTE [transforms on one tape] in _transforms.py)."""
from __future__ import annotations

import functools

from ember.autograd.functional import _stack, _unbind
from ember.func._transforms import _check_randomness, _name
from ember.utils._pytree import _flatten, _unflatten, _spec_str, _broadcast_prefix, _is_tensor


# --------------------------------------------------------------------------- vmap

def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map `func` over a dimension of its inputs (in_dims), stacking results at out_dims."""
    _check_randomness(randomness)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        name = _name(func)
        batch, flat_args, flat_dims, args_spec = _batched_inputs(func, name, in_dims, args)
        rule = _vmap_rule(func)
        if rule is not None:
            return _by_rule(rule, name, batch, randomness, flat_dims, args_spec, args, kwargs,
                            out_dims)
        slices = [None if d is None else _unbind(a, d) for a, d in zip(flat_args, flat_dims)]
        if randomness == "same":
            import ember
            rng_state = ember.get_rng_state()
        results = []
        for b in range(batch):
            if randomness == "same":
                ember.set_rng_state(rng_state)
            sample = [a if s is None else s[b] for a, s in zip(flat_args, slices)]
            results.append(func(*_unflatten(sample, args_spec), **kwargs))
        return _stack_outputs(name, results, out_dims)

    return wrapper


def _batched_inputs(func, name, in_dims, args):
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` "
                         "to be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. "
                         "The latter is unsupported.")
    flat_args, args_spec = _flatten(args)
    flat_dims = _broadcast_prefix(in_dims, args_spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         "compatible with the structure of `inputs`. in_dims has structure "
                         f"{_spec_str(_flatten(in_dims)[1])} but inputs has structure "
                         f"{_spec_str(args_spec)}.")
    prefix = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): "
    for i, (arg, dim) in enumerate(zip(flat_args, flat_dims)):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(f"{prefix}Got in_dim={dim} for an input but in_dim must be either "
                             "an integer dimension or None.")
        if not _is_tensor(arg):
            raise ValueError(f"{prefix}Got in_dim={dim} for an input but the input is of type "
                             f"{type(arg)}. We cannot vmap over non-Tensor arguments, please "
                             "use None as the respective in_dim")
        ndim = arg.dim()
        if not -ndim <= dim < ndim:
            raise ValueError(f"{prefix}Got in_dim={dim} for some input, but that input is a "
                             f"Tensor of dimensionality {ndim} so expected in_dim to satisfy "
                             f"-{ndim} <= in_dim < {ndim}.")
        flat_dims[i] = dim % ndim
    sizes = [arg.shape[dim] for arg, dim in zip(flat_args, flat_dims) if dim is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], flat_args, flat_dims, args_spec


def _stack_outputs(name, results, out_dims):
    flat0, out_spec = _flatten(results[0])
    per_sample = [flat0] + [_flatten(r)[0] for r in results[1:]]

    def incompatible():
        return ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                          "compatible with the structure of `outputs`. out_dims has structure "
                          f"{_spec_str(_flatten(out_dims)[1])} but outputs has structure "
                          f"{_spec_str(out_spec)}.")

    if _is_tensor(results[0]):
        if isinstance(out_dims, (int, type(None))):
            flat_dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_dims = list(out_dims)
        else:
            raise incompatible()
    else:
        flat_dims = _broadcast_prefix(out_dims, out_spec)
        if flat_dims is None:
            raise incompatible()
    stacked = []
    for k, dim in enumerate(flat_dims):
        if dim is not None and not isinstance(dim, int):
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an "
                             "int, None or a python collection of ints representing where in "
                             "the outputs the vmapped dimension should appear.")
        pieces = [sample[k] for sample in per_sample]
        if dim is None:
            stacked.append(pieces[0])
            continue
        if not _is_tensor(pieces[0]):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(pieces[0])}. Did you mean to set out_dims= to None for "
                             "output?")
        stacked.append(_stack(pieces, dim % (pieces[0].dim() + 1)))
    return _unflatten(stacked, out_spec)


# --------------------------------------------------------------------------- users' rules

def _vmap_rule(func):
    """The vmap rule registered for `func` when it is an op (NOTE [rules attached to users'
    ops], ember/_library_rules.py), else None."""
    import sys
    rules = sys.modules.get("ember._library_rules")
    if rules is None or not rules.VMAP_RULES:
        return None
    op = getattr(func, "_opdef", func)
    return rules.VMAP_RULES.get(op) if _hashable(op) else None


def _hashable(value) -> bool:
    return getattr(type(value), "__hash__", None) is not None


def _by_rule(rule, name, batch, randomness, flat_dims, args_spec, args, kwargs, out_dims):
    """The op's rule on the whole batch: `rule(info, in_dims, *args)` -> (output, out_dims),
    then each output's batch dimension moved where `out_dims` asks."""
    from ember._library_rules import VmapInfo
    in_dims = _unflatten(flat_dims, args_spec)
    result, rule_dims = rule(VmapInfo(batch, randomness), in_dims, *args, **kwargs)
    flat_out, out_spec = _flatten(result)
    have = [rule_dims] if _is_tensor(result) else _broadcast_prefix(rule_dims, out_spec)
    want = [out_dims] if _is_tensor(result) else _broadcast_prefix(out_dims, out_spec)
    if have is None or want is None:
        raise ValueError(f"vmap({name}, ...): the vmap rule's out_dims {rule_dims} or the "
                         f"requested out_dims {out_dims} do not match the outputs' structure "
                         f"{_spec_str(out_spec)}")
    moved = []
    for value, had, wanted in zip(flat_out, have, want):
        if wanted is None or not _is_tensor(value):
            moved.append(value)
        elif had is None:
            wanted = wanted % (value.dim() + 1)
            moved.append(value.unsqueeze(wanted).expand(
                *value.shape[:wanted], batch, *value.shape[wanted:]))
        else:
            moved.append(value.movedim(had, wanted))
    return _unflatten(moved, out_spec)
