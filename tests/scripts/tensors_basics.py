# An ordinary PyTorch script, written as users write it (runs under `python -m ember.run`).
import sys

import torch

torch.manual_seed(0)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
w = torch.ones(2, 2, dtype=torch.float32)
y = x @ w + 1
z = y.view(-1).sum()
assert isinstance(x, torch.Tensor)
print("sum", z.item(), "shape", tuple(y.shape), "dtype", y.dtype, "args", sys.argv[1:])
