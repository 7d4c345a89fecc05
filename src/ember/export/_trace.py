"""`export`: a module traced by `make_fx` into an ExportedProgram (NOTE [export specializes
sizes] in exported_program.py)."""
from __future__ import annotations

import inspect


def _user_names(mod, args, kwargs, count_by_leaf) -> list:
    """PyTorch's placeholder names: forward's parameter names (`x`), `x_0`, `x_1` ... for the
    tensors inside a structured argument."""
    try:
        bound = inspect.signature(mod.forward).bind(*args, **kwargs)
        names = list(bound.arguments)
    except (TypeError, ValueError):
        names = [f"arg{i}" for i in range(len(args))] + list(kwargs)
    out = []
    for name, count in zip(names, count_by_leaf):
        out.extend([name] if count == 1 else [f"{name}_{i}" for i in range(count)])
    return out


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict: bool = False,
           preserve_module_call_signature=(), decomposition_table=None):
    from ember._tensor import Tensor
    from ember.compiler import _exporting_now
    from ember.export.dynamic_shapes import check_static
    from ember.export.exported_program import ExportedProgram, signature_for
    from ember.func import functional_call
    from ember.fx.experimental.proxy_tensor import make_fx
    from ember.nn import Module
    from ember.utils import _pytree

    if not isinstance(mod, Module):
        raise ValueError(  # noqa: TRY004 (PyTorch's class)
            f"Expected `mod` to be an instance of `torch.nn.Module`, got "
            f"{type(mod)}.")
    if not isinstance(args, tuple):
        raise ValueError(  # noqa: TRY004 (PyTorch's class)
            f"Expecting `args` to be a tuple of example positional inputs, got "
            f"{type(args)}")
    kwargs = {} if kwargs is None else kwargs
    check_static(dynamic_shapes)
    params = dict(mod.named_parameters())
    buffers = dict(mod.named_buffers())
    persistent = {name for name in buffers if name in mod.state_dict()}
    leaves, in_spec = _pytree.tree_flatten((args, kwargs))
    tensor_positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, Tensor)]
    out_specs = []
    n_state = len(params) + len(buffers)

    def flat(*inputs):
        state = dict(zip([*params, *buffers], inputs[:n_state]))
        full = list(leaves)
        for position, tensor in zip(tensor_positions, inputs[n_state:]):
            full[position] = tensor
        call_args, call_kwargs = _pytree.tree_unflatten(full, in_spec)
        out = functional_call(mod, state, call_args, call_kwargs)
        out_leaves, spec = _pytree.tree_flatten(out)
        out_specs.append(spec)
        return tuple(out_leaves)

    with _exporting_now():
        gm = make_fx(flat, decomposition_table=decomposition_table)(
            *params.values(), *buffers.values(), *(leaves[i] for i in tensor_positions))

    per_arg = [len(_pytree.tree_leaves(a)) for a in (*args, *kwargs.values())]
    leaf_names = _user_names(mod, args, kwargs, per_arg)
    user = [leaf_names[i] for i in tensor_positions]
    names = [f"p_{n.replace('.', '_')}" for n in params] + \
        [f"b_{n.replace('.', '_')}" for n in buffers] + user
    placeholders = [node for node in gm.graph.nodes if node.op == "placeholder"]
    for node, name in zip(placeholders, names):
        node.name = node.target = name
    outputs = [a.name for a in next(n for n in gm.graph.nodes if n.op == "output").args[0]
               if hasattr(a, "name")]
    gm.recompile()
    checks = [(tuple(leaf.shape), leaf.dtype) if isinstance(leaf, Tensor) else [leaf]
              for leaf in leaves]
    user_inputs = [(name, None if isinstance(leaf, Tensor) else leaf)
                   for name, leaf in zip(leaf_names, leaves)]
    signature = signature_for(list(params), list(buffers), persistent, user_inputs, outputs)
    program = ExportedProgram(gm, signature, params, buffers, persistent, in_spec,
                              out_specs[0], (args, kwargs), checks)
    program._input_names = leaf_names
    return program
