"""Composable function transforms, as in `torch.func`: grad, vjp, jvp, jacrev, jacfwd and
hessian (_transforms.py), vmap (_vmap.py), functional_call (_functional_call.py), linearize,
functionalize and the ensembling helpers (_extras.py), rearrange (_rearrange.py)."""
import importlib as _importlib

# Loaded on first use (PEP 562, as `ember/__init__.py` does): `import ember.nn` reaches
# functional_call alone and does not pay for the transforms (the pytree module among them).
_WHERE = {
    **dict.fromkeys(("debug_unwrap", "functionalize", "linearize",
                     "replace_all_batch_norm_modules_", "stack_module_state"), "_extras"),
    "functional_call": "_functional_call",
    "rearrange": "_rearrange",
    **dict.fromkeys(("grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp"),
                    "_transforms"),
    "vmap": "_vmap",
}

__all__ = [
    "debug_unwrap", "functional_call", "functionalize", "grad", "grad_and_value", "hessian",
    "jacfwd", "jacrev", "jvp", "linearize", "rearrange", "replace_all_batch_norm_modules_",
    "stack_module_state", "vjp", "vmap",
]


def __getattr__(name):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'ember.func' has no attribute '{name}'")
    value = getattr(_importlib.import_module(f"ember.func.{where}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
