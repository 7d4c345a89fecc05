"""The in-place function forms PyTorch keeps in its top-level namespace (`torch.exp_(x)`, ...).

Each is the Tensor method of the same name called with the tensor first, so
`tools/gen_bindings.py` binds `ember.<name>` to the generated method itself (no extra frame).
PyTorch has such a function only for these names: `torch.add_` does not exist, so neither does
`ember.add_`.
"""
from ember._core import arguments, dispatch

INPLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan_", "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_",
    "clamp_", "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_",
    "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_",
    "floor_", "frac_", "gcd_", "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_",
    "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_",
    "resize_as_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_",
    "tan_", "tanh_", "threshold_", "trunc_", "xlogy_",
)


def function_forms(generated_methods) -> dict:
    """name -> the function `ember.<name>`: the generated method where there is one, else a
    function that calls the hand-written Tensor method (detach_, as_strided_ ...) on its first
    argument."""
    forms = {}
    for name in INPLACE_FUNCTIONS:
        method = generated_methods.__dict__.get(name)
        forms[name] = method if method is not None else _forwarding(name)
    return forms


def _forwarding(name):
    def function(input, *args, **kwargs):
        if not isinstance(input, dispatch.Tensor) and not hasattr(type(input), "__torch_function__"):
            # (PyTorch's parser refuses it before any method is looked up)
            arguments.refuse((name, "input", 1), "Tensor", input)
        return getattr(input, name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"{name}(input, ...) -> Tensor: input.{name}(...), in place."
    return function
