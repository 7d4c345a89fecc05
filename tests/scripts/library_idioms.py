"""Library-style code: a Tensor subclass made with _make_subclass and __torch_function__
(indexing and arithmetic keep the subclass), torch.utils._pytree maps and flattens, the device
context manager, Size arithmetic, grouped-query and math-backend attention, RMSNorm, conv-bn
fusion, Parameter subclasses, from_pretrained embeddings, unpad_sequence, torch.vmap,
torch.compile and a few functional helpers."""
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils._pytree import tree_flatten, tree_map, tree_unflatten

torch.manual_seed(0)
class Boxes(torch.Tensor):
    @staticmethod
    def __new__(cls, data, fmt="xyxy"):
        t = torch.as_tensor(data, dtype=torch.float32)
        out = torch.Tensor._make_subclass(cls, t, False)
        out.fmt = fmt
        return out
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        out = super().__torch_function__(func, types, args, kwargs or {})
        return out
b = Boxes([[0, 0, 2, 2], [1, 1, 3, 4]])
print(type(b).__name__, b.fmt, type(b[0]).__name__, type(b + 1).__name__, (b[:, 2] - b[:, 0]).tolist())
print(type(b.clone()).__name__, getattr(b.clone(), "fmt", "nofmt"), type(b.sum()).__name__)
tree = {"a": torch.ones(2), "b": [torch.zeros(1), 3]}
print(tree_map(lambda x: x * 2 if isinstance(x, torch.Tensor) else x, tree))
leaves, spec = tree_flatten(tree); print(len(leaves), tree_unflatten(leaves, spec)["b"][1])
with torch.device("cpu"):
    print(torch.ones(2).device)
s = torch.Size([2, 3]); print(s + (4,), s.numel(), s[1:], torch.Size([2]) == (2,))
q = torch.randn(1, 8, 4, 16); k = torch.randn(1, 2, 4, 16); v = torch.randn(1, 2, 4, 16)
print(F.scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=True).shape)
from torch.nn.attention import SDPBackend, sdpa_kernel

with sdpa_kernel(SDPBackend.MATH):
    print(F.scaled_dot_product_attention(q, q, q).shape)
print(nn.RMSNorm(16)(torch.randn(2, 16)).shape, nn.RMSNorm([4, 16], eps=1e-5).eps)
m = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8)).eval()
fused = torch.nn.utils.fusion.fuse_conv_bn_eval(m[0], m[1])
xx = torch.randn(1, 3, 8, 8)
print(torch.allclose(fused(xx), m(xx), atol=1e-5))
p = nn.Parameter(torch.ones(2))
class MyParam(nn.Parameter):
    pass
mp = MyParam(torch.ones(3)); print(type(mp).__name__, mp.requires_grad, type(mp * 2).__name__)
print(torch.nn.modules.utils._pair(3), torch.nn.init.calculate_gain("leaky_relu", 0.2))
print(F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=1.5, mode="nearest-exact").shape)
emb = nn.Embedding.from_pretrained(torch.eye(3), freeze=True); print(emb.weight.requires_grad)
print(torch.nn.utils.rnn.unpad_sequence(torch.ones(2, 3, 1), torch.tensor([3, 1]), batch_first=True)[1].shape)
x = torch.arange(12.).view(3, 4)
print(torch.vmap(torch.dot)(x, x), torch.func.vmap(lambda r: r.sum())(x))
print(torch.compile(lambda t: t.relu() + 1)(torch.tensor([-1., 2.])))
print(torch.take_along_dim(x, torch.tensor([[0], [1], [2]]), dim=1).tolist())
print(torch.nn.functional.normalize(x, dim=1).norm(dim=1))
print(torch.amp.autocast_mode.is_autocast_available("cpu"))
