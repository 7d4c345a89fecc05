"""Composable function transforms, as in `torch.func`: grad, vjp, jvp, jacrev, jacfwd,
hessian, vmap and functional_call.

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
import inspect
import threading

from ember._core import dispatch
from ember.autograd import grad_mode
from ember.autograd.functional import _grad, _one_hot, _stack, _unbind

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call"]


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


# --------------------------------------------------------------------------- pytrees
# A spec is ("leaf",), or (container type, keys or None, child specs).

_LEAF = ("leaf",)


def _flatten(tree):
    leaves = []
    spec = _flatten_into(tree, leaves)
    return leaves, spec


def _flatten_into(tree, leaves):
    if isinstance(tree, (tuple, list)):
        return (type(tree), None, tuple(_flatten_into(x, leaves) for x in tree))
    if isinstance(tree, dict):
        keys = tuple(tree.keys())
        return (type(tree), keys, tuple(_flatten_into(tree[k], leaves) for k in keys))
    leaves.append(tree)
    return _LEAF


def _unflatten(leaves, spec):
    it = iter(leaves)
    return _build(it, spec)


def _build(it, spec):
    if spec is _LEAF or spec == _LEAF:
        return next(it)
    kind, keys, children = spec
    values = [_build(it, child) for child in children]
    if keys is not None:
        return kind(zip(keys, values))
    if kind is tuple or kind is list:
        return kind(values)
    return kind(*values)  # a namedtuple


def _spec_str(spec):
    if spec == _LEAF:
        return "*"
    kind, keys, children = spec
    parts = [_spec_str(c) for c in children]
    if keys is not None:
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(keys, parts)) + "}"
    if kind is list:
        return "[" + ", ".join(parts) + "]"
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _broadcast_prefix(prefix, spec):
    """Flatten `prefix` (a tree whose leaves apply to whole subtrees of `spec`) to one value
    per leaf of `spec`; None when the structures do not match."""
    out = []
    return out if _broadcast_into(prefix, spec, out) else None


def _count_leaves(spec):
    if spec == _LEAF:
        return 1
    return sum(_count_leaves(c) for c in spec[2])


def _broadcast_into(prefix, spec, out):
    if not isinstance(prefix, (tuple, list, dict)):
        out.extend([prefix] * _count_leaves(spec))
        return True
    if spec == _LEAF:
        return False
    kind, keys, children = spec
    if type(prefix) is not kind and not (isinstance(prefix, tuple) and issubclass(kind, tuple)):
        return False
    if keys is not None:
        if set(prefix.keys()) != set(keys):
            return False
        return all(_broadcast_into(prefix[k], c, out) for k, c in zip(keys, children))
    if len(prefix) != len(children):
        return False
    return all(_broadcast_into(p, c, out) for p, c in zip(prefix, children))


def _tree_map(fn, tree):
    leaves, spec = _flatten(tree)
    return _unflatten([fn(x) for x in leaves], spec)


def _is_tensor(x):
    return isinstance(x, dispatch.Tensor)


# --------------------------------------------------------------------------- shared steps

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


# --------------------------------------------------------------------------- vmap

def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


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


# --------------------------------------------------------------------------- functional_call

_MISSING = object()


def _named(module, method):
    fn = getattr(module, method, None)
    if fn is None:
        return []
    if "remove_duplicate" in inspect.signature(fn).parameters:
        return list(fn(remove_duplicate=False))
    return list(fn())


def _untie(module, values):
    """With tied weights (one tensor under several names), a value given for one name
    applies to all of them."""
    names_of = {}
    for name, t in _named(module, "named_parameters") + _named(module, "named_buffers"):
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given_tied = [n for n in values if n in tied]
    for n in given_tied:
        group = tied[n]
        if len(group & set(given_tied)) > 1 and \
                len({id(values[m]) for m in group if m in values}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = dict(values)
    for n in given_tied:
        for m in tied[n]:
            untied[m] = values[n]
    return untied


def _owner(module, path):
    *parents, attr = path.split(".")
    owner = module
    for part in parents:
        owner = getattr(owner, part)
    return owner, attr


def _swap(owner, attr, value):
    """Put `value` at owner.attr, in the parameter/buffer table when the owner has one;
    returns what was there."""
    for table_name in ("_parameters", "_buffers"):
        table = getattr(owner, table_name, None)
        if isinstance(table, dict) and attr in table:
            old = table[attr]
            table[attr] = value
            return old
    old = getattr(owner, attr, _MISSING)
    setattr(owner, attr, value)
    return old


def _restore(owner, attr, old):
    if old is _MISSING:
        delattr(owner, attr)
    else:
        _swap(owner, attr, old)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call `module` with its parameters and buffers replaced by the given tensors (restored
    afterwards, even if the call raises)."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    if tie_weights:
        values = _untie(module, values)
    if strict:
        known = {n for n, _ in _named(module, "named_parameters") +
                 _named(module, "named_buffers")}
        missing = sorted(known - set(values))
        unexpected = sorted(set(values) - known)
        errors = []
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            get_name = getattr(module, "_get_name", None)
            name = get_name() if get_name is not None else type(module).__name__
            raise RuntimeError(f"Error(s) in reparametrizing for {name}:\n\t" +
                               "\n\t".join(errors))
    swapped = []
    try:
        for path, value in values.items():
            owner, attr = _owner(module, path)
            swapped.append((owner, attr, _swap(owner, attr, value)))
        return module(*args, **kwargs)
    finally:
        for owner, attr, old in reversed(swapped):
            _restore(owner, attr, old)
