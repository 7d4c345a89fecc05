import loralib as lora
import torch
from _show import show
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(lora.Linear(6, 4, r=2, lora_alpha=4), nn.ReLU(), lora.Embedding(10, 6, r=2) if False else nn.Identity(),
                      lora.Linear(4, 2, r=2))
lora.mark_only_lora_as_trainable(model)
print([n for n, p in model.named_parameters() if p.requires_grad])
nn.init.normal_(model[0].lora_B)
opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)
x = torch.linspace(-1, 1, 18).reshape(3, 6)
for _ in range(3):
    opt.zero_grad()
    loss = model(x).pow(2).sum()
    loss.backward()
    opt.step()
show("loss", loss.item())
sd = lora.lora_state_dict(model)
print(sorted(sd))
model.eval()
show("merged", model(x), 2)
emb = lora.Embedding(10, 4, r=2)
show("embedding", emb(torch.tensor([1, 5])))
merged = lora.MergedLinear(4, 12, r=2, enable_lora=[True, False, True])
show("merged linear", merged(torch.ones(2, 4)))
