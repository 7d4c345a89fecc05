"""Composable function transforms, as in `torch.func`: grad, vjp, jvp, jacrev, jacfwd and
hessian (_transforms.py), vmap (_vmap.py) and functional_call (_functional_call.py)."""
from ember.func._functional_call import functional_call
from ember.func._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ember.func._vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call"]
