"""A number or a 0-d tensor beside a float16 / bfloat16 tensor rounds to the half dtype before
the float32 computation, as PyTorch's operand cast does; mul and div read a second operand
unrounded, lerp a number weight (NOTE [half operands round first]). Compared bit for bit."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

VALUES = np.random.default_rng(0).uniform(0.5, 5, 512).astype(np.float16)
CALLS = {
    "add": lambda lib, x, s: x + s,
    "sub": lambda lib, x, s: x - s,
    "rsub": lambda lib, x, s: s - x,
    "mul": lambda lib, x, s: x * s,
    "rmul": lambda lib, x, s: s * x,
    "div": lambda lib, x, s: x / s,
    "floor divide": lambda lib, x, s: lib.div(x, s, rounding_mode="floor"),
    "remainder": lambda lib, x, s: lib.remainder(x, s),
    "fmod": lambda lib, x, s: lib.fmod(x, s),
    "pow": lambda lib, x, s: lib.pow(x, s),
    "eq": lambda lib, x, s: x == s,
    "lt": lambda lib, x, s: x < s,
    "add alpha": lambda lib, x, s: lib.add(x, x, alpha=s),
    "sub scalar alpha": lambda lib, x, s: lib.sub(x, 2.3719, alpha=s),
    "lerp": lambda lib, x, s: lib.lerp(x, x * 0 + 1, s),
    "clamp": lambda lib, x, s: lib.clamp(x, min=s),
    "where": lambda lib, x, s: lib.where(x > 2, x, s),
}
SCALARS = {"number": lambda lib, s: s, "0-d float64": lambda lib, s: lib.tensor(
    s, dtype=lib.float64)}


# PyTorch's alpha * other rounds to half in its scalar loop, not in its vector one: which
# elements take which depends on the CPU capability, so these agree to one unit in the last
# place of the operands (all below 16: 16 * 2**-10 in float16, 16 * 2**-7 in bfloat16), the
# rest bit for bit.
ALPHA = ("add alpha", "sub scalar alpha")
ONE_ULP = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def _bits(result):
    return result.float().numpy().view(np.int32)


@pytest.mark.parametrize("kind", sorted(SCALARS))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_half_operand_rounds_as_torchs(name, dtype, kind):
    call, scalar = CALLS[name], SCALARS[kind]
    for s in (2.3719, 0.30001, 1.0001):
        if name in ("add alpha", "sub scalar alpha", "lerp", "clamp") and kind != "number":
            continue        # (Scalar arguments: numbers only)
        results = []
        for lib in (torch, ember):
            x = lib.tensor(VALUES).to(getattr(lib, dtype))
            results.append(call(lib, x, scalar(lib, s)))
        expected, got = results
        if name in ALPHA:
            np.testing.assert_allclose(got.float().numpy(), expected.float().numpy(),
                                       rtol=0, atol=16 * ONE_ULP[dtype], err_msg=f"{name} {s}")
        else:
            np.testing.assert_array_equal(_bits(got), _bits(expected), err_msg=f"{name} {s}")


def test_alpha_past_the_half_range_is_torchs_overflow_error():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="c10::Half without overflow"):
            lib.add(lib.ones(2, dtype=lib.float16), lib.ones(2, dtype=lib.float16), alpha=1e6)
