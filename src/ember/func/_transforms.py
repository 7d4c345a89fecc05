"""The differentiating transforms of ember.func: grad, grad_and_value, vjp, jvp, jacrev,
jacfwd, hessian.

NOTE [transforms on one tape]: ember has no functorch levels. Each transform differentiates
with respect to fresh inputs: a differentiable alias of an argument that already requires grad
(so an enclosing transform or the caller's autograd sees through us), else a new leaf. Results
keep their graph only when someone can differentiate them further: inside another transform
(`_state.depth > 0`) or when an argument required grad with grad mode on. Otherwise they come
back detached. Forward-mode products use the double-backward trick (see
ember.autograd.functional). vmap runs the function once per sample and stacks the results.
"""
from __future__ import annotations

import functools
import threading

from ember.autograd import grad_mode
from ember.autograd.functional import _grad, _one_hot, _stack
from ember.utils._pytree import _flatten, _unflatten, _spec_str, _tree_map, _is_tensor



class _State(threading.local):
    def __init__(self):
        self.depth = 0


_state = _State()


class _transform_level:
    """Marks the dynamic extent of a transform, so transforms called inside it keep graphs."""

    def __enter__(self):
        _state.depth += 1

    def __exit__(self, *exc):
        _state.depth -= 1
        return False


# --------------------------------------------------------------------------- shared steps

def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


def _keeps_graph(*trees):
    """Whether results must stay differentiable (NOTE [transforms on one tape])."""
    if _state.depth > 0:
        return True
    if not grad_mode.is_grad_enabled():
        return False
    return any(_is_tensor(x) and x.requires_grad for tree in trees for x in _flatten(tree)[0])


def _fresh(x, keep):
    if not _is_tensor(x):
        return x
    if keep and x.requires_grad:
        return x.view_as(x)
    fresh = x.detach()
    if fresh.dtype.is_floating_point or fresh.dtype.is_complex:
        fresh.requires_grad_(True)
    return fresh


def _detach_tree(tree, keep):
    if keep:
        return tree
    return _tree_map(lambda x: x.detach() if _is_tensor(x) else x, tree)


def _check_argnums(argnums, num_args):
    def one(n):
        if not isinstance(n, int):
            raise RuntimeError(f"argnum must be int, got: {type(n)}")
        if -num_args <= n < num_args:
            return n % num_args
        raise RuntimeError(f"Got argnum={n}, but only {num_args} positional inputs")

    if isinstance(argnums, int):
        return one(argnums)
    if isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        found = tuple(one(n) for n in argnums)
        if len(set(found)) != len(found):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return found
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _differentiable_args(args, argnums, keep):
    """(new args with fresh inputs at argnums, the differentiated part: one arg's pytree for
    an int argnums, a tuple of them for a tuple)."""
    positions = argnums if isinstance(argnums, tuple) else (argnums,)
    args = list(args)
    for p in positions:
        args[p] = _tree_map(lambda x: _fresh(x, keep), args[p])
    chosen = tuple(args[p] for p in positions)
    return tuple(args), (chosen if isinstance(argnums, tuple) else chosen[0])


def _zeros_where_none(grads, refs):
    from ember._ops.creation import zeros_like
    return [zeros_like(r) if g is None else g for g, r in zip(grads, refs)]


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return output


def _name(func):
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return getattr(func, "__name__", repr(func))


# --------------------------------------------------------------------------- grad, vjp, jvp

def grad_and_value(func, argnums=0, has_aux=False):
    """f -> (gradient of f's scalar output with respect to the argnums inputs, f's output)."""
    api = "grad_and_value(f)(*args)"

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions = _check_argnums(argnums, len(args))
        keep = _keeps_graph(args, kwargs)
        with grad_mode.enable_grad(), _transform_level():
            args, diff = _differentiable_args(args, positions, keep)
            output, aux = _split_aux(func(*args, **kwargs), has_aux, api)
            if not _is_tensor(output):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.dim()} dims. Maybe you wanted to use "
                                   "the vjp or jacrev APIs instead?")
            flat, spec = _flatten(diff)
            grads = _grad((output,), tuple(flat), create_graph=keep)
            grads = _unflatten(_zeros_where_none(grads, flat), spec)
        grads = _detach_tree(grads, keep)
        output = _detach_tree(output, keep)
        if has_aux:
            return grads, (output, _detach_tree(aux, keep))
        return grads, output

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """f -> the gradient of f's scalar output with respect to the argnums inputs."""
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        if has_aux:
            return grads, value[1]
        return grads

    return wrapper


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]); vjp_fn(cotangents) gives one gradient per primal."""
    keep = _keeps_graph(primals)
    with grad_mode.enable_grad(), _transform_level():
        primals = tuple(_tree_map(lambda x: _fresh(x, keep), p) for p in primals)
        output, aux = _split_aux(func(*primals), has_aux, "vjp(f, *primals)")
        flat_out, out_spec = _flatten(output)
        for out in flat_out:
            if not _is_tensor(out):
                raise RuntimeError(f"vjp(f, *primals): Expected f to return tensors, got "
                                   f"unsupported type {type(out)}")
            if not (out.dtype.is_floating_point or out.dtype.is_complex):
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {out.dtype}")
    flat_primals, primal_spec = _flatten(primals)

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        flat_cot, cot_spec = _flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{_spec_str(cot_spec)}, primal output: {_spec_str(out_spec)}")
        nested = keep or _keeps_graph(cotangents)
        if create_graph is None:
            create_graph = nested
        with grad_mode.enable_grad(), _transform_level():
            grads = _grad(tuple(flat_out), tuple(flat_primals), tuple(flat_cot),
                          create_graph=create_graph, retain_graph=retain_graph)
            grads = _zeros_where_none(grads, flat_primals)
        return _detach_tree(_unflatten(grads, primal_spec), nested)

    result = (_detach_tree(output, keep), vjp_fn)
    if has_aux:
        return result + (_detach_tree(aux, keep),)
    return result


_JVP = "jvp(f, primals, tangents)"


def _forward_products(flat_out, flat_in, tangent_sets, create_graph):
    """For each list of tangents (one per input), J t for every output (NOTE
    [double-backward trick] in ember.autograd.functional)."""
    from ember._ops.creation import zeros_like
    dummies, kept = [], []
    for out in flat_out:
        if out.requires_grad:
            dummies.append(zeros_like(out, requires_grad=True))
            kept.append(out)
    products = []
    if not kept:
        return [[zeros_like(out) for out in flat_out] for _ in tangent_sets]
    back = _grad(tuple(kept), tuple(flat_in), tuple(dummies), create_graph=True)
    live = [(g, i) for i, g in enumerate(back) if g is not None and g.requires_grad]
    for tangents in tangent_sets:
        if live:
            found = _grad(tuple(g for g, _ in live), tuple(dummies),
                          tuple(tangents[i] for _, i in live), retain_graph=True,
                          create_graph=create_graph)
        else:
            found = (None,) * len(dummies)
        found = iter(found)
        row = []
        for out in flat_out:
            g = next(found) if out.requires_grad else None
            row.append(zeros_like(out) if g is None else g)
        products.append(row)
    return products


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J tangents[, aux]): the Jacobian-vector product."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    flat_primals, primals_spec = _flatten(primals)
    flat_tangents, tangents_spec = _flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be. Got primals with structure "
                           f"{_spec_str(primals_spec)} and tangents with structure "
                           f"{_spec_str(tangents_spec)}")
    for name, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        if not flat:
            raise RuntimeError(f"{_JVP}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not _is_tensor(x):
                raise RuntimeError(f"{_JVP}: Expected {name} to only contain Tensors, got "
                                   f"{type(x)}")
    for p, t in zip(flat_primals, flat_tangents):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size "
                               "than that of the original Tensor, this is not supported. "
                               f"Tensor is of size {list(p.shape)} while the given forward "
                               f"gradient is of size {list(t.shape)}.")
    keep = _keeps_graph(primals, tangents)
    with grad_mode.enable_grad(), _transform_level():
        fresh = [_fresh(p, keep) for p in flat_primals]
        output, aux = _split_aux(func(*_unflatten(fresh, primals_spec)), has_aux, _JVP)
        flat_out, out_spec = _flatten(output)
        for out in flat_out:
            if not _is_tensor(out):
                raise RuntimeError(f"{_JVP}: expected f(*args) to return only tensors, got "
                                   f"unsupported type {type(out)}")
        if strict and not any(out.requires_grad for out in flat_out):
            raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                               "independent of the inputs. This is not allowed with "
                               "strict=True.")
        tangents_in = [t if keep else t.detach() for t in flat_tangents]
        products = _forward_products(flat_out, fresh, [tangents_in], keep)[0]
    result = (_detach_tree(output, keep), _detach_tree(_unflatten(products, out_spec), keep))
    if has_aux:
        return result + (_detach_tree(aux, keep),)
    return result


# --------------------------------------------------------------------------- jacobians

def _jac_wrapper(func, argnums, has_aux, api, compute):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions = _check_argnums(argnums, len(args))
        keep = _keeps_graph(args, kwargs)
        with grad_mode.enable_grad(), _transform_level():
            args, diff = _differentiable_args(args, positions, keep)
            output, aux = _split_aux(func(*args, **kwargs), has_aux, api)
            flat_out, out_spec = _flatten(output)
            for out in flat_out:
                if not _is_tensor(out):
                    raise RuntimeError(f"{api}: Expected f to return tensors, got unsupported "
                                       f"type {type(out)}")
            diff_flat, diff_spec = _flatten(diff)
            entries = compute(flat_out, diff_flat, keep)
            jac = _unflatten([_unflatten(row, diff_spec) for row in entries], out_spec)
        jac = _detach_tree(jac, keep)
        if has_aux:
            return jac, _detach_tree(aux, keep)
        return jac

    return wrapper


def _reverse_entries(flat_out, diff_flat, keep):
    entries = []
    for out in flat_out:
        rows = [[] for _ in diff_flat]
        for j in range(out.nelement()):
            grads = _grad((out,), tuple(diff_flat), (_one_hot(out, j),), retain_graph=True,
                          create_graph=keep)
            for k, g in enumerate(_zeros_where_none(grads, diff_flat)):
                rows[k].append(g)
        entries.append([_assemble(rows[k], tuple(out.shape), inp, 0)
                        for k, inp in enumerate(diff_flat)])
    return entries


def _forward_entries(flat_out, diff_flat, keep):
    from ember._ops.creation import zeros_like
    entries = [[None] * len(diff_flat) for _ in flat_out]
    for k, inp in enumerate(diff_flat):
        tangent_sets = [[_one_hot(x, m) if i == k else zeros_like(x)
                         for i, x in enumerate(diff_flat)] for m in range(inp.nelement())]
        products = _forward_products(flat_out, diff_flat, tangent_sets, keep)
        for o, out in enumerate(flat_out):
            columns = [row[o] for row in products]
            entries[o][k] = _assemble(columns, tuple(out.shape), inp, out.dim())
    return entries


def _assemble(pieces, out_shape, inp, dim):
    shape = out_shape + tuple(inp.shape)
    if not pieces:
        from ember._ops.creation import zeros
        return zeros(shape, dtype=inp.dtype, device=inp.device)
    return _stack(pieces, dim).reshape(shape)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """f -> its Jacobian with respect to the argnums inputs, row by row (reverse mode)."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jac_wrapper(func, argnums, has_aux, "jacrev(f, ...)(*args)", _reverse_entries)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """f -> its Jacobian with respect to the argnums inputs, column by column."""
    _check_randomness(randomness)
    return _jac_wrapper(func, argnums, has_aux, "jacfwd(f, ...)(*args)", _forward_entries)


def hessian(func, argnums=0):
    """f -> its Hessian with respect to the argnums inputs (jacfwd of jacrev)."""
    return jacfwd(jacrev(func, argnums), argnums)
