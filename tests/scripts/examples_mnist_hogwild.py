"""pytorch/examples' mnist_hogwild in miniature: a model whose parameters live in shared
memory (Module.share_memory()), trained by two processes at once (torch.multiprocessing,
fork), and tested in the parent afterwards: the children's updates must show in the parent."""
import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn


def train(rank, model, data, target):
    torch.manual_seed(1 + rank)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(20):
        opt.zero_grad()
        F.mse_loss(model(data), target).backward()
        opt.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    model.share_memory()
    print("shared", all(p.is_shared() for p in model.parameters()))
    data = torch.randn(32, 4)
    target = data @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    before = F.mse_loss(model(data), target).item()
    ctx = mp.get_context("fork")
    processes = [ctx.Process(target=train, args=(rank, model, data, target)) for rank in range(2)]
    for p in processes:
        p.start()
    for p in processes:
        p.join()
    after = F.mse_loss(model(data), target).item()
    print("exit codes", [p.exitcode for p in processes])
    print("improved in the parent", after < before * 0.5)
