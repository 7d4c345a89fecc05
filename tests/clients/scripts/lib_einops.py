import einops
import torch
from _show import show
from einops import einsum, pack, rearrange, reduce, repeat, unpack
from einops.layers.torch import Rearrange, Reduce
from torch import nn

x = torch.arange(2 * 3 * 4 * 6, dtype=torch.float32).reshape(2, 3, 4, 6) / 10
show("rearrange", rearrange(x, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=3))
show("reduce max", reduce(x, "b c (h 2) (w 2) -> b c h w", "max"))
show("reduce mean", reduce(x, "b c h w -> b c", "mean"))
show("repeat", repeat(x[0, 0], "h w -> h w k", k=2))
packed, ps = pack([x[:, 0], x[:, 1:].sum(1, keepdim=True).squeeze(1)], "b *")
show("pack", packed)
print("ps", ps)
a, b = unpack(packed, ps, "b *")
show("unpack", b)
show("einsum", einsum(x, x, "b c h w, b c h w2 -> b h w w2"))
show("parse", einops.parse_shape(x, "b c _ w"))
torch.manual_seed(0)
model = nn.Sequential(
    Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=2),
    nn.Linear(12, 5),
    Reduce("b n d -> b d", "mean"),
)
y = model(x)
show("model", y)
y.sum().backward()
show("grad", model[1].weight.grad)
print(model)
