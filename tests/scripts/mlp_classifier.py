"""A small MLP classifier trained by hand (no nn/optim): the way people learn PyTorch."""
import math

import torch

torch.manual_seed(0)
n, d, h, k = 64, 4, 16, 3
# Deterministic data so ember and torch see the same numbers.
x = torch.linspace(-2, 2, n * d).reshape(n, d).sin()
labels = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()

w1 = (torch.arange(d * h, dtype=torch.float32).reshape(d, h) % 7 - 3) / 10
w1.requires_grad_()
b1 = torch.zeros(h, requires_grad=True)
w2 = (torch.arange(h * k, dtype=torch.float32).reshape(h, k) % 5 - 2) / 10
w2.requires_grad_()
b2 = torch.zeros(k, requires_grad=True)
params = [w1, b1, w2, b2]

for step in range(60):
    hidden = torch.relu(x @ w1 + b1)
    logits = hidden @ w2 + b2
    log_probs = torch.log_softmax(logits, dim=1)
    loss = -log_probs[torch.arange(n), labels].mean()
    for p in params:
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= 0.5 * p.grad
    if step % 20 == 0:
        accuracy = (logits.argmax(dim=1) == labels).float().mean()
        print(f"step {step:2d} loss {loss.item():.4f} accuracy {accuracy.item():.3f}")

grad_norm = math.sqrt(sum(float((p.grad ** 2).sum()) for p in params))
print(f"final loss {loss.item():.4f} grad norm {grad_norm:.4f}")
probs = torch.softmax(logits[:3], dim=1)
print("first rows", [round(v, 3) for v in probs.flatten().tolist()])
