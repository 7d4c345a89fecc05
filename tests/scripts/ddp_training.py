"""nanoGPT's distributed training skeleton, run as one process: `ddp` is decided from RANK as
train.py does; then a world of one (gloo, tcp:// rendezvous) wraps a small model in DDP with
gradient accumulation through require_backward_grad_sync, a DistributedSampler, all_reduce of
the loss, and rank-0 checkpointing of the raw model."""
import io
import os
import socket

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

ddp = int(os.environ.get("RANK", -1)) != -1
print("ddp run:", ddp, "available:", dist.is_available(), "initialized:", dist.is_initialized())

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
init_process_group(backend="gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
ddp_rank, ddp_world_size = dist.get_rank(), dist.get_world_size()
master_process = ddp_rank == 0
print("rank", ddp_rank, "world", ddp_world_size, "backend", dist.get_backend())

torch.manual_seed(1337 + ddp_rank)
model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 3))
model = DDP(model)
raw_model = model.module
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)

g = torch.Generator().manual_seed(0)
data = TensorDataset(torch.randn(48, 6, generator=g), torch.randint(0, 3, (48,), generator=g))
sampler = DistributedSampler(data, shuffle=True, seed=0)
loader = DataLoader(data, batch_size=8, sampler=sampler)
gradient_accumulation_steps = 2
for epoch in range(2):
    sampler.set_epoch(epoch)
    batches = list(loader)
    for step in range(0, len(batches), gradient_accumulation_steps):
        for micro_step in range(gradient_accumulation_steps):
            x, y = batches[step + micro_step]
            model.require_backward_grad_sync = micro_step == gradient_accumulation_steps - 1
            loss = nn.functional.cross_entropy(model(x), y) / gradient_accumulation_steps
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        reported = loss.detach() * gradient_accumulation_steps
        dist.all_reduce(reported, op=dist.ReduceOp.SUM)
        if master_process:
            print(f"epoch {epoch} step {step // 2}: loss {reported.item() / ddp_world_size:.4f}")

with model.no_sync():
    nn.functional.cross_entropy(model(data.tensors[0]), data.tensors[1]).backward()
print("grad after no_sync:", round(raw_model[0].weight.grad.abs().sum().item(), 3))

values = [None]
dist.all_gather_object(values, {"rank": ddp_rank, "steps": 6})
print("gathered:", values)
t = torch.arange(4.0)
dist.broadcast(t, src=0)
dist.barrier()
if master_process:
    buffer = io.BytesIO()
    torch.save({"model": raw_model.state_dict(), "iter_num": 6}, buffer)
    buffer.seek(0)
    state = torch.load(buffer)
    print("checkpoint keys:", list(state["model"])[:3], state["iter_num"])
    print("state_dict prefix:", list(model.state_dict())[0])
destroy_process_group()
print("initialized after destroy:", dist.is_initialized())
