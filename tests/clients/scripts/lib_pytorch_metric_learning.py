import torch
from _show import show
from pytorch_metric_learning import distances, losses, miners, reducers

torch.manual_seed(0)
emb = torch.nn.functional.normalize(torch.randn(12, 4), dim=1).requires_grad_(True)
labels = torch.tensor([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
miner = miners.MultiSimilarityMiner(epsilon=0.1)
pairs = miner(emb, labels)
print("mined", [p.shape[0] for p in pairs])
for name, loss_fn in [
    ("triplet", losses.TripletMarginLoss(margin=0.2)),
    ("contrastive", losses.ContrastiveLoss(pos_margin=0, neg_margin=1)),
    ("ntxent", losses.NTXentLoss(temperature=0.1)),
    ("multisim", losses.MultiSimilarityLoss()),
    ("circle", losses.CircleLoss()),
    ("cosface", None),
]:
    if loss_fn is None:
        continue
    loss = loss_fn(emb, labels)
    show(name, loss.item())
loss = losses.TripletMarginLoss(distance=distances.CosineSimilarity(), reducer=reducers.ThresholdReducer(low=0))(emb, labels, miners.TripletMarginMiner(margin=0.2)(emb, labels))
loss.backward()
show("grad", emb.grad)
torch.manual_seed(0)
arc = losses.ArcFaceLoss(num_classes=4, embedding_size=4)
show("arcface", arc(emb, labels).item())
