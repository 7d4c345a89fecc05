"""Composable function transforms, as in `torch.func`: grad, vjp, jvp, jacrev, jacfwd and
hessian (_transforms.py), vmap (_vmap.py), functional_call (_functional_call.py), linearize,
functionalize and the ensembling helpers (_extras.py), rearrange (_rearrange.py)."""
from ember.func._extras import (
    debug_unwrap,
    functionalize,
    linearize,
    replace_all_batch_norm_modules_,
    stack_module_state,
)
from ember.func._functional_call import functional_call
from ember.func._rearrange import rearrange
from ember.func._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ember.func._vmap import vmap

__all__ = [
    "debug_unwrap", "functional_call", "functionalize", "grad", "grad_and_value", "hessian",
    "jacfwd", "jacrev", "jvp", "linearize", "rearrange", "replace_all_batch_norm_modules_",
    "stack_module_state", "vjp", "vmap",
]
