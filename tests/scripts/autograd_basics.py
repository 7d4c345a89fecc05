import torch
from torch.autograd import grad

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()
y.backward()
(g,) = grad((x * x * x).sum(), x)
with torch.no_grad():
    z = x * 2
print("grad", x.grad.tolist(), "g", g.tolist(), "no_grad", z.requires_grad)
