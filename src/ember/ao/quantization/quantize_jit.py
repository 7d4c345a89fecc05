"""TorchScript's graph-mode quantization entry points. ember's `jit.script` runs the module's
own Python (NOTE [jit runs eagerly]), so there is no graph to rewrite: `quantize_dynamic_jit`
quantizes the scripted module's Linear layers as `quantize_dynamic` does (the kernels graph mode
inserts for them are the same dynamic linear); `quantize_jit` (static graph mode, which
quantizes every op of the graph) is refused."""
from __future__ import annotations

from ember import nn
from ember.ao.quantization.quantize import quantize_dynamic

__all__ = ["quantize_dynamic_jit", "quantize_jit"]


def _check_is_script_module(model) -> None:
    from ember.jit._script import _script_module_base
    if not isinstance(model, _script_module_base()):
        raise ValueError(f"input must be a script module, got: {type(model)}")  # noqa: TRY004


def quantize_dynamic_jit(model, qconfig_dict, inplace: bool = False, debug: bool = False):
    """A scripted model with its Linear layers dynamically quantized; `qconfig_dict` maps
    submodule names ('' for the whole model) to qconfigs."""
    _check_is_script_module(model)
    if debug:
        raise NotImplementedError("ember has no TorchScript graphs to keep in debug form")
    return quantize_dynamic(model, qconfig_spec=dict(qconfig_dict), inplace=inplace,
                            mapping={nn.Linear: _dynamic_linear()})


def _dynamic_linear():
    from ember.ao.nn.quantized.dynamic import Linear
    return Linear


def quantize_jit(model, qconfig_dict, run_fn, run_args, inplace: bool = False,
                 debug: bool = False):
    """Static graph-mode quantization: not available (ember has no TorchScript graphs; use
    eager mode: QuantStub / DeQuantStub, `prepare`, `convert`)."""
    _check_is_script_module(model)
    raise NotImplementedError("graph-mode static quantization rewrites TorchScript graphs, which "
                              "ember does not build (NOTE [jit runs eagerly]); quantize in "
                              "eager mode (prepare / convert) instead")
