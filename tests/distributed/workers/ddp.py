"""DDP on 2 or 3 ranks: several SGD steps equal single-process training on the combined batch,
for each configuration; no_sync, unused parameters, comm hooks, DistributedSampler."""
import datetime
import sys

import numpy as np

sys.path.insert(0, __import__("os").path.dirname(__file__))
from check import check, done, raises, same

import ember as torch
import ember.distributed as dist
from ember.distributed.algorithms.ddp_comm_hooks import default_hooks
from ember.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank, size = dist.get_rank(), dist.get_world_size()
PER_RANK = 4


class Net(torch.nn.Module):
    def __init__(self, spare=False):
        super().__init__()
        self.a = torch.nn.Linear(5, 8)
        self.b = torch.nn.Linear(8, 3)
        self.spare = torch.nn.Linear(8, 3) if spare else None     # used only when asked
        self.register_buffer("steps", torch.zeros(1))

    def forward(self, x, use_spare=False):
        h = torch.tanh(self.a(x))
        return self.b(h) + (self.spare(h) if use_spare else 0)


def batches(steps):
    g = torch.Generator().manual_seed(5)
    return [(torch.randn(PER_RANK * size, 5, generator=g),
             torch.randn(PER_RANK * size, 3, generator=g)) for _ in range(steps)]


def train(config, steps=3):
    spare = "spare_on" in config
    torch.manual_seed(0)
    reference = Net(spare)
    torch.manual_seed(10 + rank)       # other ranks start elsewhere: DDP broadcasts rank 0's
    model = Net(spare)
    if rank == 0:
        model.load_state_dict(reference.state_dict())
    hook = config.pop("hook", None)
    micro = config.pop("accumulate", 1)
    spare_on = config.pop("spare_on", ())
    spare_ranks = config.pop("spare_ranks", range(size))
    ddp = DDP(model, **config)
    if hook is not None:
        ddp.register_comm_hook(None, hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.2)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.2)
    def uses(step, r):
        return step in spare_on and r in spare_ranks

    for step, (x, y) in enumerate(batches(steps)):
        use_spare = uses(step, rank)
        opt.zero_grad()
        parts = np.array_split(np.arange(PER_RANK), micro)
        for i, part in enumerate(parts):
            idx = torch.tensor(part + PER_RANK * rank)
            loss = torch.nn.functional.mse_loss(ddp(x[idx], use_spare), y[idx]) * (
                len(part) / PER_RANK)
            if i < micro - 1:
                with ddp.no_sync():
                    loss.backward()
            else:
                loss.backward()
        opt.step()
        ref_opt.zero_grad()
        # the combined batch's mean loss, each rank's rows with that rank's use of the spare
        parts = [torch.nn.functional.mse_loss(
            reference(x[PER_RANK * r:PER_RANK * (r + 1)], uses(step, r)),
            y[PER_RANK * r:PER_RANK * (r + 1)]) for r in range(size)]
        (sum(parts) / size).backward()
        ref_opt.step()
    return ddp, model, reference


def compare(config, what, tol=1e-5):
    ddp, model, reference = train(dict(config))
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        same(p.detach(), q.detach().numpy(), f"{what}: {name}", rtol=tol, atol=tol)
    return ddp, model


compare({}, "default")
ddp, _ = compare({"bucket_cap_mb": 0.0001}, "small buckets")
check(len(ddp._buckets) > 2, "small buckets make several buckets")
_, model = compare({"gradient_as_bucket_view": True, "bucket_cap_mb": 0.0002},
                   "gradient_as_bucket_view")
grad = model.a.weight.grad
check(grad is not None and grad._storage._array is not None, "grad kept")
compare({"static_graph": True, "broadcast_buffers": False}, "static_graph")
compare({"accumulate": 2}, "no_sync accumulation")
compare({"hook": default_hooks.allreduce_hook}, "allreduce_hook")
compare({"hook": default_hooks.fp16_compress_hook}, "fp16_compress_hook", tol=1e-2)
compare({"hook": default_hooks.bf16_compress_hook}, "bf16_compress_hook", tol=3e-2)
_, model = compare({"find_unused_parameters": True, "spare_on": (0, 2)},
                   "find_unused_parameters")
check(model.spare.weight.grad is not None, "the spare layer got a gradient when used")
_, model = compare({"find_unused_parameters": True, "spare_on": (0, 1, 2), "spare_ranks": (0,),
                    "bucket_cap_mb": 0.0001}, "find_unused_parameters, used on rank 0 only")
check(model.spare.weight.grad is not None, "a layer used on another rank gets its gradient")

# unused parameters without find_unused_parameters: the next forward says so
torch.manual_seed(0)
ddp = DDP(Net(spare=True))
torch.nn.functional.mse_loss(ddp(torch.ones(2, 5)), torch.zeros(2, 3)).backward()
check(ddp.module.spare.weight.grad is None, "unused layer has no grad")
raises(RuntimeError, lambda: ddp(torch.ones(2, 5)), "unfinished reduction is reported")

# buffers follow rank 0 at each forward
torch.manual_seed(0)
net = Net()
ddp = DDP(net)
with torch.no_grad():
    net.steps.fill_(float(rank + 7))
ddp(torch.ones(1, 5))
same(net.steps, [7.0], "buffers broadcast from rank 0 before forward")

# DistributedSampler takes the group's rank and size
sampler = torch.utils.data.DistributedSampler(list(range(10)), shuffle=True, seed=3)
check(sampler.num_replicas == size and sampler.rank == rank, "sampler wired to the group")
everyone = [None] * size
dist.all_gather_object(everyone, list(sampler))
flat = sorted(i for part in everyone for i in part)
check(set(flat) == set(range(10)) and len(flat) == sampler.total_size, "sampler shares")
# SyncBatchNorm on each rank's share equals BatchNorm on the combined batch: outputs, input
# and parameter gradients (the sum over ranks), running statistics
torch.manual_seed(3)
x_all = torch.randn(PER_RANK * size, 3, 4, 4)
w_out = torch.randn(PER_RANK * size, 3, 4, 4)
plain = torch.nn.BatchNorm2d(3)
synced = torch.nn.SyncBatchNorm.convert_sync_batchnorm(torch.nn.BatchNorm2d(3))
with torch.no_grad():
    plain.weight.uniform_(0.5, 1.5)
    synced.weight.copy_(plain.weight)
x_ref = x_all.clone().requires_grad_(True)
(plain(x_ref) * w_out).sum().backward()
mine = slice(PER_RANK * rank, PER_RANK * (rank + 1))
x_mine = x_all[mine].clone().requires_grad_(True)
out = synced(x_mine)
(out * w_out[mine]).sum().backward()
expected = torch.nn.functional.batch_norm(x_all, None, None, plain.weight, plain.bias, True,
                                        0.0, 1e-5)
same(out.detach(), expected[mine].detach().numpy(), "SyncBatchNorm output", rtol=1e-4,
     atol=1e-5)
same(x_mine.grad, x_ref.grad[mine].numpy(), "SyncBatchNorm input gradient", rtol=1e-4,
     atol=1e-5)
grad_w = synced.weight.grad.clone()
dist.all_reduce(grad_w)
same(grad_w, plain.weight.grad.numpy(), "SyncBatchNorm weight gradient summed", rtol=1e-4,
     atol=1e-5)
same(synced.running_mean, plain.running_mean.numpy(), "SyncBatchNorm running_mean", rtol=1e-4,
     atol=1e-6)
same(synced.running_var, plain.running_var.numpy(), "SyncBatchNorm running_var", rtol=1e-4,
     atol=1e-6)
dist.destroy_process_group()
done()
