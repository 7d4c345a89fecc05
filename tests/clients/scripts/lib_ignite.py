import os

import torch
from _show import show, workdir
from ignite.engine import Events, create_supervised_evaluator, create_supervised_trainer
from ignite.handlers import EarlyStopping, ModelCheckpoint
from ignite.metrics import Accuracy, Loss, Precision, Recall, RunningAverage
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.linspace(-1, 1, 40).reshape(10, 4)
y = torch.arange(10) % 3
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=4)
trainer = create_supervised_trainer(model, opt, nn.CrossEntropyLoss())
RunningAverage(output_transform=lambda out: out).attach(trainer, "avg_loss")
evaluator = create_supervised_evaluator(model, metrics={
    "acc": Accuracy(), "loss": Loss(nn.CrossEntropyLoss()), "prec": Precision(average=True),
    "recall": Recall(average=True)})
folder = os.path.join(workdir(), "ignite_" + torch.__name__)
saver = ModelCheckpoint(folder, "net", n_saved=1, require_empty=False)
trainer.add_event_handler(Events.EPOCH_COMPLETED, saver, {"model": model})
stopper = EarlyStopping(patience=5, score_function=lambda e: -e.state.metrics["loss"], trainer=trainer)
evaluator.add_event_handler(Events.COMPLETED, stopper)


@trainer.on(Events.EPOCH_COMPLETED)
def log(engine):
    evaluator.run(loader)
    print(engine.state.epoch, {k: round(v, 4) for k, v in evaluator.state.metrics.items()},
          round(engine.state.metrics["avg_loss"], 4))


trainer.run(loader, max_epochs=3)
print(sorted(os.listdir(folder)))
state = torch.load(os.path.join(folder, sorted(os.listdir(folder))[-1]))
show("saved", state["0.weight"])
