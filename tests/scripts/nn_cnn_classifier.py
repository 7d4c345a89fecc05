"""An nn.Module CNN trained with a hand-written SGD step: Conv2d, BatchNorm2d, MaxPool2d,
Dropout, Linear, CrossEntropyLoss, state_dict round trip, train/eval."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 8, 3, stride=2)
        self.drop = nn.Dropout(0.0)
        self.fc = nn.Linear(8 * 3 * 3, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.relu(self.conv2(self.drop(x)))
        return self.fc(torch.flatten(x, 1))


model = Net()
print(model)
print([(k, tuple(v.shape)) for k, v in model.state_dict().items()])
# Deterministic weights, so both libraries start from the same numbers.
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.3, 0.3, p.numel()).reshape(p.shape).cos() * (0.5 + i / 10))

x = torch.linspace(-1, 1, 16 * 14 * 14).reshape(16, 1, 14, 14).sin()
labels = torch.arange(16) % 3
loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
for step in range(12):
    loss = loss_fn(model(x), labels)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.1 * p.grad
    if step % 4 == 0:
        print(f"step {step:2d} loss {loss.item():.6f}")

print("running mean", [round(v, 6) for v in model.bn1.running_mean.tolist()])
print("batches tracked", model.bn1.num_batches_tracked.item())
model.eval()
with torch.no_grad():
    out = model(x[:2])
print("eval", [round(v, 6) for v in out.flatten().tolist()])
copy = Net()
print(copy.load_state_dict(model.state_dict()))
copy.eval()
print("same after load", torch.equal(copy(x[:2]), out))
