"""The README's demo: `make demo` (or `python -m ember.demo`).

A short tour of what ember does today, written the way a PyTorch user writes it.
"""
from __future__ import annotations


def main() -> None:
    import ember as torch

    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    print("x =", x)
    print("x.shape:", x.shape, " x.dtype:", x.dtype, " x.stride():", x.stride())

    y = x.T @ x                      # a matrix product through a transposed view
    print("x.T @ x =", y)
    print("x.sum(dim=0) =", x.sum(dim=0), " x.mean() =", x.mean())

    v = x.view(3, 2)                 # views share storage and a version counter
    v[0, 0] = 100.0
    print("after writing through a view, x =", x)

    i = torch.tensor([1, 2, 3])
    print("int + float scalar promotes like PyTorch:", (i + 1.5).dtype,
          "| int / int:", (i / 2).dtype, "| bool + bool:", (i > 1).dtype)

    with torch.device("meta"):
        big = torch.empty(100_000, 100_000)
    print("a meta tensor has a shape but no data:", big.shape, big.device)

    h = torch.ones(4, dtype=torch.bfloat16) * 3
    print("bfloat16 works too:", h)

    _autograd_tour(torch)


def _autograd_tour(torch) -> None:
    """Fit y = 3x - 1 by gradient descent with the tape, then higher-order and forward mode."""
    torch.manual_seed(0)
    xs = torch.linspace(-1, 1, 32).unsqueeze(1)
    ys = 3 * xs - 1 + 0.05 * torch.randn(32, 1)
    w = torch.zeros(1, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for step in range(200):
        loss = ((xs @ w + b - ys) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            b -= 0.1 * b.grad
        w.grad.zero_()
        b.grad.zero_()
    print(f"fitted y = {w.item():.3f} x + {b.item():.3f} (loss {loss.item():.4f},",
          f"grad_fn {loss.grad_fn.name()})")

    t = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((t ** 3).sum(), t, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), t)
    print("d/dt t^3 =", g.detach(), " d2/dt2 =", h)

    fw = torch.autograd.forward_ad
    with fw.dual_level():
        dual = fw.make_dual(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 1.0]))
        print("forward-mode tangent of sin:", fw.unpack_dual(dual.sin()).tangent)
    print("jacobian of softmax:", torch.autograd.functional.jacobian(
        lambda v: v.softmax(0), torch.tensor([1.0, 2.0])))


if __name__ == "__main__":
    main()
