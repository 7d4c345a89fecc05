import os

import torch
from _show import saved_by_torch, show, workdir
from x_transformers import Decoder, Encoder, TransformerWrapper
from x_transformers.autoregressive_wrapper import AutoregressiveWrapper

torch.manual_seed(0)
model = TransformerWrapper(num_tokens=20, max_seq_len=16,
                           attn_layers=Decoder(dim=16, depth=2, heads=2, rotary_pos_emb=True))
state = saved_by_torch(os.path.join(workdir(), "xt.pt"), model.state_dict)
model.load_state_dict(state)
x = torch.arange(10).remainder(20).reshape(1, 10)
logits = model(x)
show("logits", logits, 3)
wrapper = AutoregressiveWrapper(model)
loss = wrapper(torch.arange(12).reshape(1, 12) % 20)
show("loss", loss.item(), 3)
loss.backward()
show("grad", model.token_emb.emb.weight.grad, 3)
model.eval()
torch.manual_seed(1)
out = wrapper.generate(torch.tensor([[1, 2, 3]]), 4, temperature=0.0)
print("generated", out.tolist())
torch.manual_seed(0)
enc = TransformerWrapper(num_tokens=10, max_seq_len=8, attn_layers=Encoder(dim=8, depth=1, heads=2))
mask = torch.tensor([[True] * 6 + [False] * 2])
show("encoder", enc(torch.arange(8).reshape(1, 8), mask=mask), 3)
print("params", sum(p.numel() for p in model.parameters()))
