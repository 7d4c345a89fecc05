"""`ember.export`: a module traced whole into an ExportedProgram (NOTE [export specializes sizes]
in exported_program.py): `export`, the program and its signature (exported_program.py,
graph_signature.py), dynamic-shape specifications (dynamic_shapes.py), save / load."""
from __future__ import annotations

from ember.export._trace import export as _export
from ember.export.dynamic_shapes import AdditionalInputs, Constraint, Dim, ShapesCollection, dims
from ember.export.exported_program import ExportedProgram, ModuleCallEntry, ModuleCallSignature
from ember.export.graph_signature import ExportBackwardSignature, ExportGraphSignature

__all__ = ["AdditionalInputs", "Constraint", "CustomDecompTable", "Dim",
           "ExportBackwardSignature", "ExportGraphSignature", "ExportedProgram",
           "FlatArgsAdapter", "ModuleCallEntry", "ModuleCallSignature", "ShapesCollection",
           "UnflattenedModule", "default_decompositions", "dims", "draft_export", "export",
           "load", "register_dataclass", "save", "unflatten"]


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict: bool = False,
           preserve_module_call_signature=(), prefer_deferred_runtime_asserts_over_guards=False):
    """Trace `mod` called on `args`/`kwargs` into an ExportedProgram: its ATen-level graph with
    the parameters and buffers lifted to inputs (strict and non-strict trace alike)."""
    return _export(mod, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict,
                   preserve_module_call_signature=preserve_module_call_signature)


def draft_export(mod, args, kwargs=None, *, dynamic_shapes=None,
                 preserve_module_call_signature=(), strict: bool = False, **ignored):
    """`export` that reports what it had to work around: ember's trace needs no workaround, so
    the report (`ep._report`) is empty."""
    program = export(mod, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict,
                     preserve_module_call_signature=preserve_module_call_signature)
    program._report = []
    return program


class CustomDecompTable(dict):
    """The decompositions `run_decompositions` applies: op entry -> Python decomposition."""

    def copy(self):
        return CustomDecompTable(self)

    def materialize(self) -> dict:
        return dict(self)


def default_decompositions() -> CustomDecompTable:
    """The table `run_decompositions()` uses by default: empty, ember's tracer already records
    its own ATen ops."""
    return CustomDecompTable()


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol: int = 2) -> None:
    """Write an ExportedProgram to `f` (ember's own format, a pickle through ember.save)."""
    import ember
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"The 'ep' parameter must be an instance of 'ExportedProgram', got "
                        f"'{type(ep).__name__}' instead.")
    ember.save({"ember.export": 1, "program": ep, "extra_files": extra_files or {}}, f,
               pickle_protocol=pickle_protocol)


def load(f, *, extra_files=None, expected_opset_version=None) -> ExportedProgram:
    """Read back what `save` wrote."""
    import ember
    payload = ember.load(f, weights_only=False)
    if not isinstance(payload, dict) or payload.get("ember.export") != 1:
        raise RuntimeError("ember.export.load: not a program written by ember.export.save")
    if extra_files is not None:
        extra_files.update(payload["extra_files"])
    return payload["program"]


def register_dataclass(cls, *, serialized_type_name=None) -> None:
    """Let a dataclass be an export input or output (its fields are flattened)."""
    import dataclasses

    from ember.utils import _pytree
    if not dataclasses.is_dataclass(cls):
        raise AssertionError(f"{cls} is not a dataclass")
    names = [f.name for f in dataclasses.fields(cls)]
    _pytree.register_pytree_node(
        cls, lambda obj: ([getattr(obj, n) for n in names], None),
        lambda values, context: cls(**dict(zip(names, values))),
        serialized_type_name=serialized_type_name)


class FlatArgsAdapter:
    """Adapts flat inputs to an unflattened module whose input spec differs (subclass it)."""

    def adapt(self, target_spec, input_spec, input_args, metadata=None, obj=None):
        raise NotImplementedError("FlatArgsAdapter.adapt: subclasses say how to adapt inputs")


def _unflattened_class():
    from ember.nn import Module

    class UnflattenedModule(Module):
        """An ExportedProgram as a module with the original's submodule paths for its
        parameters and buffers (its forward runs the whole graph)."""

        def __init__(self, export_module, flat_args_adapter=None) -> None:
            super().__init__()
            self.__dict__["_inner"] = export_module.module()   # (not a child: its parts are)
            for name, child in self._inner.named_children():
                if name != "graph_module":
                    self.add_module(name, child)
            self.flat_args_adapter = flat_args_adapter

        def forward(self, *args, **kwargs):
            return self._inner(*args, **kwargs)
    return UnflattenedModule


def __getattr__(name: str):
    if name == "UnflattenedModule":
        cls = _unflattened_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def unflatten(module, flat_args_adapter=None):
    """The ExportedProgram as a module with its submodules' names (UnflattenedModule)."""
    return __getattr__("UnflattenedModule")(module, flat_args_adapter)
