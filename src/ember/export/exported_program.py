"""`ExportedProgram`: a module traced with its parameters and buffers lifted to graph inputs.

NOTE [export specializes sizes]: `ember.export.export` traces with `make_fx` (ember's ATen-level
tracer, ember/fx/experimental/proxy_tensor.py) on the example inputs, so the graph holds the
ops the call ran, Python control flow resolved by those inputs, every size specialized. The
module `ep.module()` gives back checks each call's inputs against the examples' structure,
sizes and dtypes (RuntimeError, as PyTorch's exported module does) and runs the graph with the
module's parameters and buffers (a buffer the graph writes, such as BatchNorm's running mean,
is written in place).
"""
from __future__ import annotations

import dataclasses

from ember.export.graph_signature import (
    ConstantArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    TensorArgument,
)


@dataclasses.dataclass
class ModuleCallSignature:
    inputs: list
    outputs: list
    in_spec: object
    out_spec: object
    forward_arg_names: list | None = None


@dataclasses.dataclass
class ModuleCallEntry:
    fqn: str
    signature: ModuleCallSignature | None = None


def _module_class():
    from ember.nn import Module

    class ExportedModule(Module):
        """The callable form of an ExportedProgram (`ep.module()`)."""

        def __init__(self, program) -> None:
            super().__init__()
            self._program = program
            self.graph_module = program.graph_module
            for name, value in program._params.items():
                self._place(name, value, parameter=True)
            for name, value in program._buffers.items():
                self._place(name, value, parameter=False)

        def _place(self, dotted: str, value, parameter: bool) -> None:
            from ember.nn import Module as _Module
            *path, leaf = dotted.split(".")
            owner = self
            for part in path:
                if part not in owner._modules:
                    owner.add_module(part, _Module())
                owner = owner._modules[part]
            if parameter:
                owner.register_parameter(leaf, value)
            else:
                owner.register_buffer(leaf, value)

        def forward(self, *args, **kwargs):
            program = self._program
            tensors = program._check_inputs(args, kwargs)
            state = [self.get_parameter(n) for n in program._params] + \
                [self.get_buffer(n) for n in program._buffers]
            from ember.utils import _pytree
            out = self.graph_module(*state, *tensors)
            return _pytree.tree_unflatten(list(out), program._out_spec)

        @property
        def graph(self):
            return self.graph_module.graph

        @property
        def code(self):
            return self.graph_module.code

    return ExportedModule


class ExportedProgram:
    """A traced program: `graph_module`, its `graph_signature`, the `state_dict` it was traced
    with, and `module()` to run it (NOTE [export specializes sizes])."""

    def __init__(self, graph_module, graph_signature, params, buffers, persistent, in_spec,
                 out_spec, example_inputs, leaf_checks) -> None:
        self.graph_module = graph_module
        self.graph_signature = graph_signature
        self._params, self._buffers = params, buffers
        self._in_spec, self._out_spec = in_spec, out_spec
        self._leaf_checks = leaf_checks
        self.example_inputs = example_inputs
        self.state_dict = {**params, **{k: v for k, v in buffers.items() if k in persistent}}
        self.constants: dict = {}
        self.range_constraints: dict = {}
        self.verifiers: list = []
        self.module_call_graph = [ModuleCallEntry("", ModuleCallSignature(
            [], [], in_spec, out_spec))]

    @property
    def graph(self):
        return self.graph_module.graph

    @property
    def call_spec(self):
        return (self._in_spec, self._out_spec)

    def parameters(self):
        yield from self._params.values()

    def named_parameters(self):
        yield from self._params.items()

    def buffers(self):
        yield from self._buffers.values()

    def named_buffers(self):
        yield from self._buffers.items()

    @property
    def tensor_constants(self) -> dict:
        return self.constants

    def module(self):
        return _module_class()(self)

    def __reduce__(self):
        from ember.export import _serialize
        return (_serialize.decode, (_serialize.encode(self),))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use "
                           "`exported_program.module()` instead.")

    def _check_inputs(self, args, kwargs) -> list:
        from ember._tensor import Tensor
        from ember.utils import _pytree
        leaves, spec = _pytree.tree_flatten((args, kwargs))
        if spec != self._in_spec:
            raise ValueError(f"Trying to flatten user inputs with exported input tree spec: "
                             f"\n{self._in_spec}\nbut actually got inputs with tree spec of: "
                             f"\n{spec}")
        tensors = []
        for index, (leaf, expected) in enumerate(zip(leaves, self._leaf_checks)):
            if isinstance(expected, tuple):
                shape, dtype = expected
                if not isinstance(leaf, Tensor):
                    raise RuntimeError(  # noqa: TRY004 (PyTorch's class)
                        f"Expected input at flat position {index} to be a Tensor, "
                        f"but got {type(leaf).__name__}")
                for dim, (want, got) in enumerate(zip(shape, leaf.shape)):
                    if want != got:     # (PyTorch's guard failure: an AssertionError)
                        name = self._input_names[index]
                        raise AssertionError(f"Guard failed: {name}.size()[{dim}] == {want}")
                if len(shape) != leaf.dim():
                    raise RuntimeError(f"Unexpected number of dimensions in input at "
                                       f"*args[{index}].shape (expected {list(shape)}, got "
                                       f"{list(leaf.shape)})")
                if leaf.dtype != dtype:
                    raise RuntimeError(f"Expected input at *args[{index}] to have dtype "
                                       f"{dtype}, but got {leaf.dtype}")
                tensors.append(leaf)
            elif leaf != expected[0]:
                raise RuntimeError(f"Expected input at *args[{index}] to be equal to "
                                   f"{expected[0]}, but got {leaf}")
        return tensors

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops: bool = False):
        """The program traced again with `decomp_table`'s decompositions applied."""
        from ember.export import _trace
        args, kwargs = self.example_inputs
        return _trace.export(self.module(), args, kwargs, decomposition_table=decomp_table)

    def validate(self) -> None:
        """Check the program is consistent (its graph was built by the tracer itself)."""
        self.graph_module.graph.lint()

    def __str__(self) -> str:
        code = self.graph_module.print_readable(print_output=False) \
            if hasattr(self.graph_module, "print_readable") else str(self.graph_module.code)
        code = "\n".join("    " + line for line in code.splitlines())
        signature = "\n".join("    " + line for line in str(self.graph_signature).splitlines())
        return (f"ExportedProgram:\n{code}\nGraph signature: \n{signature}\nRange constraints: "
                f"{self.range_constraints}\n")


def signature_for(param_names, buffer_names, persistent, user_inputs, output_names):
    """user_inputs: (name, value) per input leaf; value None for a tensor."""
    specs = [InputSpec(InputKind.PARAMETER, TensorArgument(f"p_{n.replace('.', '_')}"), n)
             for n in param_names]
    specs += [InputSpec(InputKind.BUFFER, TensorArgument(f"b_{n.replace('.', '_')}"), n,
                        n in persistent) for n in buffer_names]
    specs += [InputSpec(InputKind.USER_INPUT, TensorArgument(n) if v is None else
                        ConstantArgument(n, v), None) for n, v in user_inputs]
    outputs = [OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(n), None)
               for n in output_names]
    return ExportGraphSignature(specs, outputs)
