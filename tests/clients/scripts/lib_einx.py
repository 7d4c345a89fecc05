import einx
import torch
from _show import show

x = torch.linspace(-1, 1, 2 * 3 * 4).reshape(2, 3, 4)
w = torch.linspace(0, 1, 4 * 5).reshape(4, 5)
show("dot", einx.dot("b s [c], [c] d -> b s d", x, w))
show("sum", einx.sum("b [s] c", x))
show("mean", einx.mean("b s [c]", x))
show("add", einx.add("b s c, c", x, torch.arange(4.0)))
show("rearrange", einx.rearrange("b s c -> b (s c)", x))
show("softmax", einx.softmax("b s [c]", x))
show("get_at", einx.get_at("b [s] c, b i -> b i c", x, torch.tensor([[0, 2], [1, 1]])))
