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


if __name__ == "__main__":
    main()
