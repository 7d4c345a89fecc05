"""Fit a line by gradient descent, the way a first PyTorch tutorial does it (no nn, no optim)."""
import argparse

import torch


def make_data(n):
    x = torch.linspace(-1.0, 1.0, n).unsqueeze(1)
    noise = 0.1 * torch.sin(7.0 * x)
    y = 3.0 * x - 0.5 + noise
    return x, y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()

    x, y = make_data(32)
    w = torch.zeros(1, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for step in range(args.steps):
        prediction = x @ w + b
        loss = ((prediction - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= args.lr * w.grad
            b -= args.lr * b.grad
        w.grad = None          # what optimizer.zero_grad() does by default
        b.grad = None
        if step % 20 == 0:
            print(f"step {step:3d}  loss {loss.item():.5f}")
    print(f"w = {w.item():.4f}, b = {b.item():.4f}")
    print("requires_grad after training:", w.requires_grad, (x @ w).requires_grad)
    with torch.no_grad():
        residual = (x @ w + b - y).abs().max()
    print("max residual", round(residual.item(), 4), residual.requires_grad)
    print(w.detach(), b.grad)
    print(torch.is_grad_enabled(), x.dtype, y.shape)


if __name__ == "__main__":
    main()
