import torch
import torchsde
from _show import show


class SDE(torch.nn.Module):
    noise_type = "diagonal"
    sde_type = "ito"
    def __init__(self):
        super().__init__()
        self.theta = torch.nn.Parameter(torch.tensor(0.5))
    def f(self, t, y):
        return -self.theta * y
    def g(self, t, y):
        return 0.2 * torch.ones_like(y)

torch.manual_seed(0)
sde = SDE()
y0 = torch.full((3, 2), 1.0)
ts = torch.linspace(0, 1, 5)
bm = torchsde.BrownianInterval(t0=0.0, t1=1.0, size=(3, 2), entropy=1234)
ys = torchsde.sdeint(sde, y0, ts, method="euler", dt=0.05, bm=bm)
show("euler", ys[-1], 3)
ys.sum().backward()
show("grad", sde.theta.grad, 3)
bm = torchsde.BrownianInterval(t0=0.0, t1=1.0, size=(3, 2), entropy=99, levy_area_approximation="space-time")
ys = torchsde.sdeint(sde, y0, ts, method="srk", dt=0.1, bm=bm)
show("srk", ys[-1], 3)
