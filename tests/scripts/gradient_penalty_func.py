"""Autograd as research code uses it: a WGAN-GP gradient penalty (autograd.grad with
create_graph), per-sample gradients with torch.func (vmap of grad over functional_call),
jacrev / hessian / autograd.functional, a custom Function with tensor hooks and retain_grad,
anomaly detection finding a NaN, no_grad as a decorator, and LBFGS with strong Wolfe."""
import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd.functional import hvp, jacobian
from torch.func import functional_call, grad, hessian, jacrev, vmap

torch.manual_seed(0)

# WGAN-GP style gradient penalty
D = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
G = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 4))
optD = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
optG = torch.optim.RMSprop(G.parameters(), lr=1e-3)
real = torch.randn(32, 4) * 0.5 + 1
for it in range(5):
    z = torch.randn(32, 2)
    fake = G(z).detach()
    eps = torch.rand(32, 1)
    xhat = (eps * real + (1 - eps) * fake).requires_grad_(True)
    g, = torch.autograd.grad(D(xhat).sum(), xhat, create_graph=True)
    gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
    lossD = D(fake).mean() - D(real).mean() + 10 * gp
    optD.zero_grad(); lossD.backward(); optD.step()
    lossG = -D(G(torch.randn(32, 2))).mean()
    optG.zero_grad(); lossG.backward(); optG.step()
    print(it, f"{lossD.item():.5f} {lossG.item():.5f} {gp.item():.4f}")

# per-sample gradients with func
model = nn.Linear(3, 2)
params = {k: v.detach() for k, v in model.named_parameters()}
def loss_fn(p, x, y):
    out = functional_call(model, p, (x.unsqueeze(0),))
    return F.cross_entropy(out, y.unsqueeze(0))
xs, ys = torch.randn(5, 3), torch.tensor([0, 1, 1, 0, 1])
per = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, xs, ys)
# (abs: the plain sum is 0 up to rounding, and its sign differs between PyTorch's CPU kernels)
print({k: tuple(v.shape) for k, v in per.items()}, f"{per['weight'].abs().sum().item():.4f}")
f = lambda x: (x ** 3).sum()
x = torch.tensor([1., 2., 3.])
print(jacrev(lambda x: x.sin() * x)(x))
print(hessian(f)(x))
print(jacobian(lambda a, b: a * b, (x, x + 1)))
print(hvp(f, x, torch.ones(3)))

class Clamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo):
        ctx.save_for_backward(x); ctx.lo = lo
        return x.clamp(min=lo)
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * (x >= ctx.lo).to(g.dtype), None
t = torch.linspace(-1, 1, 5, requires_grad=True)
y = Clamp.apply(t, 0.0)
hooked = []
y.register_hook(lambda g: hooked.append(g.clone()))
y.retain_grad()
(y * 2).sum().backward()
print(t.grad, y.grad, hooked[0])
with torch.autograd.detect_anomaly():
    a = torch.tensor([1.0], requires_grad=True)
    try:
        (a / 0 * 0).backward()
        print("no anomaly?", a.grad)
    except RuntimeError as e:
        print("anomaly", "nan" in str(e).lower())
@torch.no_grad()
def infer(m, x): return m(x).requires_grad
print(infer(model, xs), torch.is_grad_enabled())
with torch.no_grad(), torch.enable_grad():
    print(model(xs).requires_grad)
w = torch.zeros(3, requires_grad=True)
opt = torch.optim.LBFGS([w], lr=1, max_iter=20, line_search_fn="strong_wolfe")
target = torch.tensor([1., -2., 3.])
def closure():
    opt.zero_grad(); l = ((w - target) ** 2).sum() + (w ** 4).sum() * 0.01; l.backward(); return l
for _ in range(3): opt.step(closure)
print("lbfgs", [f"{v:.5f}" for v in w.tolist()])
