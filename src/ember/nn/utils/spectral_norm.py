"""Spectral normalization as a forward pre-hook (the older form; parametrizations.spectral_norm
is the newer): `name` becomes `name_orig` (the parameter) plus buffers `name_u` and `name_v`
(the power iteration's singular vector estimates); before each forward, in training, one or
more power iterations refine u and v in place, and `name` is set to name_orig / sigma."""
from __future__ import annotations

import ember
from ember.nn._functional.distance import normalize
from ember.nn.parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "remove_spectral_norm", "spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that divides `name_orig` by its estimated largest singular value."""

    _version = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as (size of `dim`, everything else)."""
        matrix = weight
        if self.dim != 0:
            matrix = matrix.permute(self.dim, *[d for d in range(matrix.dim()) if d != self.dim])
        return matrix.reshape(matrix.size(0), -1)

    def compute_weight(self, module, do_power_iteration: bool):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            # u and v are updated in place (they are the module's buffers), and cloned after
            # so that autograd's saved copies are not the buffers the next forward changes.
            with ember.no_grad():
                for _ in range(self.n_power_iterations):
                    v = normalize(ember.mv(matrix.t(), u), dim=0, eps=self.eps, out=v)
                    u = normalize(ember.mv(matrix, v), dim=0, eps=self.eps, out=u)
                u = u.clone()
                v = v.clone()
        sigma = ember.dot(u, ember.mv(matrix, v))
        return weight / sigma

    def remove(self, module) -> None:
        with ember.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if isinstance(weight, UninitializedParameter):
            raise ValueError(  # noqa: TRY004 -- PyTorch's class
                "The module passed to `SpectralNorm` can't have uninitialized parameters. Make "
                "sure to run the dummy forward before applying spectral normalization")
        with ember.no_grad():
            rows, cols = fn.reshape_weight_to_matrix(weight).shape
            u = normalize(weight.new_empty(rows).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(cols).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # A plain attribute until the first forward: the hook replaces it with orig / sigma.
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormStateDictHook:
    """Records the format version in the state dict's metadata (spectral_norm.<name>.version),
    as PyTorch does, so that checkpoints carry it both ways."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


class SpectralNormLoadStateDictPreHook:
    """Checks a loaded state dict's format: version 1 (name_orig, name_u, name_v) loads as it
    is; the version-0 layout (which stored name itself instead of name_v) is refused."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs) -> None:
        version = local_metadata.get("spectral_norm", {}).get(self.fn.name + ".version")
        if version is not None and version >= 1:
            return
        key = prefix + self.fn.name
        if all(key + suffix in state_dict for suffix in ("_orig", "_u", "_v")) and \
                key not in state_dict:
            return      # no metadata, but the current layout
        if all(key + suffix in state_dict for suffix in ("_orig", "", "_u")):
            raise NotImplementedError(
                "spectral_norm: loading a version-0 state dict (weight stored without weight_v) "
                "is not supported")


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None):
    """Divide module.<name> by its spectral norm (estimated by power iteration) before each
    forward; dim defaults to 1 for transposed convolutions, else 0. Returns the module."""
    if dim is None:
        from ember.nn.modules import conv
        transposed = tuple(getattr(conv, kind) for kind in (
            "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d") if hasattr(conv, kind))
        dim = 1 if transposed and isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name: str = "weight"):
    """Undo spectral_norm: `name` becomes a plain parameter holding orig / sigma."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    return module
