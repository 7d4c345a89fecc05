"""A small unchanged PyTorch program using torch.distributions: maximum-likelihood fit of a
Normal with Adam, a REINFORCE step through a Categorical policy, a reparameterised ELBO-like
term and a KL divergence."""
import torch
from torch.distributions import Categorical, Independent, Normal, kl_divergence

torch.manual_seed(0)
data = 2.0 + 0.5 * torch.randn(256)

loc = torch.zeros((), requires_grad=True)
log_scale = torch.zeros((), requires_grad=True)
optimizer = torch.optim.Adam([loc, log_scale], lr=0.1)
for step in range(150):
    optimizer.zero_grad()
    loss = -Normal(loc, log_scale.exp()).log_prob(data).mean()
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(f"step {step:3d}  nll {loss.item():.4f}")
print(f"loc {loc.item():.3f}  scale {log_scale.exp().item():.3f}")

logits = torch.zeros(4, requires_grad=True)
policy = Categorical(logits=logits)
actions = policy.sample((8,))
rewards = (actions == 2).float()
(-(policy.log_prob(actions) * rewards).mean()).backward()
print("actions", actions.tolist())
print("policy gradient", [round(g, 4) for g in logits.grad.tolist()])

mu = torch.tensor([0.5, -0.5], requires_grad=True)
posterior = Independent(Normal(mu, torch.ones(2)), 1)
z = posterior.rsample((3,))
prior = Independent(Normal(torch.zeros(2), torch.ones(2)), 1)
kl = kl_divergence(posterior, prior)
(z.sum() + kl).backward()
print("z", [[round(v, 4) for v in row] for row in z.tolist()])
print(f"kl {kl.item():.4f}  grad {[round(g, 4) for g in mu.grad.tolist()]}")
print(posterior.batch_shape, posterior.event_shape, prior)
