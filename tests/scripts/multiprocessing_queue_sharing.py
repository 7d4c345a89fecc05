"""Tensors sent through torch.multiprocessing Queues to a spawned and a forked process: the
sender's tensor (a view) and a Parameter move into shared memory, the receiver writes in
place and the sender sees it; a non-leaf that requires grad is refused."""
from multiprocessing.reduction import ForkingPickler

import torch
import torch.multiprocessing as mp


def worker(q, done):
    t = q.get()
    t.add_(10)
    p = q.get()
    with torch.no_grad():
        p.mul_(2)
    done.put((t.is_shared(), type(p).__name__, p.requires_grad))


if __name__ == "__main__":
    for method in ("spawn", "fork"):
        ctx = mp.get_context(method)
        q, done = ctx.Queue(), ctx.Queue()
        t = torch.arange(4.0)[1:]          # a view: its storage is shared whole
        p = torch.nn.Parameter(torch.ones(2))
        proc = ctx.Process(target=worker, args=(q, done))
        proc.start()
        q.put(t)
        q.put(p)
        print(method, done.get(), t.tolist(), p.tolist(), t.is_shared(), p.is_shared())
        proc.join()
    try:
        ForkingPickler.dumps(torch.ones(2, requires_grad=True) * 2)
    except RuntimeError as e:
        print("refused:", str(e)[:40])
