import torch
import torchmetrics
from _show import show
from torchmetrics.classification import (
    BinaryAUROC,
    MulticlassAccuracy,
    MulticlassConfusionMatrix,
    MulticlassF1Score,
)
from torchmetrics.functional import accuracy
from torchmetrics.regression import MeanSquaredError, PearsonCorrCoef, R2Score

torch.manual_seed(0)
preds = torch.randn(20, 4).softmax(-1)
target = torch.randint(0, 4, (20,))
acc = MulticlassAccuracy(num_classes=4)
f1 = MulticlassF1Score(num_classes=4, average="macro")
cm = MulticlassConfusionMatrix(num_classes=4)
for i in range(0, 20, 5):
    acc.update(preds[i:i + 5], target[i:i + 5])
    f1.update(preds[i:i + 5], target[i:i + 5])
    cm.update(preds[i:i + 5], target[i:i + 5])
show("accuracy", acc.compute())
show("f1", f1.compute())
show("confusion", cm.compute())
show("functional accuracy", accuracy(preds, target, task="multiclass", num_classes=4))
auroc = BinaryAUROC()
show("auroc", auroc(torch.linspace(0, 1, 10), torch.tensor([0, 0, 1, 0, 1, 0, 1, 1, 1, 1])))
mse, r2, pear = MeanSquaredError(), R2Score(), PearsonCorrCoef()
x = torch.linspace(-1, 1, 16)
y = x * 2 + torch.sin(x * 5) / 4
for m in (mse, r2, pear):
    m.update(x * 2, y)
    show(type(m).__name__, m.compute())
coll = torchmetrics.MetricCollection([MulticlassAccuracy(num_classes=4), MulticlassF1Score(num_classes=4)])
show("collection", coll(preds, target))
acc.reset()
show("state after reset", acc.tp)
sd = acc.state_dict()
print("state_dict keys", sorted(sd))
