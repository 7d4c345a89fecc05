"""ZeroRedundancyOptimizer on 2 or 3 ranks: the same parameters and (consolidated) state as the
plain optimizer stepping alone; each rank's local optimizer holds only its share."""
import datetime
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from check import check, done, same

import ember as torch
import ember.distributed as dist
from ember.distributed.optim import ZeroRedundancyOptimizer

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank, size = dist.get_rank(), dist.get_world_size()


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))


def train(make_opt, steps=3):
    net = model()
    opt = make_opt(net.parameters())
    x = torch.linspace(-1, 1, 15).reshape(3, 5)
    for _ in range(steps):
        opt.zero_grad()
        net(x).pow(2).sum().backward()
        opt.step()
    return net, opt


plain_net, plain = train(lambda p: torch.optim.Adam(p, lr=0.05))
zero_net, zero = train(lambda p: ZeroRedundancyOptimizer(p, torch.optim.Adam, lr=0.05))
for (name, a), b in zip(plain_net.named_parameters(), zero_net.parameters()):
    same(b.detach(), a.detach().numpy(), f"rank {rank} {name}", rtol=1e-5, atol=1e-6)
local = sum(len(g["params"]) for g in zero.optim.param_groups)
counts = [None] * size
dist.all_gather_object(counts, local)
check(sum(counts) == 4 and (size == 1 or max(counts) < 4), f"shares {counts}")
zero.consolidate_state_dict(to=0)
if rank == 0:
    ours, theirs = zero.state_dict(), plain.state_dict()
    check(sorted(ours["state"]) == sorted(theirs["state"]), "consolidated indices")
    for index, buffers in theirs["state"].items():
        same(ours["state"][index]["exp_avg"], buffers["exp_avg"].numpy(), f"exp_avg {index}")
done()
