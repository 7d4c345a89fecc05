"""A mixture density network fitted to a noisy sine: distributions (MixtureSameFamily of
Categorical and Normal, KL divergence, transformed and multivariate normals), activation
checkpointing, AveragedModel EMA with SWALR and update_bn, CPU autocast to bfloat16,
checkpoint_sequential, and the torch._foreach_* list functions an EMA or a clipper calls."""
import copy
import math

import torch
import torch.distributions as D
import torch.nn.functional as F
from torch import nn
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)

class MDN(nn.Module):
    def __init__(self, k=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.BatchNorm1d(32), nn.Linear(32, 32), nn.SiLU())
        self.pi = nn.Linear(32, k); self.mu = nn.Linear(32, k); self.sd = nn.Linear(32, k)
        self.apply(self._init)
    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            nn.init.kaiming_uniform_(m.weight, a=math.sqrt(5), nonlinearity="leaky_relu")
            nn.init.zeros_(m.bias)
    def forward(self, x):
        h = checkpoint(self.body, x, use_reentrant=False)
        mix = D.Categorical(logits=self.pi(h))
        comp = D.Normal(self.mu(h), F.softplus(self.sd(h)) + 1e-3)
        return D.MixtureSameFamily(mix, comp)

x = torch.linspace(-2, 2, 256).unsqueeze(1)
y = torch.sin(3 * x) + 0.1 * torch.randn_like(x)
model = MDN()
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
swa_sched = SWALR(opt, swa_lr=5e-3, anneal_epochs=5)
for step in range(60):
    idx = torch.randperm(256)[:64]
    dist = model(x[idx])
    loss = -dist.log_prob(y[idx].squeeze(1)).mean()
    opt.zero_grad(); loss.backward(); opt.step(); ema.update_parameters(model)
    if step >= 40: swa_sched.step()
    if step % 20 == 0: print(step, f"{loss.item():.4f}")
loader = [(x[i:i+64],) for i in range(0, 256, 64)]
update_bn(loader, ema)
ema.eval(); model.eval()
with torch.no_grad():
    d = ema(x[:5])
    print("ema mean", [f"{v:.4f}" for v in d.mean.tolist()])
    print("var", [f"{v:.4f}" for v in d.variance.tolist()])
    s = d.sample((3,))
    print("sample shape", tuple(s.shape))
# KL and transforms
p = D.Normal(torch.tensor([0., 1.]), torch.tensor([1., 2.]))
q = D.Normal(torch.tensor([1., 1.]), torch.tensor([1., 1.]))
print("kl", D.kl_divergence(p, q))
t = D.TransformedDistribution(D.Normal(0., 1.), [D.transforms.AffineTransform(1., 2.), D.transforms.ExpTransform()])
print("lp", t.log_prob(torch.tensor([0.5, 2.0])))
mvn = D.MultivariateNormal(torch.zeros(3), scale_tril=torch.eye(3) * 2)
print("mvn ent", mvn.entropy(), mvn.log_prob(torch.ones(3)))
# autocast bf16 on cpu
lin = nn.Linear(8, 8)
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = lin(torch.randn(4, 8))
    print("autocast", out.dtype, (out.float() @ torch.randn(8, 2)).dtype)
# checkpoint_sequential and foreach
seq = nn.Sequential(*[nn.Linear(8, 8) for _ in range(4)])
inp = torch.randn(3, 8, requires_grad=True)
o = checkpoint_sequential(seq, 2, inp, use_reentrant=False)
o.sum().backward()
print("grad", f"{inp.grad.abs().sum().item():.5f}")
params = [p.detach().clone() for p in seq.parameters()]
torch._foreach_mul_(params, 0.5)
torch._foreach_add_(params, [torch.ones_like(p) for p in params], alpha=0.1)
print("foreach", f"{sum(p.sum().item() for p in params):.5f}")
norms = torch._foreach_norm(params)
print("norms", f"{torch.stack(norms).sum().item():.4f}")
m3 = copy.deepcopy(seq); print(type(m3[0]).__name__, m3[0].weight.requires_grad)
print(torch.nn.utils.parameters_to_vector(seq.parameters()).shape)
