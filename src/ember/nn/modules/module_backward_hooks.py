"""Module backward hooks.

Full hooks (`register_full_backward_hook`, `register_full_backward_pre_hook`) see the gradients
with respect to the module's tensor inputs and outputs, however many autograd nodes forward
made. `BackwardHook` passes the inputs, then the outputs, through `BackwardHookFunction`, an
identity custom Function, and hooks the two nodes that records:

    inputs -> [input node] -> forward's ops -> [output node] -> outputs

When the output node runs, its incoming gradients are grad_output: the pre-hooks see (and may
replace) them, and they are kept. When the input node has run, its results are grad_input:
the hooks get (module, grad_input, grad_output) and may replace grad_input. Non-tensor
positions read None, as in PyTorch.

Non-full hooks (`register_backward_hook`, deprecated) hook only the node of the output's last
operation (`hook_last_node`), with PyTorch's warnings where that misses gradients.
"""
from __future__ import annotations

import warnings

from ember._tensor import Tensor
from ember.autograd.function import Function
from ember.autograd.grad_mode import is_grad_enabled


class BackwardHookFunction(Function):
    """Identity on its tensor arguments; its node is where a module's hooks attach."""

    @staticmethod
    def forward(ctx, *args):
        frozen = [arg for arg in args if not arg.requires_grad]
        ctx.mark_non_differentiable(*frozen)
        # PyTorch hands zeros (not None) for the positions that need no gradient.
        ctx.frozen = {i: (arg.shape, arg.dtype, arg.device) for i, arg in enumerate(args)
                      if not arg.requires_grad}
        return args

    @staticmethod
    def backward(ctx, *grads):
        if not ctx.frozen:
            return grads
        from ember import zeros
        return tuple(zeros(ctx.frozen[i][0], dtype=ctx.frozen[i][1], device=ctx.frozen[i][2])
                     if g is None and i in ctx.frozen else g for i, g in enumerate(grads))


class BackwardHook:
    """The backward hooks of one module call (`setup_input_hook` before forward,
    `setup_output_hook` after)."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        packed = [None] * size
        for index, value in zip(indices, values):
            packed[index] = value
        return tuple(packed)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[index] for index in indices)

    def _wrap_tensors(self, on_node, args):
        """`args` with its tensors passed through BackwardHookFunction (when any needs grad),
        and the positions of the tensors (None when nothing was wrapped)."""
        positions = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[i] for i in positions]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        wrapped = BackwardHookFunction.apply(*tensors)
        if len(wrapped) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        nodes = [t.grad_fn for t in wrapped if t.grad_fn is not None
                 and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not nodes:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue "
                               "with a code sample to reproduce this.")
        on_node(nodes[0])
        replaced = list(args)
        for index, tensor in zip(positions, wrapped):
            replaced[index] = tensor
        result = tuple(replaced) if type(args) is tuple else type(args)(*replaced)
        return result, positions

    # -- inputs: the hooks proper -----------------------------------------------------------
    def _on_input_node(self, node) -> None:
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # The gradient reached the inputs without passing through the outputs (double
                # backward, say): there is no grad_output to report.
                return None
            grads = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, grads, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(grads):
                    raise RuntimeError("Backward hook returned an invalid number of "
                                       f"grad_input, got {len(out)}, but expected "
                                       f"{len(grads)}")
                grads = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, grads)

        node.register_hook(hook)

    def setup_input_hook(self, args):
        result, positions = self._wrap_tensors(self._on_input_node, args)
        self.n_inputs = len(args)
        self.input_tensors_index = positions
        return result

    # -- outputs: pre-hooks and the grad_output record --------------------------------------
    def _on_output_node(self, node) -> None:
        def hook(_, grad_output):
            self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                     self.n_outputs)
            if self.user_pre_hooks:
                expected = len(self.grad_outputs)
                for user_pre_hook in self.user_pre_hooks:
                    replaced = user_pre_hook(self.module, self.grad_outputs)
                    if replaced is None:
                        continue
                    if len(replaced) != expected:
                        raise RuntimeError("Backward pre hook returned an invalid number of "
                                           f"grad_output, got {len(replaced)}, but expected "
                                           f"{expected}")
                    self.grad_outputs = replaced
            grad_outputs = self.grad_outputs
            if self.input_tensors_index is None:
                # No input needs a gradient: the hooks fire here, with grad_input all None.
                warnings.warn(
                    "Full backward hook is firing when gradients are computed with respect to "
                    "module outputs since no inputs require gradients. See https://docs."
                    "pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module."
                    "register_full_backward_hook for more details.", stacklevel=5)
                grad_inputs = self._pack_with_none([], [], self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, grad_inputs, self.grad_outputs)
                    if out is not None and not (isinstance(out, tuple)
                                                and all(g is None for g in out)):
                        raise RuntimeError("Backward hook for Modules where no input requires "
                                           "gradient should always return None or None for "
                                           "all gradients.")
                self.grad_outputs = None
            if grad_outputs is not None:
                return tuple(grad_outputs[i] for i in self.output_tensors_index)
            return None

        node.register_hook(hook)

    def setup_output_hook(self, outputs):
        is_tuple = isinstance(outputs, tuple)
        if not is_tuple:
            outputs = (outputs,)
        result, positions = self._wrap_tensors(self._on_output_node, outputs)
        self.n_outputs = len(outputs)
        self.output_tensors_index = positions
        return result if is_tuple else result[0]


class _ModuleNodeHook:
    """A non-full backward hook on an autograd node: hook(module, grad_input, grad_output)."""

    def __init__(self, hook, module) -> None:
        self.hook = hook
        self.module = module

    def __call__(self, grad_input, grad_output):
        return self.hook(self.module, grad_input, grad_output)


def hook_last_node(module, args, result, hooks) -> None:
    """Attach non-full backward hooks to the node that made the (first tensor) output."""
    value = result
    while not isinstance(value, Tensor):
        if isinstance(value, dict):
            value = next(v for v in value.values() if isinstance(v, Tensor))
        else:
            value = value[0]
    node = value.grad_fn
    if node is None:
        return
    for hook in hooks:
        node.register_hook(_ModuleNodeHook(hook, module))
    warn_non_full_backward_hook(args, result, node)


def _warn(text: str) -> None:
    warnings.warn(text, FutureWarning, stacklevel=5)


def warn_non_full_backward_hook(inputs, result, node) -> None:
    """PyTorch's FutureWarnings for the cases where a non-full hook misses gradients."""
    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            _warn("Using non-full backward hooks on a Module that does not return a single "
                  "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                  "versions. This hook will be missing some of the grad_output. Please use "
                  "register_full_backward_hook to get the documented behavior.")
            return
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            _warn("Using non-full backward hooks on a Module that does not take as input a "
                  "single Tensor or a tuple of Tensors is deprecated and will be removed in "
                  "future versions. This hook will be missing some of the grad_input. Please "
                  "use register_full_backward_hook to get the documented behavior.")
            return
    else:
        inputs = (inputs,)
    output_nodes = {r.grad_fn for r in result if r.grad_fn is not None}
    if not output_nodes or (len(output_nodes) == 1 and node not in output_nodes):
        _warn("Using a non-full backward hook when outputs are nested in python data "
              "structure is deprecated and will be removed in future versions. This hook will "
              "be missing some grad_output.")
    elif len(output_nodes) > 1:
        _warn("Using a non-full backward hook when outputs are generated by different autograd "
              "Nodes is deprecated and will be removed in future versions. This hook will be "
              "missing some grad_output. Please use register_full_backward_hook to get the "
              "documented behavior.")
    else:
        input_nodes = {i.grad_fn for i in inputs if i.grad_fn is not None}
        next_nodes = {edge[0] if edge is not None else None for edge in node.next_functions}
        if input_nodes != next_nodes:
            _warn("Using a non-full backward hook when the forward contains multiple autograd "
                  "Nodes is deprecated and will be removed in future versions. This hook will "
                  "be missing some grad_input. Please use register_full_backward_hook to get "
                  "the documented behavior.")
