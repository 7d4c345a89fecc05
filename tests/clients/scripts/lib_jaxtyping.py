import torch
from _show import show
from jaxtyping import Float, Int, Shaped, jaxtyped

x = torch.ones(2, 3)
print(isinstance(x, Float[torch.Tensor, "b c"]), isinstance(x, Int[torch.Tensor, "b c"]),
      isinstance(x, Float[torch.Tensor, "b"]), isinstance(torch.arange(3), Int[torch.Tensor, "n"]),
      isinstance(x.double(), Float[torch.Tensor, "2 3"]), isinstance(x.half(), Shaped[torch.Tensor, "..."]),
      isinstance(x.bool(), Float[torch.Tensor, "b c"]))

def check(fn):
    def typecheck(f):
        return f
    return fn

@jaxtyped(typechecker=None)
def f(a: Float[torch.Tensor, "b c"], b: Float[torch.Tensor, "c"]) -> Float[torch.Tensor, "b c"]:
    return a + b

show("jaxtyped", f(x, torch.arange(3.0)))
print(Float[torch.Tensor, "b c"])
