import torch
from _show import show
from torch import nn
from torchdiffeq import odeint, odeint_adjoint


class Lotka(nn.Module):
    def __init__(self):
        super().__init__()
        self.theta = nn.Parameter(torch.tensor([1.1, 0.4, 0.1, 0.4]))
    def forward(self, t, y):
        a, b, c, d = self.theta
        return torch.stack([a * y[0] - b * y[0] * y[1], c * y[0] * y[1] - d * y[1]])

f = Lotka()
y0 = torch.tensor([10.0, 5.0])
t = torch.linspace(0, 2, 5)
for method in ("dopri5", "rk4", "bosh3"):
    kwargs = {"options": {"step_size": 0.1}} if method in ("rk4", "euler") else {"rtol": 1e-4, "atol": 1e-6}
    sol = odeint(f, y0, t, method=method, **kwargs)
    show(method, sol[-1], 3)
sol = odeint(f, y0, t, rtol=1e-4, atol=1e-6)
sol[-1].sum().backward()
show("grad", f.theta.grad, 1)
f.theta.grad = None
sol = odeint_adjoint(f, y0, t, rtol=1e-4, atol=1e-6)
sol[-1].sum().backward()
show("adjoint grad", f.theta.grad, 1)
decay = lambda t, y: -0.5 * y
show("decay", odeint(decay, torch.ones(3, dtype=torch.float64), torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)), 6)
